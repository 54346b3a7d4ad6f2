import itertools
import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

from edgemem import connect, create_agent, mint_token, open_store

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples"))  # the examples the tests run
_agents = itertools.count()


@pytest.fixture(scope="session")
def worker(tmp_path_factory):
    """The edgemem Worker under Miniflare (bundled by wrangler, offline), for the whole session."""
    d = tmp_path_factory.mktemp("worker")
    env = {**os.environ, "CLOUDFLARE_CF_FETCH_ENABLED": "false", "WRANGLER_SEND_METRICS": "false"}
    proc = subprocess.Popen(["node", str(HERE / "worker_server.mjs"), str(d)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    # Its first line says where it listens; a start that hangs fails the session instead of blocking it.
    if not select.select([proc.stdout], [], [], 180)[0]:
        proc.kill()
        raise RuntimeError("the Worker did not start within 180 s (tests/worker_server.mjs)")
    line = proc.stdout.readline()
    if not line:
        proc.wait()
        raise RuntimeError("the Worker did not start (tests/worker_server.mjs)")
    info = json.loads(line)
    yield info
    proc.stdin.close()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


def remote_store(worker, **settings):
    """A new agent on the Worker, reached with a token scoped to it."""
    agent = f"py-{os.getpid()}-{next(_agents)}"
    create_agent(worker["url"], worker["admin"], agent, settings)
    token = mint_token(worker["url"], worker["admin"], agent, ["read", "write", "subscribe"])["token"]
    return connect(worker["url"], agent, token)


@pytest.fixture(params=["memory", "file", "remote"])
def store(request, tmp_path):
    """A store with 3-dim vectors: in memory, in a file, and an agent of the Worker through connect()."""
    if request.param == "remote":
        s = remote_store(request.getfixturevalue("worker"))
    else:
        s = open_store(":memory:" if request.param == "memory" else str(tmp_path / "s.db"), dims=3)
    yield s
    s.close()


@pytest.fixture(params=["memory", "file"])
def local_store(request, tmp_path):
    s = open_store(":memory:" if request.param == "memory" else str(tmp_path / "s.db"), dims=3)
    yield s
    s.close()
