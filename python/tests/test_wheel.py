"""The package as a user gets it: `maturin build` makes one abi3 wheel (cp310-abi3), and that wheel installs into
fresh virtual environments of the oldest supported Python (3.10) and the newest one here, and works there."""

import glob
import os
import subprocess
import sys
import zipfile
from pathlib import Path

PY = Path(__file__).resolve().parents[1]
ROOT = PY.parent

SCRIPT = """
import sys
from edgemem import open_store, EdgememError, E5Embedder
with open_store(sys.argv[1], dims=2) as s:
    s.put(("a",), "k", "a value", embedding=[1, 0])
    assert s.get(("a",), "k").value == "a value"
    assert s.search("value", k=1)[0].key == "k"
    try:
        s.put(("a",), "k", 1, if_version=9)
    except EdgememError as e:
        print(sys.version_info[:2], e.code)
"""


def interpreters() -> list[str]:
    """Python 3.10 and the newest 3.x that pyenv has here, else this one."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = {}
    for exe in glob.glob(str(root / "3.*" / "bin" / "python3")):
        v = Path(exe).parents[1].name.split(".")
        if len(v) >= 2 and v[1].isdigit() and int(v[1]) >= 10:
            found[int(v[1])] = exe
    picks = sorted({found[min(found)], found[max(found)]}) if found else []
    return picks or [sys.executable]


def test_abi3_wheel_installs_and_runs(tmp_path):
    env = {**os.environ, "CARGO_TARGET_DIR": str(ROOT / "target")}
    maturin = Path(sys.executable).parent / "maturin"
    r = subprocess.run([str(maturin), "build", "--profile", "dev", "-q", "-o", str(tmp_path / "dist")], cwd=PY, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    [wheel] = list((tmp_path / "dist").glob("*.whl"))
    assert "-cp310-abi3-" in wheel.name and wheel.name.startswith("edgemem_py-")
    names = zipfile.ZipFile(wheel).namelist()
    assert "edgemem/py.typed" in names and "edgemem/_native.pyi" in names and "edgemem/langgraph/saver.py" in names
    for i, py in enumerate(interpreters()):
        venv = tmp_path / f"venv{i}"
        subprocess.run([py, "-m", "venv", str(venv)], check=True, timeout=120)
        r = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        r = subprocess.run([str(venv / "bin" / "python"), "-c", SCRIPT, str(tmp_path / f"s{i}.db")], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip().endswith("CONFLICT")
