import pytest

from edgemem import open_store


@pytest.fixture(params=["memory", "file"])
def store(request, tmp_path):
    """A store with 3-dim vectors, in memory and in a file."""
    path = ":memory:" if request.param == "memory" else str(tmp_path / "s.db")
    s = open_store(path, dims=3)
    yield s
    s.close()
