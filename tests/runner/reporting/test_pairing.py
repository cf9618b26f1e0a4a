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


def _ungraded(result):
    return {**result, "severity": "ungraded", "judgment": {**result["judgment"], "severity": "ungraded"}}


def test_a_scenario_ungraded_in_either_run_leaves_both_sides_and_b_vs_a_mirrors_a_vs_b(tmp_path, scenarios):
    pack, items = scenarios
    right = [choice_result(s, s["decision"]["accepted"][0]) for s in items]
    a_results = [_ungraded(right[0]), *right[1:]]
    b_results = [right[0], _ungraded(right[1]), choice_result(items[2], wrong(items[2])), *right[3:]]
    a = write_run(tmp_path / "a", "a", pack, "checklist", a_results)
    b = write_run(tmp_path / "b", "b", pack, "checklist", b_results)
    (ab,) = compare_runs(*load_runs([a, b]))["figures"]
    (ba,) = compare_runs(*load_runs([b, a]))["figures"]
    # paired on s2..s5 only: A right on 4 of 4, B on 3 of 4 (s0 and s1 ungraded on one side each)
    assert (ab["a"], ab["b"]) == (1.0, 0.75) and (ba["a"], ba["b"]) == (0.75, 1.0)
    assert ab["diff"] == pytest.approx(0.25) and ba["diff"] == pytest.approx(-0.25)
    assert ba["ci"] == pytest.approx([-ab["ci"][1], -ab["ci"][0]])
    assert ab["p"] == ba["p"] == pytest.approx(1.0)  # one discordant scenario: 2 · 0.5


def _mirrored(rows_ab, rows_ba):
    for ab, ba in zip(rows_ab, rows_ba, strict=True):
        assert ab["figure"] == ba["figure"]
        if ab.get("note"):  # counts (right only in A / right only in B) swap
            assert (ab["a"], ab["b"]) == (ba["b"], ba["a"])
            continue
        assert (ab["a"], ab["b"]) == (ba["b"], ba["a"])
        assert (ab["diff"] is None) == (ba["diff"] is None)
        if ab["diff"] is not None:
            assert ba["diff"] == pytest.approx(-ab["diff"])
            assert ba["ci"] == pytest.approx([-ab["ci"][1], -ab["ci"][0]])
        assert ab["p"] == ba["p"]


def _triples_iustitia():
    def t(i, a, b, accepted=True):
        s = {"name": f"Q{i % 3} - V{i // 3}", "decision": {"instructions": "?", "criteria": {"x": "", "y": ""},
                                                           **({"accepted": ["x"]} if accepted else {})},
             "metadata": {"verdict_id": f"V{i // 3}", "question_id": f"Q{i % 3}"}}
        return s, {"judgment": {"choice": a}}, {"judgment": {"choice": b}}
    return [t(i, "x" if i % 2 else "y", "x" if i % 3 else None) for i in range(12)] + [t(12, "x", "y", False)]


def _triples_jacite():
    def t(i, ja, jb):
        return {"name": f"q{i}", "metadata": {"question_id": f"q{i}", "language": "ja"}}, {"judgment": ja}, \
            {"judgment": jb}
    return [t(i, {"n_cited": 2, "n_invented": i % 2}, {"n_cited": 3, "n_invented": i % 3}) for i in range(8)] + \
        [t(8, {"severity": "ungraded"}, {"n_cited": 1, "n_invented": 1}),
         t(9, {"n_cited": 1, "n_invented": 0}, {"severity": "ungraded"})]


def _triples_icj():
    from auditpacks.packs.icj.targets import FAMILIES

    def counts(k):
        return {f: {"tp": k % 3, "fp": k % 2, "fn": 1} for f in FAMILIES}
    def t(i, ca, cb):
        return {"name": f"t{i}", "metadata": {"target_document_id": f"t{i}"}}, {"judgment": {"counts": ca}}, \
            {"judgment": {"counts": cb}}
    return [t(i, counts(i), counts(i + 1)) for i in range(6)] + [t(6, None, counts(1)), t(7, counts(2), None)]


@pytest.mark.parametrize("benchmark, triples", [("iustitia", _triples_iustitia), ("jacite", _triples_jacite),
                                                ("icj", _triples_icj)])
def test_every_benchmarks_paired_statistic_gives_b_vs_a_as_a_vs_b_mirrored(benchmark, triples):
    from importlib import import_module

    compare = import_module(f"auditpacks.judges.{benchmark}.paired").compare
    paired = triples()
    _mirrored(compare(paired), compare([(s, rb, ra) for s, ra, rb in paired]))
