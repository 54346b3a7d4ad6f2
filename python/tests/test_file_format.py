"""One file format: a store file written by the Python package opens with the npm package (`openStore`) and its
command line (`edgemem stats | search | export`), and the reverse — also after the writer was killed mid-write."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from edgemem import open_store

REPO = Path(__file__).resolve().parents[2]
NODE_ENTRY = REPO / "js" / "dist" / "entries" / "node.js"
CLI = REPO / "js" / "dist" / "bin" / "edgemem.js"

pytestmark = pytest.mark.skipif(not NODE_ENTRY.exists(), reason="never: scripts/test-python builds js/dist first")


def node(script: str, *args: str, timeout: float = 60) -> str:
    """Runs an ES module with `openStore` imported from the built npm package; returns its stdout."""
    src = f"import {{ openStore }} from {json.dumps(str(NODE_ENTRY))};\nconst argv = process.argv.slice(1);\n{script}"
    r = subprocess.run(["node", "--input-type=module", "-e", src, "--", *args], capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr
    return r.stdout


def cli(*args: str) -> str:
    r = subprocess.run(["node", str(CLI), *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def integrity(path: Path) -> None:
    """SQLite's own check of the database file (once the engine has closed it)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()


def test_python_file_opens_in_node_and_the_cli(tmp_path):
    p = tmp_path / "py.db"
    with open_store(p, dims=3) as s:
        s.put(("user", "42"), "color", "the favourite colour is blue", embedding=[1, 0, 0], metadata={"src": "py"})
        s.put(("user", "42"), "color", "the favourite colour is green", embedding=[0.9, 0.1, 0], metadata={"src": "py"})
        s.put(("user", "42"), "pet", {"kind": "cat", "name": "Tom"}, text="a cat named Tom", embedding=[0, 1, 0])
        s.put_checkpoint("t1", "c1", ("json", b'{"v":4}'), metadata={"step": 1}, blobs=[("a", "1", ("bytes", b"\x01\x02"))], channel_versions={"a": "1"})
    out = node(
        """
        const s = await openStore({ storage: { file: argv[0] } });
        const m = await s.get(['user', '42'], 'color');
        const hist = await s.history(['user', '42'], 'color');
        const hits = await s.search({ vector: [0, 1, 0], k: 1 });
        const cp = await s.getCheckpoint('t1');
        console.log(JSON.stringify({ value: m.value, meta: m.metadata, version: m.version, versions: hist.length,
          hit: hits[0].key, cp: cp.checkpointId, cpMeta: cp.metadata }));
        await s.put({ namespace: ['user', '42'], key: 'from-node', value: 'written by node', embedding: [0, 0, 1] });
        await s.close();
        """,
        str(p),
    )
    got = json.loads(out)
    assert got == {"value": "the favourite colour is green", "meta": {"src": "py"}, "version": 2, "versions": 2, "hit": "pet", "cp": "c1", "cpMeta": {"step": 1}}
    stats = json.loads(cli("stats", "--store", str(p), "--json"))
    assert stats["memories"] == 3 and stats["dims"] == 3 and stats["checkpoints"] == 1
    hits = cli("search", "cat named", "--store", str(p), "--json")
    assert json.loads(hits)[0]["key"] == "pet"
    export = cli("export", "--store", str(p)).strip().splitlines()
    assert json.loads(export[0])["format"].startswith("edgemem-export/")
    assert sum(1 for line in export if json.loads(line)["kind"] == "version") == 4
    # And back in Python: node's write is there.
    with open_store(p) as s:
        assert s.get(("user", "42"), "from-node").value == "written by node"
        assert s.search(vector=[0, 0, 1], k=1)[0].key == "from-node"
    integrity(p)


def test_node_file_opens_in_python(tmp_path):
    p = tmp_path / "node.db"
    node(
        """
        const s = await openStore({ storage: { file: argv[0] }, dims: 2 });
        for (let i = 0; i < 300; i++)
          await s.put({ namespace: ['n', String(i % 3)], key: 'k' + i, value: { i }, text: 'memory ' + i, embedding: [1, i / 300] });
        await s.delete(['n', '0'], 'k0');
        await s.close();
        """,
        str(p),
    )
    with open_store(p) as s:
        st = s.stats()
        assert st["memories"] == 299 and st["dims"] == 2
        assert s.get(("n", "1"), "k1").value == {"i": 1}
        assert s.get(("n", "0"), "k0") is None
        assert s.get(("n", "0"), "k0", as_of={"seq": 1}).value == {"i": 0}
        assert s.search("memory 150", mode="lexical", k=1)[0].key == "k150"
        s.put(("n", "py"), "after", "python wrote this")
    integrity(p)
    out = node("const s = await openStore({ storage: { file: argv[0] } }); console.log(JSON.stringify((await s.get(['n','py'],'after')).value)); await s.close();", str(p))
    assert json.loads(out) == "python wrote this"


def _kill_when(proc: subprocess.Popen, acks: int) -> list[int]:
    """Reads acked indexes from the writer's stdout; SIGKILLs it once `acks` came; returns them."""
    seen: list[int] = []
    assert proc.stdout is not None
    deadline = time.monotonic() + 120
    while len(seen) < acks and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(int(line))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(seen) >= acks, f"the writer acked only {len(seen)} writes"
    return seen


PY_WRITER = """
import sys
from edgemem import open_store
s = open_store(sys.argv[1], dims=4)
i = 0
while True:
    s.put(("crash", str(i % 5)), f"k{i}", {"i": i, "pad": "x" * 300}, text=f"crash test memory {i}", embedding=[1, i % 7, 0, 1])
    if i % 10 == 0:
        s.put_checkpoint("thread", f"c{i:08}", ("json", b'{"i": %d}' % i), metadata={"i": i})
    print(i, flush=True)
    i += 1
"""

NODE_WRITER = """
const s = await openStore({ storage: { file: argv[0] }, dims: 4 });
for (let i = 0; ; i++) {
  await s.put({ namespace: ['crash', String(i % 5)], key: 'k' + i, value: { i, pad: 'x'.repeat(300) }, text: 'crash test memory ' + i, embedding: [1, i % 7, 0, 1] });
  process.stdout.write(i + '\\n');
}
"""


def test_python_writer_killed_mid_write_opens_in_node(tmp_path):
    p = tmp_path / "crash-py.db"
    proc = subprocess.Popen([sys.executable, "-c", PY_WRITER, str(p)], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    acked = _kill_when(proc, 400)
    out = node(
        """
        const s = await openStore({ storage: { file: argv[0] } });
        const st = await s.stats();
        const missing = [];
        for (const i of JSON.parse(argv[1])) if (!(await s.get(['crash', String(i % 5)], 'k' + i))) missing.push(i);
        const hits = await s.search({ text: 'crash test memory 7', mode: 'lexical', k: 1 });
        console.log(JSON.stringify({ memories: st.memories, missing, hit: hits[0].key }));
        await s.close();
        """,
        str(p),
        json.dumps(acked),
    )
    got = json.loads(out)
    assert got["missing"] == [] and got["memories"] >= len(acked) and got["hit"] == "k7"
    integrity(p)
    with open_store(p) as s:
        assert s.stats()["memories"] == got["memories"]


def test_node_writer_killed_mid_write_opens_in_python(tmp_path):
    p = tmp_path / "crash-node.db"
    src = f"import {{ openStore }} from {json.dumps(str(NODE_ENTRY))};\nconst argv = process.argv.slice(1);\n{NODE_WRITER}"
    proc = subprocess.Popen(["node", "--input-type=module", "-e", src, "--", str(p)], stdout=subprocess.PIPE, text=True)
    acked = _kill_when(proc, 400)
    with open_store(p) as s:
        n = s.stats()["memories"]
        assert n >= len(acked)
        missing = [i for i in acked if s.get(("crash", str(i % 5)), f"k{i}") is None]
        assert missing == []
        assert s.search("crash test memory 9", mode="lexical", k=1)[0].key == "k9"
        s.put(("after",), "py", 1)
    integrity(p)
    out = node("const s = await openStore({ storage: { file: argv[0] } }); const st = await s.stats(); console.log(st.memories); await s.close();", str(p))
    assert int(out) == n + 1


def test_node_redo_log_is_replayed_by_python(tmp_path):
    """The npm package commits through its redo log (flushed) and then writes in place (not flushed): after a
    power loss the log alone holds the last commits. Simulated here: the database file as it was before them,
    the log as the killed writer left it. Python replays the log."""
    p = tmp_path / "redo.db"
    node(
        """
        const s = await openStore({ storage: { file: argv[0] }, dims: 2 });
        for (let i = 0; i < 50; i++) await s.put({ namespace: ['r'], key: 'k' + i, value: i, embedding: [1, i] });
        await s.close();
        """,
        str(p),
    )
    before = p.read_bytes()
    src = f"import {{ openStore }} from {json.dumps(str(NODE_ENTRY))};\nconst argv = process.argv.slice(1);\n" + """
        const s = await openStore({ storage: { file: argv[0] } });
        for (let i = 50; i < 150; i++) await s.put({ namespace: ['r'], key: 'k' + i, value: i, embedding: [1, i] });
        process.stdout.write('done\\n');
        await new Promise(() => {});  // stay open until killed: no checkpoint, no close
        """
    proc = subprocess.Popen(["node", "--input-type=module", "-e", src, "--", str(p)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "done"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    p.write_bytes(before)  # the in-place writes lost
    with open_store(p) as s:
        assert s.stats()["memories"] == 150
        assert [s.get("r", f"k{i}").value for i in (0, 49, 50, 149)] == [0, 49, 50, 149]
        assert s.get("r", "k149", include_embedding=True).embedding == [1, 149]
    # Replayed into the database file: it holds every commit without the log.
    alone = tmp_path / "alone.db"
    shutil.copy(p, alone)
    with open_store(alone) as s:
        assert s.stats()["memories"] == 150
    integrity(p)
    out = node("const s = await openStore({ storage: { file: argv[0] } }); console.log((await s.stats()).memories); await s.close();", str(p))
    assert int(out) == 150


PY_BATCH_WRITER = """
import sys
from edgemem import open_store
s = open_store(sys.argv[1], dims=4)
b = 0
while True:
    s.put_many([{"namespace": ("batch", str(b)), "key": f"k{j}", "value": {"b": b, "pad": "y" * 2000}, "embedding": [1, b % 5, j, 1]} for j in range(50)])
    print(b, flush=True)
    b += 1
"""


def test_python_batches_killed_mid_write_stay_all_or_nothing(tmp_path):
    """Transactions of 50 memories (~100 KB, many journalled pages each), the writer SIGKILLed at a random point:
    every acknowledged batch is whole, and the one in flight is whole or absent — in Python and in Node."""
    p = tmp_path / "batches.db"
    proc = subprocess.Popen([sys.executable, "-c", PY_BATCH_WRITER, str(p)], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    acked = _kill_when(proc, 40 + int(time.time() * 1000) % 20)
    with open_store(p) as s:
        counts = {}
        for m in s.iter(("batch",), limit=1000):
            counts[m.namespace[1]] = counts.get(m.namespace[1], 0) + 1
    assert all(counts.get(str(b)) == 50 for b in acked)
    assert set(counts.values()) == {50}
    integrity(p)
    out = node("const s = await openStore({ storage: { file: argv[0] } }); console.log((await s.stats()).memories); await s.close();", str(p))
    assert int(out) == sum(counts.values())


PY_LOG_WRITER = """
import sys, time
from edgemem import open_store
s = open_store(sys.argv[1], dims=2)
for i in range(50, 60):
    s.put("r", f"k{i}", i, embedding=[1, i])
print("done", flush=True)
time.sleep(600)  # stay open until killed: no close
"""


def test_python_redo_log_is_replayed_by_python_and_node(tmp_path):
    """Python commits through the redo log too, then writes in place: the log alone holds the last commits after
    a power loss (simulated: the database file as it was before them, the log as the killed writer left it).
    Both packages replay it."""
    p = tmp_path / "pyredo.db"
    with open_store(p, dims=2) as s:
        for i in range(50):
            s.put("r", f"k{i}", i, embedding=[1, i])
    before = p.read_bytes()
    proc = subprocess.Popen([sys.executable, "-c", PY_LOG_WRITER, str(p)], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "done"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    p.write_bytes(before)  # the in-place writes lost
    node_copy = tmp_path / "node.db"
    shutil.copy(p, node_copy)
    shutil.copy(f"{p}-redo", f"{node_copy}-redo")
    with open_store(p) as s:
        assert s.stats()["memories"] == 60
        assert s.get("r", "k59", include_embedding=True).embedding == [1, 59]
    integrity(p)
    out = node("const s = await openStore({ storage: { file: argv[0] } }); console.log((await s.stats()).memories); await s.close();", str(node_copy))
    assert int(out) == 60
    integrity(node_copy)


def test_a_journal_an_earlier_version_emptied_is_no_hot_journal(tmp_path):
    """Earlier versions of the Python package ended a transaction as SQLite's PERSIST journal mode does (the
    journal's header zeroed, its blocks kept): such a journal, left by a crash, is no hot journal in either
    package, and the store opens with every commit."""
    p = tmp_path / "j.db"
    with open_store(p) as s:
        for i in range(20):
            s.put(("j",), f"k{i}", {"i": i, "pad": "x" * 3000})
    for copy in ("py.db", "node.db"):
        shutil.copy(p, tmp_path / copy)
        Path(f"{tmp_path / copy}-journal").write_bytes(bytes(28) + b"\xaa" * (8192 * 3 - 28))
    with open_store(tmp_path / "py.db") as c:
        assert c.stats()["memories"] == 20 and c.get(("j",), "k19").value["i"] == 19
        c.put(("j",), "after", 1)
    with open_store(tmp_path / "py.db") as c:
        assert c.stats()["memories"] == 21
    integrity(tmp_path / "py.db")
    out = node(
        "const s = await openStore({ storage: { file: argv[0] } }); console.log((await s.stats()).memories); await s.close();",
        str(tmp_path / "node.db"),
    )
    assert int(out) == 20
    integrity(tmp_path / "node.db")
