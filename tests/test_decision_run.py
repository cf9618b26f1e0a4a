"""A decision run skips, counts and explains the scenarios its endpoint cannot take."""

from __future__ import annotations

import json

from auditpacks.runner.cli.main import main
from tests.test_iustitia_decision import FakeSystemOne
from tests.test_iustitia_support import build_pack


def test_option_and_body_limits_are_skipped_counted_and_explained(tmp_path, capsys):
    scenarios = build_pack(tmp_path)
    big = next(s for s in scenarios if s["name"] == "GUILTY.VERDICT - domv901")
    big["documents"] = [big["documents"][0] + " fjalë" * 14_000]  # well over Ollama's 64 KiB body limit
    pack = tmp_path / "edited.json"
    pack.write_text(json.dumps(scenarios, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "run"
    with FakeSystemOne() as server:
        code = main(["run", "--pack", str(pack), "--decision", "ollama", "--target", "clef", "--base-url",
                     server.root, "--batch-questions", "1", "--out", str(out), "--quiet"])
    run = json.loads((out / "clef.run.json").read_text())
    assert code == (3 if run["summary"]["errors"] else 0), run["summary"]
    assert run["summary"]["skipped"] == {"over 26 options": 3, "over the endpoint's 65536-byte request limit": 1}
    assert run["summary"]["scenarios"] == len(scenarios) - 4
    warning = [line for line in capsys.readouterr().err.splitlines() if "skipped" in line]
    assert len(warning) == 1 and "GUILTY.VERDICT - domv901" in warning[0] and "64 KiB" in warning[0]
    head = run["summary"]["headline"]
    # skipped scenarios are eligible tasks with no answer: in the denominator, never a prediction
    assert head["tasks"] == len(scenarios) == 15 and head["skipped"] == 4
    assert head["predictions"] <= 11 and head["coverage"] == head["predictions"] / 15
