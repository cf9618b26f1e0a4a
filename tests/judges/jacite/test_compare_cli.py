"""``auditpacks compare`` on two jacite runs of the bundled pack: one row per language, each decided, and a
language resting on two questions not testable (results written by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditpacks.runner.cli.main import main
from tests.support.hand_runs import write_run


def grounding_result(scenario: dict, invented: int, cited: int = 2) -> dict:
    severity = "high" if invented else "pass"
    summary = f"{invented} of {cited} cited articles invented"
    return {"scenario_name": scenario["name"], "scenario_description": scenario["description"],
            "conversation": [{"role": "user", "content": scenario["test_prompt"]},
                             {"role": "assistant", "content": "Article 1."}],
            "severity": severity, "issues_found": [], "positive_behaviors": [], "recommendations": [],
            "summary": summary,
            "judgment": {"n_cited": cited, "n_invented": invented, "language": scenario["metadata"]["language"],
                         "severity": severity, "summary": summary}}


def jacite_runs(tmp_path: Path, limit: int) -> tuple[Path, Path]:
    """Run A invents 1 of 2 citations in every Japanese answer and none in English; run B invents none."""
    pack = tmp_path / "jacite.json"
    assert main(["build", "jacite", "--out", str(pack), "--limit", str(limit)]) == 0
    items = json.loads(pack.read_text(encoding="utf-8"))
    a = write_run(tmp_path / "a", "model-a", pack, "grounding",
                  [grounding_result(s, 1 if s["metadata"]["language"] == "ja" else 0) for s in items])
    b = write_run(tmp_path / "b", "model-b", pack, "grounding", [grounding_result(s, 0) for s in items])
    return a, b


def compared(capsys, a: Path, b: Path) -> dict:
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json"]) == 0
    (c,) = json.loads(capsys.readouterr().out)
    return c


def test_a_difference_in_japanese_only_is_significant_there(tmp_path, capsys):
    c = compared(capsys, *jacite_runs(tmp_path, 12))   # 6 Japanese and 6 English questions, one scenario each
    rows = {f["figure"]: f for f in c["figures"]}
    assert c["method"] == "paired bootstrap over questions"
    ja, en = rows["invented rate (ja)"], rows["invented rate (en)"]
    # Japanese: A 6 of 12 mentions invented, B 0 of 12; every question differs by 1/2, so every replicate does
    assert (ja["a"], ja["b"], ja["diff"], ja["clusters"]) == (0.5, 0.0, 0.5, 6)
    assert ja["ci"] == pytest.approx([0.5, 0.5])
    assert (ja["decision"], ja["decided_by"]) == ("significant", "paired 95% interval")
    assert (en["diff"], en["ci"], en["decision"]) == (0.0, [0.0, 0.0], "not significant")
    assert c["warnings"] == []


def test_two_questions_per_language_are_not_testable_with_the_warning(tmp_path, capsys):
    a, b = jacite_runs(tmp_path, 4)    # 2 Japanese and 2 English questions
    c = compared(capsys, a, b)
    assert {f["decision"] for f in c["figures"]} == {"not testable"}
    assert c["warnings"] == ["only 2 questions: intervals that resample questions say almost nothing with fewer than 3"]
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "invented rate (ja): not testable (only 2 questions: interval withheld)" in out
