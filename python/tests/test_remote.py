"""What only the remote client has: tokens and scopes, asyncio over HTTP; and LangGraph's store and an agent graph
over connect(). (The contract, the WebSocket feed included, is tests/test_store.py's, run over connect() too.)"""

import asyncio
import json

import pytest
from conftest import remote_store
from test_langgraph_store import DIMS, DOCS, WordEmbeddings

from edgemem import EdgememError, connect, connect_async, create_agent, mint_token
from edgemem.langgraph import EdgememSaver, EdgememStore


def test_tokens_scope_the_agent(worker):
    url, admin = worker["url"], worker["admin"]
    create_agent(url, admin, "scoped-a")
    create_agent(url, admin, "scoped-b")
    ro = mint_token(url, admin, "scoped-a", ["read"])["token"]
    with connect(url, "scoped-a", admin) as a:
        a.put("n", "k", "written with the admin token")
    with connect(url, "scoped-a", ro) as a:
        assert a.get("n", "k").value == "written with the admin token"
        with pytest.raises(EdgememError) as e:
            a.put("n", "k2", 1)
        assert e.value.code == "FORBIDDEN"
    with connect(url, "scoped-b", ro) as b:
        with pytest.raises(EdgememError) as e:
            b.get("n", "k")
        assert e.value.code == "FORBIDDEN"
    with connect(url, "scoped-a", "not-a-token") as bad:
        with pytest.raises(EdgememError) as e:
            bad.stats()
        assert e.value.code == "UNAUTHORIZED"


def test_async_remote(worker):
    agent = "py-async"
    create_agent(worker["url"], worker["admin"], agent)

    async def main():
        async with connect_async(worker["url"], agent, worker["admin"]) as s:
            await asyncio.gather(*(s.put("a", f"k{i}", i) for i in range(20)))
            page = await s.list("a", limit=100)
            assert sorted(m.value for m in page.items) == list(range(20))
            assert (await s.get("a", "k3")).value == 3

    asyncio.run(main())


def test_langgraph_store_over_connect_matches_in_memory(worker):
    from langgraph.store.memory import InMemoryStore

    s = remote_store(worker, dims=DIMS)
    try:
        idx = {"dims": DIMS, "embed": WordEmbeddings(), "fields": ["text"]}
        ours, theirs = EdgememStore(s, index=idx, search_mode="vector"), InMemoryStore(index=idx)
        for ns, k, v in DOCS:
            ours.put(ns, k, v)
            theirs.put(ns, k, v)
        for q in ("who is a pilot", "coffee", "green tea"):
            assert [(i.namespace, i.key) for i in ours.search((), query=q, limit=3)] == [(i.namespace, i.key) for i in theirs.search((), query=q, limit=3)]
        key = lambda i: (i.namespace, i.key)  # noqa: E731
        for f in (None, {"n": {"$gt": 2}}, {"meta": {"lang": "en"}}, {"tags": ["job"]}):
            assert sorted(map(key, ours.search((), filter=f, limit=100))) == sorted(map(key, theirs.search((), filter=f, limit=100)))
        assert ours.list_namespaces(prefix=("users",)) == theirs.list_namespaces(prefix=("users",))
        assert ours.list_namespaces(max_depth=2) == theirs.list_namespaces(max_depth=2)
        ours.delete(("docs",), "d1")
        assert ours.get(("docs",), "d1") is None
    finally:
        s.close()


def test_agent_graph_over_connect(worker):
    import langgraph_agent  # the example, on the Worker instead of a file
    from langchain_core.messages import HumanMessage
    from langgraph.types import Command

    s = remote_store(worker)
    try:
        graph = langgraph_agent.build(EdgememSaver(s), EdgememStore(s))
        config = {"configurable": {"thread_id": "remote-1"}}
        out = graph.invoke({"messages": [HumanMessage(content="my dog is Rex")]}, config)
        assert "__interrupt__" in out
        # A new saver and graph (as a new process would make) resumes the thread from the Worker.
        graph2 = langgraph_agent.build(EdgememSaver(s), EdgememStore(s))
        out = graph2.invoke(Command(resume="yes"), config)
        assert out["messages"][-1].content.endswith("I remember: my dog is Rex")
    finally:
        s.close()


def test_import_streams_into_an_agent_and_a_broken_source_leaves_it_empty(worker, tmp_path):
    from edgemem import open_store

    with open_store(str(tmp_path / "src.db"), dims=3) as src:
        for i in range(300):
            src.put(("docs", str(i % 3)), f"k{i}", {"text": "x" * 100, "i": i}, embedding=[1, i / 300, 0])
        src.put_checkpoint("t", "c1", ("bytes", b"\x00\x01"), metadata={"step": 1})
        text = "".join(src.export())
    # Pieces that cut lines anywhere: the Worker reads the body as one stream.
    pieces = [text[i : i + 997] for i in range(0, len(text), 997)]
    s = remote_store(worker)
    try:
        assert s.import_(iter(pieces))["done"] is True
        assert s.stats()["memories"] == 300
        assert s.get(("docs", "1"), "k4").value == {"text": "x" * 100, "i": 4}
        assert s.get_checkpoint("t").data == ("bytes", b"\x00\x01")
        with pytest.raises(EdgememError) as e:
            s.import_(text)  # only into an empty store
        assert e.value.code in ("CONFLICT", "INVALID_ARGUMENT")
        chunks = list(s.export(max_chunk_bytes=4096))  # whole lines, about 4 KiB each
        assert len(chunks) > 5 and all(c.endswith("\n") for c in chunks)
        end = lambda t: {k: v for k, v in json.loads(t.splitlines()[-1]).items() if k in ("versions", "checkpoints", "writes")}  # noqa: E731
        assert end("".join(chunks)) == end(text) == {"versions": 300, "checkpoints": 1, "writes": 0}
    finally:
        s.close()

    def broken():
        yield pieces[0]
        yield pieces[1]
        raise ValueError("the source broke")

    s = remote_store(worker)
    try:
        with pytest.raises(ValueError, match="the source broke"):
            s.import_(broken())
        assert s.stats()["memories"] == 0
        s.put("n", "k", 1)  # and it takes writes again
    finally:
        s.close()
