"""Faults in the middle of a file store's commit: a write the files cannot take fails with a coded error and closes
the store; every write acknowledged before it is there when the store is opened again (by either package), and the
failed one is not."""

import json
import subprocess
import sys

from edgemem import open_store
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
resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
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
    with open_store(p) as s:
        missing = [i for i in acked if s.get("f", f"k{i}") is None]
        assert missing == []
        assert s.get("f", f"k{failed[0]['failed']}") is None
        assert s.stats()["memories"] == len(acked)
    integrity(p)
    out = node("const s = await openStore({ storage: { file: argv[0] } }); console.log((await s.stats()).memories); await s.close();", str(p))
    assert int(out) == len(acked)
