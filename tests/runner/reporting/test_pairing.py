"""Pairing two runs: the benchmark's statistic, or the pass rate for a judge no benchmark owns; the scenarios
compared, left out and disagreed on, the warnings, and runs that cannot be compared."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from auditpacks.core.errors import PackError
from auditpacks.runner.reporting.pairing import compare_runs
from auditpacks.runner.reporting.runs import load_runs
from tests.support.hand_runs import choice_result, error_result, write_run
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
    assert (rate["tested"], rate["test"], rate["clusters"]) == (True, "McNemar", 6)
    assert c["sha256"] == hashlib.sha256(pack.read_bytes()).hexdigest()


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


def _right(s):
    return choice_result(s, s["decision"]["accepted"][0])


def test_the_comparison_counts_scenarios_of_one_run_only_errors_and_disagreements(tmp_path, scenarios):
    pack, items = scenarios
    # A ran s0..s4, B s1..s5; s2 is an ERROR in A, s3 in B; on s1 A is right and B wrong
    a = write_run(tmp_path / "a", "a", pack, "checklist",
                  [_right(items[0]), _right(items[1]), error_result(items[2]), _right(items[3]), _right(items[4])])
    b = write_run(tmp_path / "b", "b", pack, "checklist",
                  [choice_result(items[1], wrong(items[1])), _right(items[2]), error_result(items[3]),
                   _right(items[4]), _right(items[5])])
    c = compare_runs(*load_runs([a, b]))
    assert {k: c[k] for k in ("a", "b", "pack", "scenarios", "paired", "only_a", "only_b", "errors")} == {
        "a": "a", "b": "b", "pack": "tiny.json", "scenarios": 4, "paired": 2, "only_a": 1, "only_b": 1, "errors": 2}
    assert c["warnings"] == [
        "the runs cover different scenarios: compared on the 4 both ran (1 only in A, 1 only in B)",
        "2 scenario(s) with an ERROR in either run left out of the paired figures",
        "only 2 scenarios: intervals that resample scenarios say almost nothing with fewer than 3"]
    assert c["figures"][0]["decided_by"] == "only 2 scenarios: interval withheld"
    right_1, wrong_1 = items[1]["decision"]["accepted"], wrong(items[1])
    assert c["disagreements"][0] == {
        "scenario": items[1]["name"], "group": "System Integrity",
        "a": f"correct: Chose {right_1[0]!r}; accepted {right_1}.",
        "b": f"wrong: Chose {wrong_1!r}; accepted {right_1}."}
    assert [d["scenario"] for d in c["disagreements"]] == [items[i]["name"] for i in (1, 2, 3)]


def test_scenarios_only_one_run_has_are_counted_even_when_the_other_has_none_of_its_own(tmp_path, scenarios):
    pack, items = scenarios
    a = write_run(tmp_path / "a", "a", pack, "checklist", [_right(s) for s in items])
    b = write_run(tmp_path / "b", "b", pack, "checklist", [_right(s) for s in items[:5]])
    assert compare_runs(*load_runs([a, b]))["warnings"] == [
        "the runs cover different scenarios: compared on the 5 both ran (1 only in A, 0 only in B)"]


@pytest.mark.parametrize("rounds_a, rounds_b", [(2, 1), (1, 2)])
def test_a_repeated_run_is_compared_on_the_round_asked_for(tmp_path, scenarios, rounds_a, rounds_b):
    pack, items = scenarios
    results = [_right(s) for s in items]
    a = write_run(tmp_path / "a", "a", pack, "checklist", *[results] * rounds_a)
    b = write_run(tmp_path / "b", "b", pack, "checklist", *[results] * rounds_b)
    assert compare_runs(*load_runs([a, b]))["warnings"] == ["repeated runs: compared on round 1 of each"]


def test_the_runs_own_few_cluster_warnings_are_said_once_when_both_carry_them(tmp_path, scenarios):
    pack, items = scenarios
    said = {"a": ["only 2 scenarios: said by both", "only 2 judgments: another unit", 5, "few scenarios, said otherwise"],
            "b": ["only 2 scenarios: said by both", "only 1 scenario of B's scenarios"]}
    paths = []
    for name in ("a", "b"):
        path = write_run(tmp_path / name, name, pack, "checklist", [_right(s) for s in items])
        record = json.loads(path.read_text(encoding="utf-8"))
        record["summary"]["headline"] = {"pass_rate": 1.0, "warnings": said[name]}
        path.write_text(json.dumps(record), encoding="utf-8")
        paths.append(path)
    assert compare_runs(*load_runs(paths))["warnings"] == [
        "only 2 scenarios: said by both", "run B: only 1 scenario of B's scenarios"]


def test_runs_of_different_packs_or_graders_are_refused_naming_both(tmp_path, scenarios):
    pack, items = scenarios
    other = write_pack(tmp_path / "other.json", 5, per_document=2)
    a = write_run(tmp_path / "a", "a", pack, "checklist", [_right(s) for s in items])
    b = write_run(tmp_path / "b", "b", other, "checklist", [_right(s) for s in items[:5]])
    sha_a, sha_b = (hashlib.sha256(p.read_bytes()).hexdigest()[:12] for p in (pack, other))
    with pytest.raises(PackError, match=rf"^{re.escape(str(a))} ran tiny\.json \(sha256 {sha_a}…\) and "
                                        rf"{re.escape(str(b))} ran other\.json \(sha256 {sha_b}…\): "
                                        r"runs of different packs cannot be compared$"):
        compare_runs(*load_runs([a, b]))
    c = write_run(tmp_path / "c", "c", pack, "choice_match", [_right(s) for s in items])
    with pytest.raises(PackError, match=rf"^{re.escape(str(a))} was graded by checklist and {re.escape(str(c))} by "
                                        r"choice_match: compare runs graded the same way$"):
        compare_runs(*load_runs([a, c]))
