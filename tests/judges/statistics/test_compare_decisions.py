"""``auditpacks compare`` decides each row: significant on a clearly different pair of runs, not testable with
the few-clusters warning on runs over two judgments (runs written by hand)."""

from __future__ import annotations

import json

import pytest

from auditpacks.runner.cli.main import main
from tests.support.hand_runs import choice_result, write_run
from tests.support.tiny_pack import write_pack


def wrong_key(scenario: dict) -> str:
    return next(k for k in scenario["decision"]["criteria"] if k not in scenario["decision"]["accepted"])


def two_runs(tmp_path, n: int, b_wrong: set[int]):
    pack = write_pack(tmp_path / "tiny.json", n, per_document=2)
    items = json.loads(pack.read_text(encoding="utf-8"))
    a = write_run(tmp_path / "a", "model-a", pack, "choice_match",
                  [choice_result(s, s["decision"]["accepted"][0]) for s in items])
    b = write_run(tmp_path / "b", "model-b", pack, "choice_match",
                  [choice_result(s, wrong_key(s) if i in b_wrong else s["decision"]["accepted"][0])
                   for i, s in enumerate(items)])
    return a, b


def rows(capsys, a, b) -> tuple[dict, dict]:
    assert main(["compare", str(a), str(b), "--json"]) == 0
    (c,) = json.loads(capsys.readouterr().out)
    return c, {f["figure"]: f for f in c["figures"]}


def test_two_judgments_are_not_testable_and_warned(tmp_path, capsys):
    # 4 scenarios, 2 per judgment (V0000, V0001); B misses 2 of them: micro 100% vs 50%, McNemar p = 2·0.5² = 0.5
    a, b = two_runs(tmp_path, 4, {0, 2})
    c, by = rows(capsys, a, b)
    micro = by["micro agreement"]
    assert micro["diff"] == pytest.approx(0.5) and micro["p"] == pytest.approx(0.5)
    assert {f["decision"] for f in c["figures"]} == {"not testable"}
    assert micro["decided_by"] == "only 2 judgments: interval withheld" and micro["ci"] is None
    assert "only 2 judgments: intervals that resample judgments say almost nothing with fewer than 3" in c["warnings"]
    assert main(["compare", str(a), str(b)]) == 0
    out, err = capsys.readouterr()
    assert "micro agreement: not testable (only 2 judgments: interval withheld)" in out and "withheld" in out
    assert "warning: " in err and "only 2 judgments" in err


def test_a_clearly_different_pair_is_significant(tmp_path, capsys):
    # 24 scenarios over 12 judgments; B misses the first task of 9 judgments: +37.5%, McNemar p = 2·0.5⁹ ≈ 0.0039
    a, b = two_runs(tmp_path, 24, {0, 2, 4, 6, 8, 10, 12, 14, 16})
    c, by = rows(capsys, a, b)
    assert by["micro agreement"]["decision"] == "significant"
    assert by["micro agreement"]["decided_by"] == "interval and McNemar agree"
    assert (by["macro agreement"]["decision"], by["macro agreement"]["decided_by"]) == (
        "significant", "paired 95% interval")
    assert (by["discordant tasks"]["decision"], by["discordant tasks"]["decided_by"]) == (
        "significant", "McNemar p < 0.05")
    assert not any("judgments" in w for w in c["warnings"])  # 12 judgments: the run's own rule says nothing here
    assert main(["compare", str(a), str(b)]) == 0
    assert "micro agreement: significant (interval and McNemar agree)" in capsys.readouterr().out


def test_identical_runs_are_not_significant(tmp_path, capsys):
    a, b = two_runs(tmp_path, 24, set())
    _, by = rows(capsys, a, b)
    assert by["micro agreement"]["decision"] == "not significant"   # no discordant task: the interval [0, 0] decides
    assert by["micro agreement"]["decided_by"] == "paired 95% interval (McNemar undefined)"
    assert by["discordant tasks"]["decision"] == "not testable"


def test_the_report_shows_each_decision(tmp_path, capsys):
    a, b = two_runs(tmp_path, 4, {0, 2})
    md = tmp_path / "report.md"
    assert main(["compare", str(a), str(b), "--report", str(md)]) == 0
    text = md.read_text(encoding="utf-8")
    assert "| micro agreement | 100.0% | 50.0% | +50.0% | withheld | 0.5 | not testable (only 2 judgments: " \
           "interval withheld) |" in text
    assert "Warning: only 2 judgments" in text


def test_the_runs_own_few_clusters_warnings_are_carried(tmp_path, capsys):
    a, b = two_runs(tmp_path, 24, {0, 2, 4})
    own = "only 12 judgments: judgment-bootstrap intervals under-cover with few clusters"
    for path, warnings in ((a, [own]), (b, [own, "only 12 judgments: another note"])):
        record = json.loads(path.read_text(encoding="utf-8"))
        record["summary"]["headline"] = {"warnings": warnings}
        path.write_text(json.dumps(record), encoding="utf-8")
    c, _ = rows(capsys, a, b)
    assert c["warnings"] == [own, "run B: only 12 judgments: another note"]
