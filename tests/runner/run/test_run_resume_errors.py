"""Resume runs ERROR results again (they are not finished), unless ``--keep-errors`` keeps them."""

from __future__ import annotations

from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import journal_entries, results, run_file, run_here
from tests.support.tiny_pack import write_pack

FAST = ("--retry-backoff", "0.01", "--timeout", "5", "--max-retries", "0")


def _fail_then_heal(tmp_path, server: FakeOpenAI, n: int) -> tuple:
    """A first run against ``server`` as configured; then the server answers every call."""
    pack = write_pack(tmp_path / "tiny.json", n)
    assert run_here(pack, tmp_path / "out", server.base_url, *FAST) in (0, 3)  # 3: some scenarios errored
    first = results(tmp_path / "out")
    server.fault_rate = 0.0
    server.reset_counts()
    return pack, first


def test_resume_runs_errors_again_and_the_journal_keeps_the_new_results(tmp_path):
    with FakeOpenAI(fault_rate=1.0, faults=("500",)) as server:
        pack, first = _fail_then_heal(tmp_path, server, 4)
        assert {r["severity"] for r in first} == {"ERROR"}
        assert run_here(pack, tmp_path / "out", server.base_url, *FAST) == 0
        assert server.chat_requests == 4  # every ERROR was asked again
    got = results(tmp_path / "out")
    assert len(got) == 4 and all(r["severity"] != "ERROR" for r in got)
    assert run_file(tmp_path / "out")["summary"]["errors"] == 0
    latest = {e["key"]: e["result"]["severity"] for e in journal_entries(tmp_path / "out")}
    assert len(latest) == 4 and "ERROR" not in latest.values()


def test_keep_errors_resumes_without_asking_again(tmp_path):
    with FakeOpenAI(fault_rate=1.0, faults=("500",)) as server:
        pack, first = _fail_then_heal(tmp_path, server, 4)
        assert run_here(pack, tmp_path / "out", server.base_url, "--keep-errors", *FAST) == 3  # still incomplete
        assert server.chat_requests == 0
    assert results(tmp_path / "out") == first
    assert run_file(tmp_path / "out")["summary"]["errors"] == 4


def test_resume_asks_again_only_for_the_errors(tmp_path):
    with FakeOpenAI(fault_rate=0.5, faults=("500",), seed=3) as server:
        pack, first = _fail_then_heal(tmp_path, server, 6)
        errors = sum(r["severity"] == "ERROR" for r in first)
        assert 0 < errors < 6
        assert run_here(pack, tmp_path / "out", server.base_url, *FAST) == 0
        assert server.chat_requests == errors
    again = results(tmp_path / "out")
    assert all(r["severity"] != "ERROR" for r in again)
    kept = [a for a, b in zip(again, first) if b["severity"] != "ERROR"]
    assert kept == [b for b in first if b["severity"] != "ERROR"]
