"""ICJ's report section: precision, recall and F1 per citation family and round in one table and bar plot, F1
intervals that resample targets (added to a recorded headline that lacks them), a reply's predicted citations,
and targets grouped by case."""

from __future__ import annotations

import math

from auditpacks.judges.figures import Cell
from auditpacks.judges.icj.report import answer, f1_intervals, group, headline, per_family, section, target_counts
from tests.judges.icj.test_citations import reply
from tests.judges.icj.test_paired import result, target
from tests.support.hand_runs import RunView

X, Y = target("ICJ_070_X"), target("ICJ_071_Y")   # reference: cases 001 and 064, provision charter:article_51
RIGHT, SILENT = result(reply(["001", "064"], ["charter:article_51"])), result(reply())
ERROR = {"severity": "ERROR", "judgment": {"severity": "ERROR", "error": "Timeout"}}
TP2 = {"tp": 2, "fp": 0, "fn": 0}


def run(*rounds, recorded=None):
    return RunView([list(pairs) for pairs in rounds], "citations", {"name": "icj"}, recorded)


def test_target_counts_leave_out_errors_and_targets_without_a_reference():
    counts = target_counts(run([(Y, ERROR), ({"name": "no reference", "metadata": {}}, RIGHT), (X, RIGHT)]))
    assert counts == {"ICJ_070_X": {"case_ids": TP2, "provision_keys": {"tp": 1, "fp": 0, "fn": 0},
                                    "resolution_symbols": {"tp": 0, "fp": 0, "fn": 0}}}


def test_f1_intervals_resample_targets():
    # X cites everything (F1 1), Y nothing (F1 0): a quarter of the replicates draw X twice, a quarter Y twice
    assert f1_intervals(run([(X, RIGHT), (Y, SILENT)])) == {
        "case_ids": [0.0, 1.0], "provision_keys": [0.0, 1.0], "resolution_symbols": [0.0, 0.0]}
    later = run([(X, SILENT)], [(X, RIGHT), (Y, RIGHT)])
    assert f1_intervals(later, 1)["case_ids"] == [1.0, 1.0]
    assert all(math.isnan(v) for v in f1_intervals(run([(X, ERROR)]))["case_ids"])   # no target to draw


def test_a_recorded_headline_without_intervals_gains_them_for_f1_only():
    values = {"scored": 2, "partial": 0,
              "case_ids": {"tp": 2, "fp": 0, "fn": 2, "precision": 1.0, "recall": 0.5, "f1": 2 / 3},
              "provision_keys": {"tp": 1, "fp": 0, "fn": 1, "precision": 1.0, "recall": 0.5, "f1": 2 / 3,
                                 "f1_bootstrap95": [0.25, 0.75]},   # its own interval is kept
              "resolution_symbols": {"tp": 0, "fp": 0, "fn": 0, "precision": None, "recall": None, "f1": None}}
    rows = {(f.name, f.group): f for f in headline(run([(X, RIGHT), (Y, SILENT)], recorded=[values]))}
    cases = rows["F1", "case_ids"]
    assert (cases.interval, cases.interval_name) == ((0.0, 1.0), "95% CI, bootstrap over targets")
    assert rows["F1", "provision_keys"].interval == (0.25, 0.75)
    assert rows["F1", "resolution_symbols"].interval is None     # no F1 to bound
    assert rows["precision", "case_ids"].interval is None and rows["recall", "case_ids"].interval is None
    second = run([(X, RIGHT)], [(X, RIGHT), (Y, SILENT)], recorded=[values, values])
    assert next(f for f in headline(second, 1) if f.group == "case_ids").interval == (0.0, 1.0)   # that round's
    unscored = {(f.name, f.group): f for f in headline(run([(X, ERROR)], recorded=[values]))}
    assert unscored["F1", "case_ids"].interval is None


def test_one_row_per_family_and_round_from_each_rounds_headline():
    rows = per_family(run([(X, RIGHT), (Y, SILENT)], [(X, RIGHT), (Y, RIGHT)]))
    assert [(r["round"], r["family"]) for r in rows] == [
        (1, "case ids"), (1, "provision keys"), (1, "resolution symbols"),
        (2, "case ids"), (2, "provision keys"), (2, "resolution symbols")]
    # round 1 cases: TP 2, FN 2 -> P 1, R 1/2, F1 4/6; round 2: TP 4 -> 1, 1, 1
    assert {k: rows[0][k] for k in ("tp", "fp", "fn", "precision", "recall", "f1")} == {
        "tp": 2, "fp": 0, "fn": 2, "precision": 1.0, "recall": 0.5, "f1": 2 / 3}
    assert (rows[3]["tp"], rows[3]["f1"]) == (4, 1.0)
    failed = run([(X, RIGHT)], recorded=[{"error": "ValueError: boom"}])
    assert per_family(failed) == []


def test_the_section_is_one_table_of_every_round_and_a_bar_plot():
    part = section(run([(X, RIGHT), (Y, SILENT)], [(X, RIGHT), (Y, RIGHT)]))
    (table,) = part.tables
    assert table.title == "Per family and round"
    assert [c.title for c in table.columns] == ["Round", "Family", "TP", "FP", "FN", "Precision", "Recall", "F1"]
    assert table.md_columns == ["Round", "Family", "Precision", "Recall", "F1"]
    assert table.rows[0] == [Cell(1, "count"), Cell("case ids"), Cell(2, "count"), Cell(0, "count"), Cell(2, "count"),
                             Cell(1.0, "%"), Cell(0.5, "%"), Cell(2 / 3, "%")]
    (plot,) = part.plots
    assert (plot.kind, plot.axis, plot.limit) == ("bars", "pooled over targets", 1.0)
    assert plot.labels == ["case ids r1", "provision keys r1", "resolution symbols r1",
                           "case ids r2", "provision keys r2", "resolution symbols r2"]
    assert plot.series["precision"] == ([1.0, 1.0, None, 1.0, 1.0, None], [None] * 6)
    assert plot.series["recall"][0] == [0.5, 0.5, None, 1.0, 1.0, None]
    assert plot.series["f1"][0] == [2 / 3, 2 / 3, None, 1.0, 1.0, None]
    assert part.per_round is False and part.warnings == []


def test_a_single_round_is_plotted_without_round_labels_and_no_rows_without_a_plot():
    part = section(run([(X, RIGHT)]))
    assert part.plots[0].labels == ["case ids", "provision keys", "resolution symbols"]
    empty = section(run([(X, RIGHT)], recorded=[{"error": "ValueError: boom"}]))
    assert empty.tables[0].rows == [] and empty.plots == []


def test_the_answer_lists_each_familys_predictions_and_the_replys_f1():
    prediction = {"citation_case_ids": ["001", "064"], "citation_provision_keys": [],
                  "citation_resolution_symbols": ["A/RES/2625(XXV)"], "note": "not a family"}
    assert answer({"prediction": prediction, "f1_all": 0.5}) == \
        "case ids: 001, 064; provision keys: none; resolution symbols: A/RES/2625(XXV) (F1 0.500)"
    assert answer({"prediction": {"citation_case_ids": []}, "f1_all": None}) == "case ids: none (F1 n/a)"
    assert answer({"choice": "A"}) is None and answer({"prediction": "001"}) is None


def test_targets_group_by_case_else_their_own_name():
    assert group(X) == "070"
    assert group({"name": "ICJ_099_Z", "metadata": {}}) == "ICJ_099_Z"
