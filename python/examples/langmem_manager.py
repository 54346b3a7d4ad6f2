"""A LangMem memory manager keeping what it learns in EdgememStore (one store file), no network: the chat model
is a stand-in that calls LangMem's `Memory` tool with what the user said about themselves.

    python langmem_manager.py STORE_FILE "message" ...    # prints the memories the store then holds
"""

from __future__ import annotations

import sys
import uuid
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langmem import create_memory_store_manager

from edgemem import open_store
from edgemem.langgraph import EdgememStore


class FactModel(BaseChatModel):
    """Extracts "I ..." / "my ..." sentences of the conversation as memories, through the tool it is given."""

    tool: str = "Memory"

    @property
    def _llm_type(self) -> str:
        return "fact-model"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "FactModel":
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        text = "\n".join(str(m.content) for m in messages)
        facts = []
        for line in text.splitlines():
            line = line.split(":", 1)[-1].strip() if line.lower().startswith("user:") else line.strip()
            if line.lower().startswith(("i ", "my ")) and line not in facts:
                facts.append(line)
        calls = [{"name": self.tool, "args": {"content": f}, "id": f"call_{uuid.uuid4().hex[:8]}", "type": "tool_call"} for f in facts]
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=calls))])


def main(path: str, *said: str) -> None:
    with open_store(path) as s:
        store = EdgememStore(s)
        manager = create_memory_store_manager(FactModel(), namespace=("memories", "user-1"), store=store)
        for message in said:
            manager.invoke({"messages": [{"role": "user", "content": message}]})
        for item in sorted(store.search(("memories", "user-1"), limit=100), key=lambda i: i.value["content"]["content"]):
            print(item.value["kind"], "|", item.value["content"]["content"])


if __name__ == "__main__":
    main(*sys.argv[1:])
