"""Faults in the middle of a file store's commit: a write the files cannot take fails with a coded error and closes
the store; every write acknowledged before it is there when the store is opened again (by either package), and the
failed one is not."""

import json
import signal
import subprocess
import sys

import pytest

from edgemem import EdgememError, open_store
from test_file_format import NODE_ENTRY, integrity, node  # noqa: F401  (skips with it when the npm package is absent)

# The writer runs in its own process: RLIMIT_FSIZE caps every file it writes at their size once 30 writes are in,
# so a later commit that needs a file to grow fails (EFBIG; SIGXFSZ ignored). It reports each acknowledged write,
# then the error.
WRITER = """
import json, os, resource, signal, sys
from edgemem import EdgememError, open_store
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
s = open_store(sys.argv[1], dims=4)
for i in range(30):
    s.put("f", f"k{i}", {"i": i, "pad": "x" * 500}, embedding=[1, i % 5, 0, 1])
    print(json.dumps({"acked": i}), flush=True)
cap = max(os.path.getsize(sys.argv[1]), os.path.getsize(sys.argv[1] + "-redo"))
hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
resource.setrlimit(resource.RLIMIT_FSIZE, (cap, hard))
for i in range(30, 3000):
    try:
        s.put("f", f"k{i}", {"i": i, "pad": "x" * 500}, embedding=[1, i % 5, 0, 1])
    except EdgememError as e:
        print(json.dumps({"failed": i, "code": e.code, "message": str(e)}), flush=True)
        break
    print(json.dumps({"acked": i}), flush=True)
try:
    s.get("f", "k0")
except EdgememError as e:
    print(json.dumps({"after": e.code}), flush=True)
# Opened again in this process while the failed store object lives on: that one writes nothing more.
resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
s2 = open_store(sys.argv[1])
s2.put("f", "reopened", 1)
s.close()
s2.put("f", "reopened-after-close", 2)
s2.close()
print(json.dumps({"reopened": True}), flush=True)
"""


def test_a_commit_the_files_cannot_take_fails_and_loses_no_acknowledged_write(tmp_path):
    p = tmp_path / "full.db"
    r = subprocess.run([sys.executable, "-c", WRITER, str(p)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    acked = [x["acked"] for x in lines if "acked" in x]
    failed = [x for x in lines if "failed" in x]
    assert len(failed) == 1, lines[-3:]
    assert failed[0]["code"] == "INTERNAL" and "open it again" in failed[0]["message"]
    assert [x["after"] for x in lines if "after" in x] == ["INVALID_ARGUMENT"]  # the store was closed
    assert len(acked) > 30  # some writes went in under the cap before one needed more room
    assert lines[-1] == {"reopened": True}
    with open_store(p) as s:
        missing = [i for i in acked if s.get("f", f"k{i}") is None]
        assert missing == []
        assert s.get("f", f"k{failed[0]['failed']}") is None
        assert s.get("f", "reopened").value == 1 and s.get("f", "reopened-after-close").value == 2
        assert s.stats()["memories"] == len(acked) + 2
    integrity(p)
    out = node("const s = await openStore({ storage: { file: argv[0] } }); console.log((await s.stats()).memories); await s.close();", str(p))
    assert int(out) == len(acked) + 2


def test_a_second_open_of_a_file_in_one_process_is_a_conflict(tmp_path):
    p = tmp_path / "twice.db"
    with open_store(p) as s:
        with pytest.raises(EdgememError) as e:
            open_store(tmp_path / "." / "twice.db")
        assert e.value.code == "CONFLICT"
        s.put("a", "k", 1)
    with open_store(p) as s:  # free again once closed
        assert s.get("a", "k").value == 1


# Ten large writes committed to the log, the writer killed before it checkpoints; then the database file is put back
# as it was before them (the writes in place lost, as a power loss can), so opening must replay the log.
KILLED_WRITER = """
import sys, time
from edgemem import open_store
s = open_store(sys.argv[1])
for i in range(10):
    s.put("r", f"big{i}", "y" * 20000)
print("done", flush=True)
time.sleep(600)
"""

# Opens the store with every file capped at the database's size: the replay cannot grow it.
CAPPED_OPEN = """
import json, os, resource, signal, sys
from edgemem import EdgememError, open_store
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
cap = os.path.getsize(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (cap, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    open_store(sys.argv[1]).close()
    print(json.dumps({"opened": True}))
except EdgememError as e:
    print(json.dumps({"code": e.code, "message": str(e)}))
"""


def test_a_replay_that_fails_leaves_the_log_for_the_next_open(tmp_path):
    p = tmp_path / "replay.db"
    with open_store(p) as s:
        s.put("r", "first", 1)
    before = p.read_bytes()
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(p)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "done"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    p.write_bytes(before)
    r = subprocess.run([sys.executable, "-c", CAPPED_OPEN, str(p)], capture_output=True, text=True, timeout=60)
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got.get("code") == "INTERNAL" and "redo log" in got["message"], got
    with open_store(p) as s:  # the log was left as it was: this open replays it
        assert s.stats()["memories"] == 11
        assert s.get("r", "big9").value == "y" * 20000
    integrity(p)
