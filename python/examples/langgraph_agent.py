"""A LangGraph agent whose threads live in EdgememSaver and whose facts live in EdgememStore, one store file.

    python langgraph_agent.py STORE_FILE start THREAD "message"   # runs until the agent asks for approval
    python langgraph_agent.py STORE_FILE resume THREAD yes|no      # a new process picks the thread up

The chat model is LangChain's fake one (no network): it answers from a script. The graph remembers every user
message as a fact (EdgememStore, searched lexically), asks a human to approve its reply (``interrupt``), and
then answers with the facts it recalls for the user.
"""

from __future__ import annotations

import sys

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.store.base import BaseStore
from langgraph.types import Command, interrupt

from edgemem import open_store
from edgemem.langgraph import EdgememSaver, EdgememStore


def build(saver: EdgememSaver, store: EdgememStore):
    model = GenericFakeChatModel(messages=iter([AIMessage(content="Noted. Anything else?")] * 100))

    def remember(state: MessagesState, store: BaseStore):
        last = state["messages"][-1]
        n = len(store.search(("facts", "user-1"), limit=100))
        store.put(("facts", "user-1"), f"fact-{n}", {"text": last.content})
        return {}

    def reply(state: MessagesState, store: BaseStore):
        draft = model.invoke(state["messages"])
        verdict = interrupt({"draft": draft.content})
        if verdict != "yes":
            return {"messages": [AIMessage(content="(reply withheld)")]}
        facts = store.search(("facts", "user-1"), query=state["messages"][-1].content, limit=3)
        known = "; ".join(f.value["text"] for f in facts)
        return {"messages": [AIMessage(content=f"{draft.content} I remember: {known}")]}

    g = StateGraph(MessagesState)
    g.add_node("remember", remember)
    g.add_node("reply", reply)
    g.add_edge(START, "remember")
    g.add_edge("remember", "reply")
    g.add_edge("reply", END)
    return g.compile(checkpointer=saver, store=store)


def main(path: str, action: str, thread: str, arg: str) -> None:
    with open_store(path) as s:
        graph = build(EdgememSaver(s), EdgememStore(s))
        config = {"configurable": {"thread_id": thread}}
        if action == "start":
            out = graph.invoke({"messages": [HumanMessage(content=arg)]}, config)
            print("INTERRUPTED", out["__interrupt__"][0].value["draft"])
        else:
            out = graph.invoke(Command(resume=arg), config)
            print("MESSAGES", len(out["messages"]))
            print("LAST", out["messages"][-1].content)


if __name__ == "__main__":
    main(*sys.argv[1:5])
