"""Suite `python` of `npm run bench` (bench/lib/jobs.mjs runs it through scripts/bench-python): the Python
package's costs, printed as one JSON document (milliseconds).

- binding: PUT / GET / CHECKPOINT / hybrid SEARCH called from Python vs the same engine call (same arguments) run
  natively in Rust on the same store (`NativeStore._bench_native`: no Python, no thread hand-off), 10k memories of
  LoCoMo vectors; GET over varied keys and SEARCH over varied questions from Python alone, beside; the floor of a
  call from Python (a trivial call's round trip, a `Memory` made in Python) and GET against it; the engine's GET
  made once through the hand-off (no Python result) and GET against that.
- langgraph_step: put + put_writes + get_tuple of a 20-channel checkpoint, EdgememSaver on a file store vs
  langgraph-checkpoint-sqlite's SqliteSaver at equal durability (both flushing each commit: edgemem sync_full,
  SQLite synchronous=FULL; and neither: edgemem's default, SQLite synchronous=NORMAL) and InMemorySaver.
- store_search: EdgememStore vs InMemoryStore, vector search over 10k items (queries: LoCoMo questions), p50 and
  recall@10 against the exact (brute-force cosine) answer.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import struct
import sys
import tempfile
import time
from pathlib import Path

DIMS = 384


def pct(xs: list[float]) -> dict[str, float]:
    s = sorted(xs)
    at = lambda q: s[min(len(s) - 1, int(q * len(s)))]  # noqa: E731
    return {"p50": round(at(0.5), 4), "p95": round(at(0.95), 4), "p99": round(at(0.99), 4), "n": len(s)}


def timed(fn, n: int, warm: int = 20) -> list[float]:
    for i in range(warm):
        fn(-1 - i)
    out = []
    for i in range(n):
        t = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t) * 1000)
    return out


def vectors(data: Path, name: str) -> list[list[float]]:
    raw = (data / f"{name}.e5.f32").read_bytes()
    n = len(raw) // (DIMS * 4)
    return [list(struct.unpack_from(f"<{DIMS}f", raw, i * DIMS * 4)) for i in range(n)]


def texts(data: Path, name: str, field: str) -> list[str]:
    return [json.loads(line)[field] for line in (data / f"{name}.jsonl").read_text().splitlines()]


def corpus(data: Path, n: int, rng: random.Random) -> tuple[list[str], list[list[float]]]:
    """`n` memories: LoCoMo's turns, then copies of them with a little noise (clustered, as agents' memories are)."""
    vs, ts = vectors(data, "turns"), texts(data, "turns", "embed_text")
    out_t, out_v = [], []
    for i in range(n):
        v, t = vs[i % len(vs)], ts[i % len(ts)]
        if i >= len(vs):
            v = [x + rng.gauss(0, 0.01) for x in v]
            norm = sum(x * x for x in v) ** 0.5
            v = [x / norm for x in v]
        out_t.append(t)
        out_v.append(v)
    return out_t, out_v


def binding(data: Path, n: int, iters: int, rng: random.Random) -> dict:
    from edgemem import open_store

    ts, vs = corpus(data, n, rng)
    qs, qv = texts(data, "questions", "question"), vectors(data, "questions")
    out = {}
    with tempfile.TemporaryDirectory() as d, open_store(f"{d}/b.db", dims=DIMS) as s:
        for i in range(0, n, 500):
            s.put_many([{"namespace": ("conv", str(j % 10)), "key": f"m{j}", "value": ts[j], "embedding": vs[j]} for j in range(i, min(n, i + 500))])
        s.maintain()
        nat = s._n
        keys = [(("conv", str(j % 10)), f"m{j}") for j in range(n)]
        # The same call both sides (one key, one query), so the ratio is the binding's cost alone. A GET from
        # Python is the engine's row as a `Memory` (`get_memory`); natively that is the same call (the engine's
        # JSON-text GET, `get_json_native`, skips building the Memory and is beside it for reference).
        py = timed(lambda i: s.get(("conv", "3"), "m13"), iters)
        native = nat._bench_native("get_memory", json.dumps([["conv", "3"], "m13"]), iters)
        out["get_json_native"] = (None, nat._bench_native("get", json.dumps([["conv", "3"], "m13"]), iters))
        out["get_varied_keys"] = (timed(lambda i: s.get(*keys[(i * 7919) % n]), iters), None)
        out["get"] = (py, native)
        # The floor of any call from Python: a trivial one's round trip to the store's thread (`seq`), and a
        # Memory made in Python from its 13 fields (what any GET from Python hands back).
        out["call_floor"] = (timed(lambda i: nat.seq(), iters), None)
        # The same engine GET made once through the hand-off, no Python object made of it: what one call costs the
        # engine's thread (cold from its wait), against which the binding adds its arguments and the `Memory`.
        get_args = json.dumps([["conv", "3"], "m13"])
        out["get_through_handoff"] = (timed(lambda i: nat._bench_native("get_memory", get_args, 1), iters), None)
        m = s.get(("conv", "3"), "m13")
        from edgemem.types import Memory

        fields = tuple(getattr(m, f) for f in Memory.__dataclass_fields__)
        out["memory_init"] = (timed(lambda i: Memory(*fields), iters), None)
        py = timed(lambda i: s.put(("bench", "py"), f"p{i}", ts[i % n], embedding=vs[i % n]), iters)
        native = nat._bench_native("put", json.dumps({"namespace": ["bench", "native"], "key": "n", "value": ts[1], "embedding": vs[1]}), iters)
        out["put"] = (py, native)
        blob = ("json", json.dumps({"v": 4, "channel_values": {f"c{k}": "x" * 200 for k in range(20)}}).encode())
        py = timed(lambda i: s.put_checkpoint("bench-py", f"c{i + 100:08}", blob, metadata={"step": i}), iters)
        cp = {"threadId": "bench-native", "checkpointId": "c", "data": {"json": json.loads(blob[1])}, "metadata": {"step": 1}}
        native = nat._bench_native("checkpoint", json.dumps(cp), iters)
        out["checkpoint"] = (py, native)
        s.maintain()  # the puts above indexed first: both sides search the same index
        py = timed(lambda i: s.search(qs[7], vector=qv[7], k=10), iters)
        native = nat._bench_native("search", json.dumps({"text": qs[7], "vector": qv[7], "k": 10}), iters)
        out["search"] = (py, native)
        out["search_varied_queries"] = (timed(lambda i: s.search(qs[i % len(qs)], vector=qv[i % len(qv)], k=10), iters), None)
    res = {}
    for op, (py, native) in out.items():
        if native is None:
            res[op] = {"python": pct(py)}
            continue
        if py is None:
            res[op] = {"native": pct([x / 1000 for x in native])}
            continue
        native_ms = [x / 1000 for x in native]
        a, b = pct(py), pct(native_ms)
        res[op] = {"python": a, "native": b, "ratio_p50": round(a["p50"] / b["p50"], 3) if b["p50"] else None}
    # A GET against its floor: the engine's GET plus a trivial call's round trip from Python.
    floor = res["get"]["native"]["p50"] + res["call_floor"]["python"]["p50"]
    res["get"]["floor_p50"] = round(floor, 4)
    res["get"]["ratio_to_floor_p50"] = round(res["get"]["python"]["p50"] / floor, 3)
    res["get"]["ratio_to_handoff_p50"] = round(res["get"]["python"]["p50"] / res["get_through_handoff"]["python"]["p50"], 3)
    res["memories"] = n
    return res


def langgraph_step(steps: int) -> dict:
    from langgraph.checkpoint.base import empty_checkpoint
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.checkpoint.sqlite import SqliteSaver

    from edgemem import open_store
    from edgemem.langgraph import EdgememSaver

    def run(saver) -> list[float]:
        cfg = {"configurable": {"thread_id": "bench", "checkpoint_ns": ""}}
        cp = empty_checkpoint()
        versions: dict[str, str] = {}
        for k in range(20):
            versions[f"channel{k}"] = saver.get_next_version(None, None)
        cp["channel_versions"] = dict(versions)
        cp["channel_values"] = {f"channel{k}": {"messages": ["m" * 100] * 3, "k": k} for k in range(20)}
        cfg = saver.put(cfg, cp, {"source": "input", "step": -1}, dict(versions))

        def step(i: int) -> None:
            nonlocal cfg, cp
            nxt = empty_checkpoint()
            changed = {f"channel{i % 20}": None, f"channel{(i + 7) % 20}": None}
            for ch in changed:
                versions[ch] = saver.get_next_version(versions[ch], None)
            nxt["channel_versions"] = dict(versions)
            nxt["channel_values"] = {f"channel{k}": {"messages": ["m" * 100] * 3, "k": k, "i": i} for k in range(20)}
            new_cfg = saver.put(cfg, nxt, {"source": "loop", "step": i}, {ch: versions[ch] for ch in changed})
            saver.put_writes(new_cfg, [("channel1", {"w": i}), ("channel2", "x" * 50)], f"task-{i}")
            assert saver.get_tuple(new_cfg) is not None
            cfg = new_cfg

        return timed(step, steps, warm=10)

    out = {}
    with tempfile.TemporaryDirectory() as d:
        with open_store(f"{d}/e.db") as s:
            out["edgemem"] = pct(run(EdgememSaver(s)))
        with open_store(f"{d}/ef.db", sync_full=True) as s:
            out["edgemem_sync_full"] = pct(run(EdgememSaver(s)))
        with open_store(":memory:") as s:
            out["edgemem_memory"] = pct(run(EdgememSaver(s)))
        for name, sync in (("sqlite", "NORMAL"), ("sqlite_full", "FULL")):
            conn = sqlite3.connect(f"{d}/{name}.sqlite", check_same_thread=False)
            saver = SqliteSaver(conn)
            saver.setup()
            conn.execute(f"PRAGMA synchronous={sync}")
            out[name] = pct(run(saver))
            conn.close()
        out["in_memory_saver"] = pct(run(InMemorySaver()))
    r = lambda a, b: round(out[a]["p50"] / out[b]["p50"], 3)  # noqa: E731
    r99 = lambda a, b: round(out[a]["p99"] / out[b]["p99"], 3)  # noqa: E731
    out["ratios"] = {
        "edgemem_vs_sqlite_p50": r("edgemem", "sqlite"),
        "edgemem_vs_sqlite_p99": r99("edgemem", "sqlite"),
        "edgemem_sync_full_vs_sqlite_full_p50": r("edgemem_sync_full", "sqlite_full"),
        "edgemem_sync_full_vs_sqlite_full_p99": r99("edgemem_sync_full", "sqlite_full"),
    }
    out["channels"] = 20
    out["steps"] = steps
    return out


def store_search(data: Path, n: int, queries: int, rng: random.Random) -> dict:
    from langgraph.store.memory import InMemoryStore

    from edgemem import open_store
    from edgemem.langgraph import EdgememStore

    ts, vs = corpus(data, n, rng)
    qs, qv = texts(data, "questions", "question"), vectors(data, "questions")
    table = {t: v for t, v in zip(ts, vs)}
    table.update(zip(qs, qv))

    from langchain_core.embeddings import Embeddings

    class Lookup(Embeddings):  # the precomputed e5 vectors: the stores' own cost is measured, not a model's
        def embed_documents(self, texts):
            return [table[t] for t in texts]

        def embed_query(self, text):
            return table[text]

    # Unique texts per item (the lookup is by text): the copies get a suffix, embedded as the original.
    items = []
    for i in range(n):
        t = ts[i] if i < 3435 else f"{ts[i]} #{i}"
        table[t] = vs[i]
        items.append((("mem", str(i % 10)), f"k{i}", {"text": t}))
    idx = {"dims": DIMS, "embed": Lookup(), "fields": ["text"]}
    mem = InMemoryStore(index=idx)
    out = {}
    with tempfile.TemporaryDirectory() as d, open_store(f"{d}/s.db", dims=DIMS) as s:
        ours = EdgememStore(s, index=idx, search_mode="vector")
        from langgraph.store.base import PutOp

        for i in range(0, n, 500):
            ops = [PutOp(ns, k, v) for ns, k, v in items[i : i + 500]]
            ours.batch(ops)
            mem.batch(ops)
        s.maintain()
        picks = [rng.randrange(len(qs)) for _ in range(queries)]
        got_ours, got_mem = {}, {}

        def q_ours(i):
            j = picks[i % queries]
            got_ours[j] = [(h.namespace, h.key) for h in ours.search(("mem",), query=qs[j], limit=10)]

        def q_mem(i):
            j = picks[i % queries]
            got_mem[j] = [(h.namespace, h.key) for h in mem.search(("mem",), query=qs[j], limit=10)]

        out["edgemem"] = pct(timed(q_ours, queries, warm=5))
        out["in_memory"] = pct(timed(q_mem, queries, warm=2))
    recall = [len(set(got_ours[j]) & set(got_mem[j])) / 10 for j in got_mem]
    out["recall_at_10"] = round(sum(recall) / len(recall), 4)
    out["speedup_p50"] = round(out["in_memory"]["p50"] / out["edgemem"]["p50"], 2)
    out["items"] = n
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--memories", type=int, default=10000)
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--queries", type=int, default=200)
    a = ap.parse_args()
    rng = random.Random(42)
    data = Path(a.data)
    t0 = time.time()
    doc = {
        "binding": binding(data, a.memories, a.iters, rng),
        "langgraph_step": langgraph_step(a.steps),
        "store_search": store_search(data, a.items, a.queries, rng),
        "python": sys.version.split()[0],
    }
    doc["seconds"] = round(time.time() - t0, 1)
    print(json.dumps(doc))


if __name__ == "__main__":
    main()
