"""Pairing two runs: the benchmark's statistic, or the pass rate for a judge no benchmark owns."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.runner.reporting.pairing import compare_runs
from auditpacks.runner.reporting.runs import load_runs
from tests.support.hand_runs import choice_result, write_run
from tests.support.tiny_pack import write_pack


@pytest.fixture()
def scenarios(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 6, per_document=2)
    return pack, json.loads(pack.read_text(encoding="utf-8"))


def wrong(s):
    return next(k for k in s["decision"]["criteria"] if k not in s["decision"]["accepted"])


def test_a_judge_no_benchmark_owns_is_compared_on_its_pass_rate(tmp_path, scenarios):
    pack, items = scenarios
    a = write_run(tmp_path / "a", "a", pack, "checklist", [choice_result(s, s["decision"]["accepted"][0]) for s in items])
    b = write_run(tmp_path / "b", "b", pack, "checklist",
                  [choice_result(s, wrong(s) if i < 2 else s["decision"]["accepted"][0]) for i, s in enumerate(items)])
    c = compare_runs(*load_runs([a, b]))
    assert c["benchmark"] is None
    assert c["method"] == "paired bootstrap over scenarios; McNemar exact test on discordant scenarios"
    (rate,) = c["figures"]
    assert (rate["figure"], rate["a"], rate["b"]) == ("pass rate", 1.0, 4 / 6)
    assert rate["p"] == pytest.approx(0.5) and len(c["disagreements"]) == 2  # 2 discordant: 2 · 0.5²


def test_runs_read_as_different_benchmarks_are_refused(tmp_path, scenarios):
    pack, items = scenarios
    results = [choice_result(s, s["decision"]["accepted"][0]) for s in items]
    a = write_run(tmp_path / "a", "a", pack, "choice_match", results)
    b = write_run(tmp_path / "b", "b", pack, "checklist", results)
    with pytest.raises(PackError, match="compare runs graded the same way"):
        compare_runs(*load_runs([a, b]))


def test_closed_question_judges_are_one_benchmark(tmp_path, scenarios):
    pack, items = scenarios
    results = [choice_result(s, s["decision"]["accepted"][0]) for s in items]
    c = compare_runs(*load_runs([write_run(tmp_path / "a", "a", pack, "choice_match", results),
                                 write_run(tmp_path / "b", "b", pack, "choice", results)]))
    assert c["benchmark"] == "iustitia" and [f["figure"] for f in c["figures"]] == [
        "micro agreement", "macro agreement", "discordant tasks"]
