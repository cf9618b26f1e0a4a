"""An executed run recorded: its results file and run record written, and the run marked finished in its pack
folder's index (``latest`` pointing at it)."""

from __future__ import annotations

import json

from auditpacks.core.runs.record import RunRecord
from auditpacks.runner.readiness.early import refuse_early
from auditpacks.runner.run.execution import execute
from auditpacks.runner.run.prepare import set_up
from auditpacks.runner.run.recording import record
from tests.support.fake_openai import FakeOpenAI
from tests.support.run_config import run_config
from tests.support.tiny_pack import write_pack


def test_the_record_is_saved_beside_the_results_and_the_run_is_latest(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pack = write_pack(tmp_path / "tiny.json", 6)
    with FakeOpenAI() as server:
        config = run_config(pack=pack, target="m", base_url=server.base_url, shard="1/2", show_progress=False)
        with set_up(config, refuse_early(config)) as prepared:
            executed = execute(prepared)
    assert list((tmp_path / "results" / "tiny").glob("*/m.json")) == []   # nothing recorded yet
    result = record(prepared, executed)
    folder = prepared.folder
    assert RunRecord.load(folder / "m.run.json").fingerprint == result.fingerprint == prepared.fingerprint
    stored = json.loads((folder / "m.json").read_text(encoding="utf-8"))["results"]
    assert [r["scenario_name"] for r in stored] == [f"Tiny {i:04d} - Outcome of V0000" for i in range(3)]
    assert result.summary.scenarios == 3 and result.shard["spec"] == "1/2"
    assert (result.shard["selected"], result.shard["assigned"], result.shard["positions"]) == (6, 3, [0, 1, 2])
    assert result.base_url == server.base_url and result.cost is None   # "m" is in no price table
    assert (tmp_path / "results" / "tiny" / "latest").resolve() == folder.resolve()
    index = json.loads((tmp_path / "results" / "tiny" / "runs.jsonl").read_text(encoding="utf-8"))["runs"]
    assert [entry["id"] for entry in index if "finished" in entry] == [folder.name]
