"""A run whose first scenarios all fail the same way stops with one line instead of running the rest."""

from __future__ import annotations

import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.readiness.fail_fast import FailFast
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import journal_entries, run_here
from tests.support.tiny_pack import write_pack

FAST = ("--retry-backoff", "0.01", "--timeout", "5", "--max-retries", "0", "--quiet")


class Counted:
    def __init__(self):
        self.seen = []

    def start(self, resumed):
        self.seen.append(("start", len(resumed)))

    def update(self, result):
        self.seen.append(result)


def error(text: str) -> dict:
    return {"severity": "ERROR", "judgment": {"severity": "ERROR", "error": text}}


def test_the_third_same_failure_stops_and_names_the_cause():
    watch = FailFast(Counted(), 3)
    watch.start([error("old")] * 4)          # results reused from the journal do not count
    watch.update(error("CallFailed: timed out after 600 s"))
    watch.update(error("CallFailed: timed out after 300 s"))   # the same cause with other numbers
    with pytest.raises(RunError, match=r"^stopped: the first 3 scenarios all failed the same way: "
                                       r"CallFailed: timed out after 600 s \(--stop-after 3"):
        watch.update(error("CallFailed: timed out after 600 s"))
    assert watch.progress.seen == [("start", 4), error("CallFailed: timed out after 600 s"),  # each result reached
                                   error("CallFailed: timed out after 300 s"),                # the progress first
                                   error("CallFailed: timed out after 600 s")]


def test_a_limit_of_one_stops_at_the_first_failure():
    with pytest.raises(RunError, match=r"^stopped: the first 1 scenarios all failed the same way: HTTP 500: down "):
        FailFast(Counted(), 1).update(error("HTTP 500: down"))


@pytest.mark.parametrize("second", [{"severity": "pass", "judgment": {}}, error("HTTP 400: bad request")])
def test_a_success_or_a_second_cause_ends_the_watch(second):
    watch = FailFast(Counted(), 2)
    watch.update(error("HTTP 500: down"))
    watch.update(second)
    for _ in range(5):
        watch.update(error("HTTP 500: down"))


def test_zero_never_stops_and_skipped_scenarios_do_not_count():
    watch = FailFast(Counted(), 0)
    for _ in range(10):
        watch.update(error("HTTP 500: down"))
    skipping = FailFast(Counted(), 2)
    skipping.update(None)
    skipping.update(error("HTTP 500: down"))
    with pytest.raises(RunError):
        skipping.update(error("HTTP 500: down"))


def test_a_run_against_a_server_that_fails_every_call_stops_after_the_first_n(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 12)
    with FakeOpenAI(fault_rate=1.0, faults=("500",)) as server:
        assert run_here(pack, tmp_path / "out", server.base_url, "--stop-after", "3", *FAST) == 2
        assert server.chat_requests == 3
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("auditpacks: error:")]
    assert len(lines) == 1 and "the first 3 scenarios all failed the same way: " in lines[0]
    assert "HTTP 500" in lines[0]
    assert len(journal_entries(tmp_path / "out")) == 3   # kept; a rerun retries them
