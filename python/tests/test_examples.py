"""The examples, run: a LangGraph agent (fake chat model) keeping threads in EdgememSaver and facts in
EdgememStore, stopped at an interrupt and resumed in a new process; and the same graph under asyncio."""

import asyncio
import subprocess
import sys
from pathlib import Path

from langchain_core.messages import HumanMessage
from langgraph.types import Command

from edgemem import open_store
from edgemem.langgraph import EdgememSaver, EdgememStore

import langgraph_agent  # python/examples (conftest puts it on the path)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(*args: str) -> list[str]:
    r = subprocess.run([sys.executable, str(EXAMPLES / "langgraph_agent.py"), *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip().splitlines()


def test_agent_stops_and_resumes_in_new_processes(tmp_path):
    db = str(tmp_path / "agent.db")
    assert run(db, "start", "t1", "my cat is called Tom") == ["INTERRUPTED Noted. Anything else?"]
    assert run(db, "resume", "t1", "yes") == ["MESSAGES 2", "LAST Noted. Anything else? I remember: my cat is called Tom"]
    assert run(db, "start", "t2", "I live in Lisbon") == ["INTERRUPTED Noted. Anything else?"]
    assert run(db, "resume", "t2", "no") == ["MESSAGES 2", "LAST (reply withheld)"]
    out = run(db, "start", "t1", "what is my cat called")
    assert out == ["INTERRUPTED Noted. Anything else?"]
    last = run(db, "resume", "t1", "yes")
    assert last[0] == "MESSAGES 4" and "my cat is called Tom" in last[1]
    with open_store(db) as s:
        saver = EdgememSaver(s)
        graph = langgraph_agent.build(saver, EdgememStore(s))
        state = graph.get_state({"configurable": {"thread_id": "t1"}})
        assert [m.content for m in state.values["messages"]][0] == "my cat is called Tom"
        history = list(graph.get_state_history({"configurable": {"thread_id": "t1"}}))
        assert len(history) >= 8  # every step of both turns
        facts = EdgememStore(s).search(("facts", "user-1"), limit=10)
        assert sorted(f.value["text"] for f in facts) == ["I live in Lisbon", "my cat is called Tom", "what is my cat called"]


def test_agent_under_asyncio(tmp_path):
    async def main():
        with open_store(tmp_path / "async.db") as s:
            graph = langgraph_agent.build(EdgememSaver(s), EdgememStore(s))
            config = {"configurable": {"thread_id": "a1"}}
            out = await graph.ainvoke({"messages": [HumanMessage(content="tea is my favourite")]}, config)
            assert out["__interrupt__"][0].value == {"draft": "Noted. Anything else?"}
            out = await graph.ainvoke(Command(resume="yes"), config)
            assert out["messages"][-1].content.endswith("I remember: tea is my favourite")
            states = [st async for st in graph.aget_state_history(config)]
            assert len(states) >= 4

    asyncio.run(main())


def test_langmem_manager_on_edgemem_store(tmp_path):
    """python/examples/langmem_manager.py: LangMem's memory manager writes what it extracts into EdgememStore; a
    second process adds to it (searching what the first stored), the file keeps both."""
    db = str(tmp_path / "langmem.db")
    r = subprocess.run([sys.executable, str(EXAMPLES / "langmem_manager.py"), db, "I live in Lisbon", "my cat is called Tom"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["Memory | I live in Lisbon", "Memory | my cat is called Tom"]
    r = subprocess.run([sys.executable, str(EXAMPLES / "langmem_manager.py"), db, "I work as a pilot"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["Memory | I live in Lisbon", "Memory | I work as a pilot", "Memory | my cat is called Tom"]


def test_langmem_manager_async(tmp_path):
    import langmem_manager
    from langmem import create_memory_store_manager

    async def main():
        with open_store(tmp_path / "a.db") as s:
            store = EdgememStore(s)
            manager = create_memory_store_manager(langmem_manager.FactModel(), namespace=("memories", "u"), store=store)
            await manager.ainvoke({"messages": [{"role": "user", "content": "I like green tea"}]})
            items = await store.asearch(("memories", "u"), query="tea")
            assert [i.value["content"]["content"] for i in items] == ["I like green tea"]

    asyncio.run(main())
