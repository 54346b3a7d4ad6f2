"""EdgememStore against LangGraph's InMemoryStore: the same calls give the same answers (values, keys,
namespaces, order), plus what InMemoryStore lacks (TTL, lexical search, persistence)."""

import asyncio
import hashlib
import math
import time

import pytest
from langchain_core.embeddings import Embeddings
from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from edgemem import open_store
from edgemem.langgraph import EdgememStore

DIMS = 32


class WordEmbeddings(Embeddings):
    """Bag of words hashed into 32 buckets, normalised: texts sharing words are near."""

    def _one(self, text: str) -> list[float]:
        v = [0.0] * DIMS
        for w in text.lower().split():
            v[int(hashlib.md5(w.encode()).hexdigest(), 16) % DIMS] += 1.0
        n = math.sqrt(sum(x * x for x in v)) or 1.0
        return [x / n for x in v]

    def embed_documents(self, texts):
        return [self._one(t) for t in texts]

    def embed_query(self, text):
        return self._one(text)


DOCS = [
    (("users", "alice", "facts"), "a1", {"text": "alice likes green tea", "n": 1, "tags": ["tea"], "meta": {"lang": "en"}}),
    (("users", "alice", "facts"), "a2", {"text": "alice works as a pilot", "n": 2, "tags": ["job"], "meta": {"lang": "en"}}),
    (("users", "alice", "prefs"), "p1", {"text": "prefers window seats", "n": 3, "tags": [], "meta": {"lang": "pt"}}),
    (("users", "bob", "facts"), "b1", {"text": "bob drinks black coffee", "n": 4, "tags": ["coffee"], "meta": {"lang": "en"}}),
    (("users", "bob", "facts"), "b2", {"text": "bob is also a pilot now", "n": 5, "tags": ["job"], "meta": None}),
    (("docs",), "d1", {"text": "the manual for the coffee machine", "n": 6, "tags": ["coffee", "manual"], "meta": {"lang": "en"}}),
]


@pytest.fixture(params=["memory", "file"])
def pair(request, tmp_path):
    idx = {"dims": DIMS, "embed": WordEmbeddings(), "fields": ["text"]}
    path = ":memory:" if request.param == "memory" else str(tmp_path / "store.db")
    s = open_store(path, dims=DIMS)
    ours = EdgememStore(s, index=idx, search_mode="vector")
    theirs = InMemoryStore(index=idx)
    for ns, k, v in DOCS:
        ours.put(ns, k, v)
        theirs.put(ns, k, v)
    yield ours, theirs
    s.close()


def items(xs):
    return [(tuple(i.namespace), i.key, i.value) for i in xs]


def test_get_put_update_delete(pair):
    ours, theirs = pair
    for st in pair:
        st.put(("users", "alice", "facts"), "a1", {"text": "alice now likes coffee", "n": 10})
        st.delete(("users", "bob", "facts"), "b2")
    for ns, k, _ in DOCS + [(("nowhere",), "x", None)]:
        a, b = ours.get(ns, k), theirs.get(ns, k)
        assert (a is None) == (b is None)
        if a is not None:
            assert (a.namespace, a.key, a.value) == (b.namespace, b.key, b.value)
    assert ours.get(("users", "alice", "facts"), "a1").value["n"] == 10
    assert ours.get(("users", "bob", "facts"), "b2") is None
    ours.delete(("nowhere",), "x")  # deleting a missing item is no error


@pytest.mark.parametrize(
    "prefix,filter,limit,offset",
    [
        ((), None, 10, 0),
        (("users",), None, 10, 0),
        (("users", "alice"), None, 10, 0),
        (("users",), None, 2, 1),
        ((), {"n": 4}, 10, 0),
        ((), {"n": {"$gt": 2}}, 10, 0),
        ((), {"n": {"$gte": 2, "$lt": 5}}, 10, 0),
        ((), {"n": {"$ne": 1}}, 3, 1),
        ((), {"tags": ["job"]}, 10, 0),
        ((), {"meta": {"lang": "en"}}, 10, 0),
        ((), {"meta": None}, 10, 0),
        (("users",), {"text": "bob is also a pilot now"}, 10, 0),
        ((), {"missing": 1}, 10, 0),
    ],
)
def test_search_without_query_matches_in_memory(pair, prefix, filter, limit, offset):
    ours, theirs = pair
    got = items(ours.search(prefix, filter=filter, limit=limit, offset=offset))
    want = items(theirs.search(prefix, filter=filter, limit=limit, offset=offset))
    # InMemoryStore answers in insertion order, edgemem in (namespace, key) order: DOCS is in neither, so the
    # unlimited answers are compared as sets and the paged ones against InMemoryStore's sorted answer.
    if limit >= len(DOCS) and offset == 0:
        assert sorted(got, key=repr) == sorted(want, key=repr)
    else:
        full = sorted(items(theirs.search(prefix, filter=filter, limit=100)), key=lambda t: (t[0], t[1]))
        assert got == full[offset : offset + limit]


@pytest.mark.parametrize(
    "query,prefix,filter,limit",
    [
        ("who is a pilot", (), None, 3),
        ("coffee", (), None, 2),
        ("green tea", ("users", "alice"), None, 1),
        ("pilot", ("users",), {"n": {"$gte": 2}}, 2),
        ("coffee", (), {"tags": ["coffee", "manual"]}, 5),
    ],
)
def test_vector_search_ranks_as_in_memory(pair, query, prefix, filter, limit):
    ours, theirs = pair
    got = ours.search(prefix, query=query, filter=filter, limit=limit)
    want = theirs.search(prefix, query=query, filter=filter, limit=limit)
    assert [(i.namespace, i.key) for i in got] == [(i.namespace, i.key) for i in want]
    for a, b in zip(got, want):
        assert a.score == pytest.approx(b.score, abs=1e-5)


@pytest.mark.parametrize(
    "conds,max_depth,limit,offset",
    [
        (None, None, 100, 0),
        ((MatchCondition("prefix", ("users",)),), None, 100, 0),
        ((MatchCondition("prefix", ("users", "*", "facts")),), None, 100, 0),
        ((MatchCondition("suffix", ("facts",)),), None, 100, 0),
        ((MatchCondition("prefix", ("users",)), MatchCondition("suffix", ("prefs",))), None, 100, 0),
        (None, 2, 100, 0),
        (None, 1, 100, 0),
        (None, None, 2, 1),
    ],
)
def test_list_namespaces_matches_in_memory(pair, conds, max_depth, limit, offset):
    ours, theirs = pair
    op = ListNamespacesOp(match_conditions=conds, max_depth=max_depth, limit=limit, offset=offset)
    assert ours.batch([op]) == theirs.batch([op])


def test_batch_reads_before_writes_last_write_wins(pair):
    ours, theirs = pair
    ops = [
        GetOp(("docs",), "d1"),
        PutOp(("docs",), "d1", {"text": "first"}),
        PutOp(("docs",), "d1", {"text": "second"}),
        GetOp(("docs",), "d1"),
        PutOp(("docs",), "new", {"text": "x"}),
        SearchOp(("docs",), None, 10, 0, None),
        PutOp(("users", "bob", "facts"), "b1", None),
    ]
    a, b = ours.batch(ops), theirs.batch(ops)
    assert [None if r is None else r.value for r in (a[0], a[3])] == [None if r is None else r.value for r in (b[0], b[3])]
    assert items(a[5]) == items(b[5])
    assert ours.get(("docs",), "d1").value == {"text": "second"} == theirs.get(("docs",), "d1").value
    assert ours.get(("users", "bob", "facts"), "b1") is None


def test_abatch_equals_batch(pair):
    ours, _ = pair

    async def main():
        await ours.aput(("async",), "k", {"text": "an async pilot"})
        got = await ours.asearch((), query="pilot", limit=3)
        assert [i.key for i in got] == [i.key for i in ours.search((), query="pilot", limit=3)]
        item = await ours.aget(("async",), "k")
        nss = await ours.alist_namespaces(prefix=("async",))
        await ours.adelete(("async",), "k")
        return got, item, nss, await ours.aget(("async",), "k")

    got, item, nss, gone = asyncio.run(main())
    assert got[0].key == "k"
    assert item.value == {"text": "an async pilot"} and nss == [("async",)] and gone is None


def test_index_false_and_lexical_and_hybrid(tmp_path):
    with open_store(tmp_path / "l.db", dims=DIMS) as s:
        lex = EdgememStore(s)  # no index: a query searches the texts with BM25
        lex.put(("n",), "a", {"text": "the quick brown fox"})
        lex.put(("n",), "b", {"text": "lazy dogs sleep"})
        lex.put(("n",), "c", {"text": "quick quick"}, index=False)  # not indexed: no text to find
        assert [i.key for i in lex.search(("n",), query="quick")] == ["a"]
        hyb = EdgememStore(s, index={"dims": DIMS, "embed": WordEmbeddings(), "fields": ["text"]})
        hyb.put(("h",), "x", {"text": "sleepy dogs"})
        hits = hyb.search(("h",), query="dogs")
        assert [i.key for i in hits] == ["x"] and hits[0].score is not None


def test_ttl_expires_and_refreshes(tmp_path):
    with open_store(tmp_path / "t.db") as s:
        st = EdgememStore(s, ttl={"default_ttl": None, "refresh_on_read": True})
        st.put(("t",), "short", {"v": 1}, ttl=1 / 60)  # 1 s
        assert st.get(("t",), "short", refresh_ttl=False).value == {"v": 1}
        st.put(("t",), "long", {"v": 2}, ttl=10)
        st.put(("t",), "forever", {"v": 3})
        time.sleep(1.2)
        assert st.get(("t",), "short") is None
        assert [i.key for i in st.search(("t",))] == ["forever", "long"]
        before = s.get(("t",), "long").expires_at
        time.sleep(0.01)
        st.get(("t",), "long")  # refresh_on_read: a new expiry
        assert s.get(("t",), "long").expires_at > before
        v = s.get(("t",), "long").version
        st.get(("t",), "long", refresh_ttl=False)
        st.search(("t",), refresh_ttl=False)
        assert s.get(("t",), "long").version == v


def test_persists_across_reopen(tmp_path):
    p = tmp_path / "persist.db"
    with open_store(p) as s:
        EdgememStore(s).put(("p",), "k", {"text": "kept"})
    with open_store(p) as s:
        assert EdgememStore(s).get(("p",), "k").value == {"text": "kept"}
