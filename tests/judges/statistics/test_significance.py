"""Each compared row's decision: interval and test agreeing, the stricter when they disagree, not testable on
fewer than three clusters (rows written by hand)."""

from __future__ import annotations

from auditpacks.judges.statistics.significance import decide, excludes_zero, few_cluster_warnings


def row(ci=None, p=None, *, tested=False, clusters=10, figure="micro agreement"):
    return {"figure": figure, "a": 0.9, "b": 0.5, "diff": 0.4, "ci": ci, "p": p, "tested": tested,
            "test": "McNemar" if tested else None, "clusters": clusters, "note": ""}


def test_an_interval_excludes_zero_only_when_wholly_on_one_side():
    assert excludes_zero([0.1, 0.4]) and excludes_zero([-0.4, -0.01])
    assert not excludes_zero([-0.1, 0.4]) and not excludes_zero([0.0, 0.0])
    assert excludes_zero(None) is None


def test_interval_and_test_agreeing_decide_together():
    got = decide(row([0.1, 0.6], 0.004, tested=True), unit="judgment")
    assert (got["decision"], got["decided_by"]) == ("significant", "interval and McNemar agree")
    got = decide(row([-0.1, 0.6], 0.4, tested=True), unit="judgment")
    assert (got["decision"], got["decided_by"]) == ("not significant", "interval and McNemar agree")


def test_when_they_disagree_the_stricter_holds():
    # the Iustitia case of two runs over a few judgments: an interval off zero beside p 0.5
    got = decide(row([-1.0, -0.5], 0.5, tested=True), unit="judgment")
    assert (got["decision"], got["decided_by"]) == ("not significant", "interval and McNemar disagree: the stricter")
    got = decide(row([-0.2, 0.5], 0.01, tested=True), unit="judgment")
    assert got["decision"] == "not significant"


def test_one_method_alone_decides():
    assert decide(row([0.2, 0.3]), unit="question")["decided_by"] == "paired 95% interval"
    assert decide(row([0.2, 0.3]), unit="question")["decision"] == "significant"
    undefined = decide(row([0.0, 0.0], None, tested=True), unit="judgment")   # no discordant pair
    assert (undefined["decision"], undefined["decided_by"]) == ("not significant",
                                                                "paired 95% interval (McNemar undefined)")
    test_only = decide(row(None, 0.03, tested=True), unit="judgment")
    assert (test_only["decision"], test_only["decided_by"]) == ("significant", "McNemar p < 0.05")
    assert decide(row(None, None), unit="target")["decision"] == "not testable"


def test_fewer_than_three_clusters_is_not_testable_and_the_interval_withheld():
    got = decide(row([0.5, 0.5], 0.001, tested=True, clusters=2), unit="judgment")
    assert (got["decision"], got["decided_by"]) == ("not testable", "only 2 judgments: interval withheld")
    assert got["ci"] is None and got["ci_withheld"] == [0.5, 0.5]
    assert decide(row([0.5, 0.5], clusters=1), unit="question")["decided_by"] == "only 1 question: interval withheld"
    assert decide(row([0.5, 0.6], clusters=3), unit="question")["decision"] == "significant"


def test_few_clusters_warn_once_for_the_comparison_or_once_per_group():
    same = [row(clusters=2), row(clusters=2, figure="macro agreement")]
    assert few_cluster_warnings(same, "judgment") == [
        "only 2 judgments: intervals that resample judgments say almost nothing with fewer than 3"]
    groups = [row(clusters=1, figure="invented rate (en)"), row(clusters=5, figure="invented rate (ja)")]
    assert few_cluster_warnings(groups, "question") == [
        "invented rate (en): only 1 question: intervals that resample questions say almost nothing with fewer than 3"]
    assert few_cluster_warnings([row(clusters=3)], "judgment") == []


def test_an_interval_with_a_missing_end_decides_nothing():
    assert excludes_zero([None, 0.3]) is None and excludes_zero([0.1, None]) is None
    assert excludes_zero([]) is None


def test_a_p_of_exactly_five_percent_is_not_significant():
    got = decide(row(None, 0.05, tested=True), unit="judgment")
    assert (got["decision"], got["decided_by"]) == ("not significant", "McNemar p ≥ 0.05")
    got = decide(row(None, 0.049, tested=True), unit="judgment")
    assert (got["decision"], got["decided_by"]) == ("significant", "McNemar p < 0.05")


def test_a_p_that_belongs_to_no_test_is_ignored():
    got = decide(row([0.2, 0.3], 0.5), unit="question")   # p given, but no test was run for this figure
    assert (got["decision"], got["decided_by"]) == ("significant", "paired 95% interval")


def test_neither_interval_nor_test_says_so():
    got = decide(row(None, None, tested=True), unit="judgment")
    assert (got["decision"], got["decided_by"]) == ("not testable", "no interval and no test defined")


def test_an_unnamed_test_is_called_the_test():
    got = decide({**row(None, 0.01, tested=True), "test": None}, unit="judgment")
    assert got["decided_by"] == "test p < 0.05"


def test_a_single_row_on_few_clusters_is_warned_and_three_clusters_are_enough():
    assert few_cluster_warnings([row(clusters=2)], "target") == [
        "only 2 targets: intervals that resample targets say almost nothing with fewer than 3"]
    groups = [row(clusters=1, figure="F1 (ids)"), row(clusters=3, figure="F1 (names)"), row(clusters=None)]
    assert few_cluster_warnings(groups, "target") == [
        "F1 (ids): only 1 target: intervals that resample targets say almost nothing with fewer than 3"]
    assert few_cluster_warnings([row(clusters=None)], "target") == []
