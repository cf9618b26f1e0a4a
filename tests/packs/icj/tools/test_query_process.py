"""Cypher in a worker process: a query that would take gigabytes fails at the worker's memory limit, one that never
answers is killed at its time-out, and rows come back capped in number and bytes."""

from __future__ import annotations

import sys
import time

import pytest

from auditpacks.packs.icj.graph.snapshot import DATABASE
from auditpacks.packs.icj.tools import query_process
from auditpacks.packs.icj.tools.cypher import QueryRefused, run_query
from auditpacks.packs.icj.tools.query_process import QueryStopped, QueryWorker
from tests.support.icj_graph import snapshots


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    return snapshots(tmp_path_factory, "1986-06-27")["1986-06-27"]


def peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM")) / 1024


@pytest.mark.parametrize("query", ["UNWIND range(1, 300000000) AS x RETURN x", "RETURN size(range(1, 300000000))"])
def test_a_query_that_would_take_gigabytes_stops_at_the_memory_limit_within_the_time_out(snap, query):
    worker = QueryWorker(snap.folder / DATABASE)
    try:
        started = time.monotonic()
        answer = worker.run(query, row_cap=50, timeout_ms=5000)
        assert time.monotonic() - started < 5
        assert answer == {"error": "stopped: the query needs more memory than a tool query may use"}
        assert peak_rss_mb(worker._process.pid) < 600
        assert "rows" in worker.run("MATCH (d:Document) RETURN count(*)", row_cap=5, timeout_ms=5000)  # still serving
    finally:
        worker.close()


def test_rows_are_capped_in_bytes(snap):
    result = run_query(snap, "UNWIND range(1, 50) AS x RETURN x, repeat('y', 10000) AS s", row_cap=50)
    assert result["truncated"] is True
    assert len(result["rows"]) == query_process.RESULT_BYTES // 10_010   # each row: 10,000 y's and its JSON


def test_a_worker_that_never_answers_is_killed_at_the_time_out_and_the_next_query_gets_a_new_one(snap, monkeypatch):
    worker = QueryWorker(snap.folder / DATABASE)
    monkeypatch.setattr(worker, "command", [sys.executable, "-c", "import time; time.sleep(60)"])
    started = time.monotonic()
    with pytest.raises(QueryStopped, match="^stopped after the time-out of 200 ms$"):
        worker.run("RETURN 1", row_cap=5, timeout_ms=200, grace_s=0.3)
    assert time.monotonic() - started < 3 and worker._process is None
    monkeypatch.setattr(worker, "command", [sys.executable, "-c", "import sys; sys.exit(3)"])
    with pytest.raises(QueryStopped, match="the query process ended"):
        worker.run("RETURN 1", row_cap=5, timeout_ms=2000)
    monkeypatch.undo()
    try:
        assert worker.run("RETURN 1 AS one", row_cap=5, timeout_ms=5000)["rows"] == [[1]]
    finally:
        worker.close()


def test_the_tool_reports_a_stopped_query_in_one_line(snap):
    with pytest.raises(QueryRefused, match="^query failed: stopped: the query needs more memory"):
        run_query(snap, "UNWIND range(1, 300000000) AS x RETURN x")
