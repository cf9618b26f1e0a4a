"""``--batch-api``'s waits and places, in process on a fake batch client: 30 s between polls unless told, no wait
after the last; the log in the pack's results folder when the run names none; a provider's time-out in one line;
the stock layout when the run's resolved prompt order is none."""

from __future__ import annotations

import pytest

from auditpacks.runner.hosted import batch_run
from auditpacks.runner.hosted.batch_run import batch_target, collect
from auditpacks.runner.models.errors import RunError
from tests.runner.hosted.test_batch_run_parts import FakeBatches
from tests.support.hosted_pack import write_hosted_pack
from tests.support.run_config import run_config


@pytest.fixture
def slept(monkeypatch) -> list:
    waits: list = []
    monkeypatch.setattr(batch_run.time, "sleep", waits.append)
    return waits


def config(tmp_path, **settings):
    return run_config(pack=write_hosted_pack(tmp_path / "long.json", words=20), target="gpt-4o-mini", api_key="k",
                      batch_api=True, **{"out": tmp_path / "out", **settings})


@pytest.mark.parametrize("polls, waits", [(1, []), (3, [30.0, 30.0])])
def test_collect_waits_thirty_seconds_between_polls_and_none_after_the_last(tmp_path, slept, polls, waits):
    collect(config(tmp_path), "gpt-4o-mini", FakeBatches(polls=polls), say=lambda line: None)
    assert slept == waits


def test_the_batch_target_waits_thirty_seconds_and_lays_out_in_stock_order_unless_told(tmp_path, slept, monkeypatch):
    monkeypatch.setattr(batch_run, "client_for", lambda given: FakeBatches(polls=2))
    target = batch_target(config(tmp_path, prompt_order=None, decision="url"), "gpt-4o-mini")   # resolved: none
    assert slept == [30.0] and target.layout_name == "stock"


def test_without_an_out_folder_the_log_lies_in_the_packs_results_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    collect(config(tmp_path, out=None), "gpt-4o-mini", FakeBatches(), poll_s=0, say=lambda line: None)
    assert (tmp_path / "results" / "long" / "gpt-4o-mini.batches.jsonl").is_file()


def test_a_provider_time_out_names_the_runs_time_limit(tmp_path):
    with pytest.raises(RunError) as caught:
        collect(config(tmp_path, timeout=42.0), "gpt-4o-mini", FakeBatches(error=TimeoutError("slow")), poll_s=0)
    assert str(caught.value) == ("batch API (openai): timed out after 42 s; what was done is in "
                                 "gpt-4o-mini.batches.jsonl, a rerun re-attaches")
