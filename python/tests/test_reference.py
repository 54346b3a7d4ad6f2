"""docs/reference/python.md is what python/tools/reference.py makes of the code now."""

import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "tools" / "reference.py"


def test_reference_page_is_current():
    r = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
