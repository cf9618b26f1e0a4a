"""The Python API: one call each to build, run, score and export, with the command line's defaults."""

from __future__ import annotations

import json

import pytest

import auditpacks
from auditpacks.core.errors import UserError
from tests.support.runs import ROOT

FIXTURES = ROOT / "tests" / "fixtures"



@pytest.mark.model
def test_build_run_export_score_icj(tmp_path, embedded_model):
    pack = auditpacks.build("icj", out=tmp_path / "icj.json", source=FIXTURES / "icj", limit=2)
    assert pack == tmp_path / "icj.json" and pack.is_file()
    results, record = auditpacks.run(pack, target="smollm2", base_url=embedded_model.base_url, out=tmp_path / "results",
                                     max_tokens=64, quiet=True)
    assert len(results) == 2 == record.summary.scenarios
    assert all(r.severity != "ERROR" for r in results), [r.judgment for r in results]
    assert record.model == "smollm2"
    predictions = auditpacks.export("icj", tmp_path / "results" / "smollm2.json", tmp_path / "pred.jsonl")
    rows = [json.loads(line) for line in predictions.read_text().splitlines()]
    assert len(rows) == 2 and {r["model_id"] for r in rows} == {"smollm2"}
    scores = auditpacks.score("icj", predictions, test=FIXTURES / "icj" / "data" / "test.jsonl", allow_partial=True)
    assert scores["records"] == 2


def test_unknown_option_and_benchmark_are_one_line_errors(tmp_path):
    with pytest.raises(UserError, match="unknown option 'colour'"):
        auditpacks.build("jacite", out=tmp_path / "p.json", colour="red")
    with pytest.raises(UserError, match="no builder for benchmark 'nope'"):
        auditpacks.build("nope", out=tmp_path / "p.json")
    assert not list(tmp_path.iterdir())
