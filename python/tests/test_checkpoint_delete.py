"""Deleting chosen checkpoints in one transaction: `Store.delete_checkpoints` / `prune_threads`, and
EdgememSaver's `delete_for_runs` / `prune` on them (one write, kept checkpoints untouched); on a store without
them (connect()) the saver still answers the same."""

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from edgemem import EdgememError, open_store
from edgemem.langgraph import EdgememSaver

PAYLOAD = ("json", b'{"v":1}')


def put(s, thread, cid, run="r", ns=""):
    s.put_checkpoint(thread, cid, PAYLOAD, checkpoint_ns=ns, metadata={"run_id": run})


def ids(s, thread, ns=None):
    return [c.checkpoint_id for c in s.list_checkpoints(thread, checkpoint_ns=ns)[0]]


def test_delete_checkpoints_by_id_and_by_filter(local_store):
    s = local_store
    for cid in ("a", "b", "c"):
        put(s, "t1", cid, run="r1" if cid != "c" else "r2")
    put(s, "t1", "k", run="r1", ns="child")
    put(s, "t2", "x", run="r1")
    s.put_writes("t1", "b", "task", [("ch", ("json", b'"w"'))])
    seq = s.seq

    assert s.delete_checkpoints("t1", checkpoint_ids=["b", "missing"]) == 1
    assert ids(s, "t1", "") == ["c", "a"]
    events = s.changes(seq).events
    assert [(e.kind, e.channel, e.key, e.payload) for e in events] == [("checkpoint", "t1", "b", {"deleted": True})]

    # A filter, across threads and namespaces; and the same with `$in`.
    assert s.delete_checkpoints(filter={"run_id": "r1"}) == 3
    assert ids(s, "t1") == ["c"] and ids(s, "t2") == []
    put(s, "t3", "y", run="r3")
    put(s, "t3", "z", run="r4")
    assert s.delete_checkpoints(filter={"run_id": {"$in": ["r3", "r4"]}}) == 2

    with pytest.raises(EdgememError) as e:
        s.delete_checkpoints()
    assert e.value.code == "INVALID_ARGUMENT"


def test_prune_threads_keeps_the_newest_per_namespace(local_store):
    s = local_store
    for cid in ("a1", "a2", "a3"):
        put(s, "t", cid)
    for cid in ("k1", "k2"):
        put(s, "t", cid, ns="child")
    put(s, "other", "o1")
    put(s, "other", "o2")
    assert s.prune_threads(["t"]) == 3
    assert ids(s, "t", "") == ["a3"] and ids(s, "t", "child") == ["k2"]
    assert ids(s, "other") == ["o2", "o1"]
    assert s.prune_threads(["other"], keep_latest=2) == 0
    with pytest.raises(EdgememError) as e:
        s.prune_threads(["t"], keep_latest=0)
    assert e.value.code == "INVALID_ARGUMENT"


def saver_thread(saver, thread, runs, ns=""):
    """Checkpoints on `thread`, one per run id, each the child of the one before; returns their configs."""
    cfg = {"configurable": {"thread_id": thread, "checkpoint_ns": ns}}
    out = []
    for run in runs:
        cfg = saver.put(cfg, empty_checkpoint(), {"run_id": run, "source": "loop"}, {})
        out.append(cfg)
    return out


class WithoutAtomicDeletes:
    """A store lacking `delete_checkpoints` / `prune_threads` (as connect()'s does): the saver's other path."""

    def __init__(self, store):
        self._s = store

    def __getattr__(self, name):
        if name in ("delete_checkpoints", "prune_threads"):
            raise AttributeError(name)
        return getattr(self._s, name)


@pytest.mark.parametrize("atomic", [True, False])
def test_saver_delete_for_runs_and_prune(atomic):
    with open_store() as s:
        saver = EdgememSaver(s if atomic else WithoutAtomicDeletes(s))
        cfgs = saver_thread(saver, "t", ["r1", "r2", "r1", "r3"])
        saver_thread(saver, "t", ["r1", "r2"], ns="child:1")
        saver_thread(saver, "u", ["r1"])
        saver.put_writes(cfgs[3], [("ch", "v")], "task")
        kept = s.get_checkpoint("t", checkpoint_id=cfgs[1]["configurable"]["checkpoint_id"])
        seq = s.seq

        saver.delete_for_runs(["r1"])
        left = [(t.metadata["run_id"], t.config["configurable"]["checkpoint_ns"]) for t in saver.list({"configurable": {"thread_id": "t"}})]
        assert sorted(left) == [("r2", ""), ("r2", "child:1"), ("r3", "")]
        assert list(saver.list({"configurable": {"thread_id": "u"}})) == []
        if atomic:
            # One write: an event per deleted checkpoint, the kept ones never stored again.
            events = s.changes(seq).events
            assert len(events) == 4 and all(e.payload["deleted"] for e in events)
            again = s.get_checkpoint("t", checkpoint_id=kept.checkpoint_id)
            assert (again.seq, again.created_at) == (kept.seq, kept.created_at)

        saver.prune(["t", "nobody"], strategy="keep_latest")
        latest = {t.config["configurable"]["checkpoint_ns"]: t for t in saver.list({"configurable": {"thread_id": "t"}})}
        assert {ns: t.metadata["run_id"] for ns, t in latest.items()} == {"": "r3", "child:1": "r2"}
        assert [w[1:] for w in latest[""].pending_writes] == [("ch", "v")]

        saver.prune(["t"], strategy="delete")
        assert list(saver.list({"configurable": {"thread_id": "t"}})) == []
