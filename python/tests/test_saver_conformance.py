"""langgraph-checkpoint-conformance, unmodified, nothing skipped: every capability (the five base ones and
delete_for_runs, copy_thread, prune) against EdgememSaver on a local file store, in memory, and over connect() to
the Worker under Miniflare (a new agent per capability suite)."""

import pytest
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES
from langgraph.checkpoint.conformance.report import ProgressCallbacks

from edgemem import open_store
from edgemem.langgraph import EdgememSaver

from conftest import remote_store


@pytest.mark.parametrize("where", ["file", "memory", "remote"])
async def test_conformance(where, tmp_path, request):
    stores = []

    @checkpointer_test(name=f"EdgememSaver-{where}")
    async def factory():
        if where == "remote":
            s = remote_store(request.getfixturevalue("worker"))
        else:
            s = open_store(str(tmp_path / f"cp{len(stores)}.db") if where == "file" else ":memory:")
        stores.append(s)
        yield EdgememSaver(s)
        s.close()

    report = await validate(factory, progress=ProgressCallbacks.verbose())
    report.print_report()
    assert report.passed_all_base()
    assert report.conformance_level() == "FULL"
    for cap in ALL_CAPABILITIES:
        r = report.results[cap.value]
        assert r.detected, f"{cap.value} not detected"
        assert r.passed is True and r.tests_failed == 0 and r.tests_skipped == 0 and r.tests_passed > 0, f"{cap.value}: {r}"
