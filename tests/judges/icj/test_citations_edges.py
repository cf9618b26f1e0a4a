"""ICJ citation grading at its edges: the threshold, the wording, and headline denominators with errors."""

from __future__ import annotations

import json

import pytest

from auditpacks.judges.icj.citations import citation_verdict, headline, make_judge, parse_prediction, strip_reasoning
from tests.judges.icj.test_citations import EMPTY, scenario, reply

ANSWER = {"citation_case_ids": ["001"], "citation_provision_keys": [], "citation_resolution_symbols": []}


def test_pooled_f1_exactly_at_the_threshold_passes():
    # TP 1, FP 1, FN 1 -> F1 = 2 / 4 = 0.5, the default threshold
    j = citation_verdict(scenario(cases=("001", "064"), provisions=()), reply(["001", "002"]))
    assert j["f1_all"] == 0.5 and j["severity"] == "pass"


def test_wrong_citations_only_score_zero_not_nothing_to_cite():
    # TP 0, FP 1, FN 1: F1 0, not "nothing to cite" (the sum tp + fp + fn is what decides)
    j = citation_verdict(scenario(cases=("001",), provisions=()), reply(["002"]))
    assert j["f1_all"] == 0.0 and j["severity"] == "high"


def test_a_verdict_word_for_word():
    j = citation_verdict(scenario(), reply(["001", "005"], ["charter:article_51"]))
    assert j["summary"] == "TP 2, FP 1, FN 1; F1 over all families 0.667; pass."
    assert j["issues_found"] == ["1 unmatched and 1 missed case ids"]
    assert j["positive_behaviors"] == ["1 correct case ids", "1 correct provision keys"]
    assert j["recommendations"] == []
    partial = citation_verdict(scenario(cases=(), provisions=()), {"content": '{"citation_case_ids": []}'})
    assert partial["summary"] == "TP 0, FP 0, FN 0; F1 over all families n/a (nothing to cite, nothing cited); rated high."
    assert partial["recommendations"] == ["Reply with one JSON object holding the three citation lists."]
    assert partial["issues_found"] == ["missing field citation_provision_keys", "missing field citation_resolution_symbols"]


def test_ungraded_and_judge_description():
    j = citation_verdict({"metadata": {"case_id": "9", "gold_citation_case_ids": ["1"]}}, reply())
    assert j == {"severity": "ungraded", "case_id": "9", "target_document_id": None, "condition": None,
                 "summary": "The scenario carries no gold citation lists; not graded.", "issues_found": [],
                 "positive_behaviors": [], "recommendations": []}
    assert make_judge({"grading": {"pass_f1": 0.75}})["description"] == (
        "Exact set match of the predicted ICJ citations (cases, provisions, UN resolutions) against the "
        "reference lists; per-family TP/FP/FN in the judgment; pass at pooled F1 >= 0.75.")


def test_gold_case_ids_are_padded_like_predictions():
    j = citation_verdict(scenario(cases=(1, "64"), provisions=()), reply(["001", "064"]))
    assert j["counts"]["case_ids"] == {"tp": 2, "fp": 0, "fn": 0}


def test_long_bad_values_are_cut_at_40_characters_in_the_issue():
    long = {"k": "x" * 60}
    text = json.dumps({"citation_case_ids": long, "citation_provision_keys": [long], "citation_resolution_symbols": []})
    _, issues = parse_prediction(text)
    shown = json.dumps(long)[:40]
    assert issues == [f"citation_case_ids is {shown}, not a list",
                      f"citation_provision_keys[0] is {shown}, not a string; dropped"]


def test_the_first_answer_object_wins_over_later_ones():
    text = "Answer: " + json.dumps(ANSWER) + ' and a note {"citation_case_ids": ["099"]}'
    assert parse_prediction(text) == ({**EMPTY, "citation_case_ids": ["001"]}, [])
    assert parse_prediction('{"x": 1} {bad} ' + json.dumps(ANSWER))[0]["citation_case_ids"] == ["001"]
    assert strip_reasoning("draft </think> final") == "final"


def _graded(s, *args):
    return {"judgment": citation_verdict(s, reply(*args))}


def test_headline_counts_errors_first_and_scores_only_graded_results():
    s = scenario(cases=("001",), provisions=())
    no_gold = {"metadata": {"case_id": "1"}}
    regraded = {"judgment": {"severity": "low"}, "conversation": [{"role": "assistant", "content": json.dumps(ANSWER)}]}
    pairs = [
        (s, {"severity": "ERROR", "judgment": {}}),                         # ERROR on the result only
        (s, _graded(s, ["001"])),                                           # pass: TP 1
        (s, {"judgment": {"severity": "ERROR", "error": "boom"}}),          # ERROR in the judgment only
        (no_gold, {"judgment": {"severity": "low"}, "conversation": []}),   # ungraded
        (no_gold, {"judgment": {}, "conversation": []}),                    # ungraded
        (s, _graded(s, ["002"])),                                           # rated high: FP 1, FN 1
        (s, regraded),                                                      # re-graded from its reply: pass, TP 1
    ]
    out = headline(pairs)
    assert {k: out[k] for k in ("scenarios", "scored", "valid", "partial", "errors", "ungraded", "passed")} == \
        {"scenarios": 7, "scored": 3, "valid": 3, "partial": 0, "errors": 2, "ungraded": 2, "passed": 2}
    assert out["case_ids"] == {"tp": 2, "fp": 1, "fn": 1, "precision": 2 / 3, "recall": 2 / 3, "f1": 2 / 3,
                               "f1_bootstrap95": [2 / 3, 2 / 3]}   # one target: every replicate is the point


def test_objects_are_read_in_order_past_broken_and_stray_braces():
    answer = json.dumps(ANSWER)
    for text in ("{bad} " + answer + ' {"x": 1}', "{" + answer, '{"x": 1} ' + answer + ' {"y": 2}'):
        assert parse_prediction(text) == ({**EMPTY, "citation_case_ids": ["001"]}, []), text


def test_items_after_a_dropped_one_are_read_and_only_case_ids_are_padded():
    text = json.dumps({"citation_case_ids": ["1", 7.5, "64"], "citation_provision_keys": ["5"],
                       "citation_resolution_symbols": ["12"]})
    prediction, issues = parse_prediction(text)
    assert prediction == {"citation_case_ids": ["001", "064"], "citation_provision_keys": ["5"],
                          "citation_resolution_symbols": ["12"]}
    assert issues == ["citation_case_ids[1] is 7.5, not a string; dropped"]


def test_a_family_with_only_misses_is_named():
    j = citation_verdict(scenario(cases=("001", "064"), provisions=()), reply(["001"]))
    assert j["issues_found"] == ["0 unmatched and 1 missed case ids"]


def test_headline_counts_skipped_scenarios_and_goes_on():
    graded = {"judgment": citation_verdict(scenario(), reply(cases=["001"]))}
    cut = {"judgment": citation_verdict(scenario(), {"content": '{"citation_case_ids": ["001", "06',
                                                     "finish_reason": "length"})}
    out = headline([(scenario(), None), (scenario(), graded), (scenario(), None), (scenario(), cut)])
    assert {k: out[k] for k in ("scenarios", "scored", "valid", "truncated", "skipped", "passed")} == \
        {"scenarios": 4, "scored": 2, "valid": 1, "truncated": 1, "skipped": 2, "passed": 1}  # F1 1/2 passes
    assert out["case_ids"]["tp"] == 2 and out["case_ids"]["fn"] == 2  # each finds 001; the cut reply loses "06…


def unnamed_target(name):
    """A scenario whose metadata names no target document: its name is the bootstrap's cluster."""
    s = scenario(cases=("001",), provisions=())
    metadata = {k: v for k, v in s["metadata"].items() if k != "target_document_id"}
    return {**s, "name": name, "metadata": metadata}


@pytest.mark.parametrize("names, interval", [
    (("A", "B"), [0.0, 1.0]),   # two targets: one all right (F1 1), one all wrong (F1 0), as in test_citations
    (("A", "A"), [0.5, 0.5]),   # one target: the interval is the pooled point, 2·1 / (2·1 + 1 + 1)
])
def test_scenarios_without_a_target_id_are_clustered_by_name(names, interval):
    right, wrong = unnamed_target(names[0]), unnamed_target(names[1])
    out = headline([(right, {"judgment": citation_verdict(right, reply(["001"]))}),
                    (wrong, {"judgment": citation_verdict(wrong, reply(["999"]))})])
    assert out["case_ids"]["f1_bootstrap95"] == interval


def test_pooled_f1_with_one_right_and_one_wrong_citation():
    """TP 1, FP 1, FN 0: precision 1/2, recall 1, F1 2·1 / (2·1 + 1) = 2/3 (not n/a)."""
    s = scenario(cases=("001",), provisions=())
    out = headline([(s, {"judgment": citation_verdict(s, reply(["001", "064"]))})])
    case_ids = out["case_ids"]
    assert (case_ids["precision"], case_ids["recall"]) == (0.5, 1.0)
    assert case_ids["f1"] == pytest.approx(2 / 3)
