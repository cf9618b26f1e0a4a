"""The ICJ tool conditions end to end on the embedded model (plumbing: its answers are not judged)."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.runs.run_files import TRACES_SUFFIX, stem_of, tool_run_names
from auditpacks.runner.cli.main import main
from tests.support.icj_graph import GRAPH, TARGETS

FIXTURE = TARGETS.parent.parent


@pytest.mark.parametrize("condition", ["Parametric", "Designed Tools Only", "Cypher + Lexical"])
def test_each_condition_runs_on_the_embedded_model(embedded_model, tmp_path, condition):
    pack = tmp_path / "icj.json"
    assert main(["build", "icj", "--source", str(FIXTURE), "--out", str(pack)]) == 0
    out = tmp_path / "out"
    code = main(["tools", "icj", "run", "--graph", str(GRAPH), "--pack", str(pack), "--condition", condition,
                 "--base-url", embedded_model.base_url, "--target", embedded_model.model, "--limit", "1",
                 "--max-steps", "1", "--max-tokens", "16", "--out", str(out), "--cache", str(tmp_path / "cache")])
    assert code == 0
    stem = stem_of(next(out.glob(f"*{TRACES_SUFFIX}")))
    results = json.loads((out / f"{stem}.json").read_text())["results"]
    assert len(results) == 1 and results[0]["judgment"]["condition"] == condition
    trace = json.loads((out / tool_run_names(stem)[0]).read_text())
    assert trace["steps"][0]["kind"] == "model" and trace["input_tokens"] > 0
    assert all(not step.get("leak") for step in trace["steps"])
    assert main(["export", "icj", str(out / f"{stem}.json"), "--model-id", "smollm2",
                 "--out", str(tmp_path / "p.jsonl")]) == 0
