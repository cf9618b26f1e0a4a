"""ICJ's paired comparison: a target's case, its TP/FP/FN per family (its own judgment's, else graded from its last
reply), and one F1 row per family over the targets graded in both runs, resampling whole targets."""

from __future__ import annotations

from auditpacks.judges.icj.paired import case, citation_counts, compare
from tests.judges.icj.test_citations import reply, scenario

NONE = {"tp": 0, "fp": 0, "fn": 0}


def result(message):
    """A result graded by another judge: only its conversation to read."""
    return {"severity": "pass", "conversation": [{"role": "user", "content": "q"}, message,
                                                 {"role": "user", "content": "thanks"}]}


def test_the_case_is_the_scenarios_source_document():
    assert case(scenario()) == "070"
    assert case({"name": "t", "metadata": {"target_document_id": "ICJ_070_X"}}) is None
    assert case({"name": "t", "metadata": None}) is None and case({"name": "t"}) is None


def test_counts_come_from_the_citations_judgment_when_there_is_one():
    counts = {"case_ids": {"tp": 5, "fp": 0, "fn": 0}, "provision_keys": NONE, "resolution_symbols": NONE}
    graded = {**result(reply()), "judgment": {"severity": "pass", "counts": counts}}
    assert citation_counts(scenario(), graded) == counts


def test_counts_are_graded_from_the_last_reply_otherwise():
    # gold cases 001, 064 and provision charter:article_51; cited 001 and article 51, plus resolution A/RES/1
    other = {**result(reply(["001"], ["charter:article_51"], ["A/RES/1"])), "judgment": {"severity": "pass"}}
    assert citation_counts(scenario(), other) == {"case_ids": {"tp": 1, "fp": 0, "fn": 1},
                                                  "provision_keys": {"tp": 1, "fp": 0, "fn": 0},
                                                  "resolution_symbols": {"tp": 0, "fp": 1, "fn": 0}}
    # no conversation at all: nothing cited, every reference citation missed
    assert citation_counts(scenario(), {"severity": "pass"})["case_ids"] == {"tp": 0, "fp": 0, "fn": 2}


def test_a_target_without_a_reference_has_no_counts():
    assert citation_counts({"name": "t", "metadata": {}}, result(reply(["001"]))) is None


def target(document_id):
    base = scenario()
    return {**base, "name": document_id, "metadata": {**base["metadata"], "target_document_id": document_id}}


def test_one_f1_row_per_family_over_the_targets_graded_in_both_runs():
    right, silent = result(reply(["001", "064"], ["charter:article_51"])), result(reply())
    ungraded = {"name": "no reference", "metadata": {}}
    rows = compare([(target("ICJ_070_X"), right, silent), (target("ICJ_071_Y"), right, silent),
                    (ungraded, right, silent)])
    # A cites every reference item (F1 1), B none (F1 0); both targets alike, so every replicate differs by 1
    common = {"p": None, "tested": False, "test": None, "clusters": 2, "note": ""}
    assert rows == [
        {"figure": "F1 case ids", "a": 1.0, "b": 0.0, "diff": 1.0, "ci": [1.0, 1.0], **common},
        {"figure": "F1 provision keys", "a": 1.0, "b": 0.0, "diff": 1.0, "ci": [1.0, 1.0], **common},
        {"figure": "F1 resolution symbols", "a": 0.0, "b": 0.0, "diff": 0.0, "ci": [0.0, 0.0], **common}]


def test_a_target_counted_in_one_run_only_is_left_out():
    graded = {"judgment": {"counts": {"case_ids": {"tp": 1, "fp": 0, "fn": 0}, "provision_keys": NONE,
                                      "resolution_symbols": NONE}}}
    empty = {"judgment": {"counts": {}}}   # a judgment whose counts are empty: nothing to compare
    rows = compare([(target("ICJ_070_X"), graded, empty), (target("ICJ_071_Y"), empty, graded)])
    assert [(r["figure"], r["a"], r["diff"], r["clusters"]) for r in rows] == [
        ("F1 case ids", None, None, 0), ("F1 provision keys", None, None, 0), ("F1 resolution symbols", None, None, 0)]
