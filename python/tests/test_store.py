"""The store API from Python: memories, search, history / AS OF, checkpoints, errors, the context manager."""

import threading
import time

import pytest

from edgemem import EdgememError, Memory, WriteAck, open_store


def test_put_get_delete_roundtrip(store):
    ack = store.put(("user", "42"), "color", {"fav": "blue"}, metadata={"src": "chat"}, text="favourite colour blue")
    assert isinstance(ack, WriteAck) and ack.version == 1 and ack.seq == 1
    m = store.get(["user", "42"], "color")
    assert isinstance(m, Memory)
    assert (m.namespace, m.key, m.value, m.metadata, m.text) == (("user", "42"), "color", {"fav": "blue"}, {"src": "chat"}, "favourite colour blue")
    assert store.put(("user", "42"), "color", {"fav": "red"}).version == 2
    assert store.get(("user", "42"), "color").value == {"fav": "red"}
    seq = store.delete(("user", "42"), "color")
    assert seq == 3 and store.get(("user", "42"), "color") is None
    assert store.get(("nobody",), "nothing") is None


def test_values_roundtrip_json_types(store):
    v = {"s": "é ☃ \u0000x", "i": 2**53 - 1, "f": 0.1, "b": True, "n": None, "l": [1, [2, {"x": []}]]}
    store.put("ns", "k", v)
    assert store.get("ns", "k").value == v


def test_if_version_conflict_carries_the_code(store):
    store.put("ns", "k", 1)
    with pytest.raises(EdgememError) as e:
        store.put("ns", "k", 2, if_version=5)
    assert e.value.code == "CONFLICT"
    with pytest.raises(EdgememError) as e:
        store.put("ns", "new", 2, if_version=1)
    assert e.value.code == "CONFLICT"
    assert store.put("ns", "new", 2, if_version=0).version == 1
    assert store.put("ns", "k", 3, if_version=1).version == 2


def test_invalid_arguments_and_dimension_mismatch(store):
    with pytest.raises(EdgememError) as e:
        store.put("ns", "k", 1, embedding=[1.0, 2.0])
    assert e.value.code == "DIMENSION_MISMATCH"
    with pytest.raises(EdgememError) as e:
        store.put("ns", "", 1)
    assert e.value.code == "INVALID_ARGUMENT"
    with pytest.raises(EdgememError) as e:
        store.list(filter={"a": {"$regex": "x"}})
    assert e.value.code == "INVALID_ARGUMENT"


def test_list_pages_filters_and_iter(store):
    for i in range(25):
        store.put(("docs", "a" if i % 2 else "b"), f"k{i:02}", {"i": i, "even": i % 2 == 0}, metadata={"i": i})
    page = store.list(("docs",), limit=10)
    assert len(page.items) == 10 and page.next_cursor is not None
    keys = [m.key for m in store.iter(("docs",), limit=7)]
    assert len(keys) == 25 and len(set(keys)) == 25
    big = store.list(("docs",), filter={"i": {"$gte": 20}})
    assert sorted(m.metadata["i"] for m in big.items) == [20, 21, 22, 23, 24]
    evens = store.list(("docs",), value_filter={"even": True}, limit=100)
    assert len(evens.items) == 13 and all(m.value["even"] for m in evens.items)
    inn = store.list(("docs",), filter={"i": {"$in": [1, 2, 3]}})
    assert sorted(m.metadata["i"] for m in inn.items) == [1, 2, 3]
    assert store.list_namespaces() == [("docs", "a"), ("docs", "b")]
    assert store.list_namespaces(max_depth=1) == [("docs",)]


def test_search_vector_lexical_hybrid_with_filters(store):
    store.put("kb", "cat", "the cat sleeps on the warm mat", embedding=[1, 0, 0], metadata={"animal": True, "n": 1})
    store.put("kb", "dog", "a dog barks at the mailman", embedding=[0, 1, 0], metadata={"animal": True, "n": 2})
    store.put("kb", "tax", "file the tax return before april", embedding=[0, 0, 1], metadata={"animal": False, "n": 3})
    store.put("other", "cat2", "another cat", embedding=[1, 0, 0])
    v = store.search(vector=[0.9, 0.1, 0], k=2, namespace="kb")
    assert [h.key for h in v] == ["cat", "dog"] and v[0].vector_rank == 1 and v[0].lexical_rank is None
    lex = store.search("tax return", mode="lexical", k=3)
    assert lex[0].key == "tax" and lex[0].lexical_rank == 1 and lex[0].vector_rank is None
    hyb = store.search("barking dog", vector=[0, 1, 0], k=3)
    assert hyb[0].key == "dog" and hyb[0].vector_rank == 1 and hyb[0].lexical_rank == 1
    f = store.search(vector=[1, 0, 0], k=5, filter={"animal": False})
    assert [h.key for h in f] == ["tax"]
    f2 = store.search(vector=[1, 0, 0], k=5, filter={"n": {"$gt": 1}}, namespace=("kb",))
    assert [h.key for h in f2] == ["dog", "tax"]


def test_history_and_as_of(store):
    a1 = store.put("h", "k", "v1")
    a2 = store.put("h", "k", "v2")
    store.delete("h", "k")
    store.put("h", "k", "v4")
    hist = store.history("h", "k")
    assert [(m.value, m.version) for m in hist.versions] == [("v1", 1), ("v2", 2), ("v4", 3)]
    assert store.get("h", "k", as_of={"seq": a1.seq}).value == "v1"
    assert store.get("h", "k", as_of={"seq": a2.seq}).value == "v2"
    assert store.get("h", "k", as_of={"seq": a2.seq + 1}) is None
    assert [m.value for m in store.list("h", as_of={"seq": a2.seq}).items] == ["v2"]
    hits = store.search("v1", mode="lexical", as_of={"seq": a1.seq})
    assert [h.value for h in hits] == ["v1"]
    with pytest.raises(EdgememError) as e:
        store.get("h", "k", as_of={"when": 1})
    assert e.value.code == "INVALID_ARGUMENT"


def test_put_many_is_one_transaction(store):
    acks = store.put_many([{"namespace": "b", "key": f"k{i}", "value": i} for i in range(5)])
    assert [a.version for a in acks] == [1] * 5 and [a.seq for a in acks] == [1, 2, 3, 4, 5]
    with pytest.raises(EdgememError):
        store.put_many([{"namespace": "b", "key": "x", "value": 1}, {"namespace": "b", "key": "", "value": 2}])
    assert store.get("b", "x") is None


def test_checkpoints_roundtrip(store):
    data = ("json", b'{"v":4,"id":"c1"}')
    store.put_checkpoint("t1", "c1", data, metadata={"step": 1, "source": "input"}, channel_versions={"a": "1"}, blobs=[("a", "1", ("bytes", b"\x00\x01"))])
    store.put_checkpoint("t1", "c2", ("json", b'{"v":4,"id":"c2"}'), parent_id="c1", metadata={"step": 2}, channel_versions={"a": "1"})
    store.put_writes("t1", "c2", "task", [("ch", ("bytes", b"w")), ("ch2", ("json", b"[1,2]"))])
    c = store.get_checkpoint("t1")
    assert (c.checkpoint_id, c.parent_id, c.metadata, c.blobs) == ("c2", "c1", {"step": 2}, [("a", "1", ("bytes", b"\x00\x01"))])
    assert [(w[0], w[2], w[3]) for w in c.pending_writes] == [("task", "ch", ("bytes", b"w")), ("task", "ch2", ("json", b"[1,2]"))]
    c1 = store.get_checkpoint("t1", checkpoint_id="c1")
    assert c1.data == data and c1.metadata == {"step": 1, "source": "input"}
    items, nxt = store.list_checkpoints("t1")
    assert [x.checkpoint_id for x in items] == ["c2", "c1"] and nxt is None
    items, _ = store.list_checkpoints("t1", filter={"source": "input"})
    assert [x.checkpoint_id for x in items] == ["c1"]
    items, nxt = store.list_checkpoints("t1", limit=1)
    assert [x.checkpoint_id for x in items] == ["c2"] and nxt is not None
    assert store.delete_thread("t1") == 2
    assert store.get_checkpoint("t1") is None


def test_notify_changes_stats(store):
    store.put("n", "k", "hello", embedding=[1, 0, 0])
    seq = store.notify("chan", {"hi": 1})
    page = store.changes(0)
    assert [e.kind for e in page.events] == ["put", "notify"] and page.events[1].seq == seq and not page.more
    assert store.changes(0, kinds=["notify"]).events[0].payload == {"hi": 1}
    assert store.changes(seq).events == []
    st = store.stats()
    assert st["memories"] == 1 and st["seq"] == seq


def test_export_import(store):
    store.put("n", "k", "hello", embedding=[1, 0, 0])
    store.put("n", "k", "hello again", embedding=[1, 0, 0])
    store.put_checkpoint("t", "c1", ("json", b'{"v":1}'), metadata={"step": 1})
    st = store.stats()
    assert st["memories"] == 1 and st["dims"] == 3
    chunks = list(store.export())
    assert all(c.endswith("\n") for c in chunks)
    assert chunks[-1].splitlines()[-1].startswith('{"kind":"end"')
    with open_store(dims=3) as other:
        progress = other.import_(chunks)
        assert progress["done"] is True
        assert other.get("n", "k").value == "hello again"
        assert [m.value for m in other.history("n", "k").versions] == ["hello", "hello again"]
        assert other.get_checkpoint("t").metadata == {"step": 1}
        assert other.search(vector=[1, 0, 0], k=1)[0].key == "k"


def test_ttl(store):
    store.put("t", "gone", 1, ttl_ms=1)
    store.put("t", "kept", 2, pinned=True)
    time.sleep(0.01)
    assert store.get("t", "gone") is None
    assert [m.key for m in store.list("t").items] == ["kept"]
    assert store.get("t", "kept").pinned is True


def test_sweep_and_maintain(store):
    store.put("t", "gone", 1, ttl_ms=1)
    store.put("t", "kept", 2, embedding=[0, 1, 0])
    time.sleep(0.01)
    assert store.sweep() == 1 and store.stats()["memories"] == 1
    assert store.sweep() == 0
    store.maintain()
    assert store.search(vector=[0, 1, 0], k=1)[0].key == "kept"


def test_closed_store_raises_and_context_manager(tmp_path):
    with open_store(tmp_path / "c.db") as s:
        s.put("a", "b", 1)
    with pytest.raises(EdgememError) as e:
        s.get("a", "b")
    assert e.value.code == "INVALID_ARGUMENT"
    s.close()  # twice: no-op
    with open_store(tmp_path / "c.db") as s2:
        assert s2.get("a", "b").value == 1


def test_file_store_is_one_per_path_and_persists(tmp_path):
    p = tmp_path / "p.db"
    s = open_store(p, dims=3)
    for i in range(50):
        s.put("p", f"k{i}", f"memory number {i}", embedding=[1, i / 50, 0])
    s.close()
    s = open_store(p)
    assert s.stats()["memories"] == 50 and s.stats()["dims"] == 3
    assert s.search(vector=[1, 0.5, 0], k=1)[0].key == "k25"
    s.close()


def test_calls_from_many_threads(local_store):
    store = local_store
    errors = []

    def worker(t):
        try:
            for i in range(50):
                store.put(("t", str(t)), str(i), i)
                assert store.get(("t", str(t)), str(i)).value == i
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.stats()["memories"] == 200


def test_callable_embedder_embeds_puts_and_queries():
    calls = []

    def embed(texts):
        calls.append(list(texts))
        return [[1.0, 0.0] if "cat" in t else [0.0, 1.0] for t in texts]

    with open_store(dims=2, embedder=embed) as s:
        s.put("e", "a", "a cat")
        s.put("e", "b", "a dog")
        s.put("e", "c", {"obj": 1})  # no text: not embedded
        hits = s.search("cat", k=1, mode="vector")
        assert hits[0].key == "a"
        assert calls == [["a cat"], ["a dog"], ["cat"]]
    with open_store(dims=2, embedder=lambda texts: [[1.0]] * len(texts)) as s:
        with pytest.raises(EdgememError) as e:
            s.put("e", "a", "x")
        assert e.value.code == "DIMENSION_MISMATCH"


def test_subscribe_replays_then_pushes(store):
    """The change feed: replay from `since`, then live events in seq order, each once; filters; a callback."""
    store.put(("feed",), "before", 1)
    with store.subscribe(since=0, namespaces=[("feed",)]) as sub:
        first = sub.next(timeout=10)
        assert (first.kind, first.key) == ("put", "before")
        store.put(("other",), "ignored", 1)
        store.put(("feed",), "live", 2)
        store.delete(("feed",), "live")
        got = [sub.next(timeout=10), sub.next(timeout=10)]
        assert [(e.kind, e.key) for e in got] == [("put", "live"), ("delete", "live")]
        assert first.seq < got[0].seq < got[1].seq
        assert sub.next(timeout=0.2) is None
    seen = []
    done = threading.Event()

    def on_event(e):
        seen.append(e)
        done.set()

    sub = store.subscribe(channels=["chat"], kinds=["notify"], callback=on_event)
    store.notify("chat", {"text": "hi"})
    assert done.wait(10)
    assert seen[0].payload == {"text": "hi"} and seen[0].channel == "chat"
    sub.close()


def test_local_subscription_ends_with_the_store(tmp_path):
    s = open_store(tmp_path / "f.db")
    sub = s.subscribe()
    got = []
    t = threading.Thread(target=lambda: got.extend(sub))
    t.start()
    s.put("a", "k", 1)
    time.sleep(0.2)
    s.close()
    t.join(10)
    assert not t.is_alive() and [e.key for e in got] == ["k"]


def test_a_forked_child_is_told_to_open_the_store_again(tmp_path):
    import os

    s = open_store(tmp_path / "fork.db")
    s.put("a", "k", 1)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: an error, not a hang
        import signal

        signal.alarm(10)  # were it to hang, the child dies and the parent reads nothing
        try:
            s.get("a", "k")
            os.write(w, b"no error")
        except EdgememError as e:
            os.write(w, e.code.encode())
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(r, 100) == b"INVALID_ARGUMENT"
    assert s.get("a", "k").value == 1  # the parent's store is untouched
    s.close()


def test_app_meta(local_store):
    assert local_store.app_meta("my.app") is None
    local_store.set_app_meta("my.app", '{"v": 1}')
    assert local_store.app_meta("my.app") == '{"v": 1}'
    local_store.set_app_meta("my.app", None)
    assert local_store.app_meta("my.app") is None
    with pytest.raises(EdgememError) as e:
        local_store.set_app_meta("x" * 65, "v")
    assert e.value.code == "INVALID_ARGUMENT"
