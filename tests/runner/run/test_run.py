"""A run in three steps (set up, execute, record): the record it returns is the one it wrote, the early
refusals come first when the caller has not made them, the selection and judge given are the ones run, and the
embedded model runs while the scenarios execute, not while the run is recorded."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import httpx
import pytest

from auditpacks.core.runs.record import RunRecord
from auditpacks.judges.reader import Reader
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.readiness.early import refuse_early
from auditpacks.runner.run import run as run_module
from auditpacks.runner.run.run import results_path, run
from tests.support.fake_openai import FakeOpenAI
from tests.support.run_config import run_config
from tests.support.runs import results
from tests.support.tiny_pack import write_pack


def test_the_record_returned_is_the_record_written(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 4)
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        config = run_config(pack=pack, out=out, target="m", base_url=server.base_url, show_progress=False)
        record = run(config)
    saved = RunRecord.load(out / "m.run.json")
    assert (saved.fingerprint, saved.summary.to_dict()) == (record.fingerprint, record.summary.to_dict())
    assert record.summary.scenarios == 4 and len(results(out)) == 4
    # resolved for the run: no documents, so simpleaudit's order; not llama.cpp, so no slots
    assert (record.parameters["prompt_order"], record.parameters["slot_pinning"]) == ("stock", False)
    assert results_path(config, record) == out / "m.json"


def test_without_the_early_checks_made_the_run_makes_them_first(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 2)
    config = run_config(pack=pack, out=tmp_path / "out", target="m", base_url="http://127.0.0.1:9/v1", limit=0)
    with pytest.raises(RunError, match="^--limit must be at least 1, got 0$"):
        run(config)
    assert not (tmp_path / "out").exists()


def test_the_selection_and_judge_given_are_the_ones_run(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 4)
    with FakeOpenAI() as server:
        config = run_config(pack=pack, out=tmp_path / "out", target="m", base_url=server.base_url,
                            show_progress=False)
        admitted = refuse_early(config)
        record = run(config, dataclasses.replace(admitted, scenarios=admitted.scenarios[:2],
                                                  reader=Reader.of("choice", admitted.pack.manifest.get("builder"))))
        assert server.chat_requests == 2
    assert (record.judge, record.summary.scenarios) == ("choice", 2)


@pytest.mark.model
def test_the_embedded_model_answers_while_the_run_executes_and_is_stopped_before_it_is_recorded(
        tmp_path, monkeypatch, embedded_model):
    seen, real_execute, real_record = {}, run_module.execute, run_module.record

    def execute(prepared):
        seen["url"] = prepared.endpoint.embedded_url
        seen["up"] = httpx.get(seen["url"] + "/models", timeout=30).status_code
        return real_execute(prepared)

    def record(prepared, executed):
        with pytest.raises(httpx.ConnectError):
            httpx.get(seen["url"] + "/models", timeout=5)
        seen["recorded"] = True
        return real_record(prepared, executed)

    monkeypatch.setattr(run_module, "execute", execute)
    monkeypatch.setattr(run_module, "record", record)
    pack = write_pack(tmp_path / "tiny.json", 1)
    result = run(run_config(pack=pack, out=tmp_path / "out", max_tokens=16, show_progress=False))
    assert seen["up"] == 200 and seen["recorded"]
    assert result.embedded and result.base_url is None and result.summary.scenarios == 1


def test_without_out_each_runs_results_are_found_in_its_own_folder_of_the_pack(tmp_path, monkeypatch):
    """``results/<pack stem>/<run id>/<model>.json``: an earlier run with other settings keeps its own folder
    after a later one has finished (found by its fingerprint, not as the latest)."""
    monkeypatch.chdir(tmp_path)
    pack = write_pack(tmp_path / "tiny.json", 2)
    with FakeOpenAI() as server:
        configs = [run_config(pack=pack, target="m", base_url=server.base_url, show_progress=False, limit=n,
                              temperature=t) for n, t in ((1, 0.2), (2, 0.7))]
        records = [run(config) for config in configs]
    paths = [results_path(config, record) for config, record in zip(configs, records)]
    assert [(p.parent.parent, p.name) for p in paths] == [(Path("results/tiny"), "m.json")] * 2
    assert paths[0].parent != paths[1].parent and all(p.is_file() for p in paths)
    assert [len(results(p.parent)) for p in paths] == [1, 2]
