"""End to end on the real embedded model: bundled registry → pack → run → grounding → AuditResults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from simpleaudit import AuditResults

from auditpacks.runner.cli.main import main

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("e2e") / "jacite.json"
    assert main(["build", "jacite", "--out", str(out)]) == 0
    return out


def check_run(out: Path, pack: Path, model: str) -> dict:
    results = AuditResults.load(str(out / f"{model}.json"))
    run = json.loads((out / f"{model}.run.json").read_text())
    manifest = json.loads(pack.with_name("jacite.manifest.json").read_text())
    assert len(results) == 3
    assert run["pack"]["sha256"] == manifest["sha256"]
    assert run["summary"]["scenarios"] == 3 and run["judge"] == "grounding" and run["summary"]["errors"] == 0
    for result in results:
        assert result.severity in ("pass", "low", "medium")
        assert {"cited", "invented", "real_not_gold", "gold_hit"} <= set(result.judgment)
    return run


def test_smoke_run_against_a_running_server(pack, tmp_path, embedded_model, capsys):
    out = tmp_path / "results"
    code = main(["run", "--pack", str(pack), "--smoke", "--target", "smollm2", "--base-url",
                 embedded_model.base_url, "--max-tokens", "48", "--out", str(out), "--quiet"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "jacite.json (sha256" in printed and "judge grounding" in printed and "invented rate" in printed
    run = check_run(out, pack, "smollm2")
    assert run["base_url"] == embedded_model.base_url and not run["embedded"]


def test_no_target_starts_and_stops_the_embedded_model(pack, tmp_path, embedded_model):
    out = tmp_path / "results"
    assert main(["run", "--pack", str(pack), "--smoke", "--max-tokens", "48", "--out", str(out), "--quiet"]) == 0
    run = check_run(out, pack, "smollm2")
    assert run["embedded"] and run["base_url"] is None
    # a rerun into the same folder reuses every finished scenario
    before = (out / "smollm2.json").read_text()
    assert main(["run", "--pack", str(pack), "--smoke", "--max-tokens", "48", "--out", str(out), "--quiet"]) == 0
    assert json.loads((out / "smollm2.json").read_text())["results"] == json.loads(before)["results"]
