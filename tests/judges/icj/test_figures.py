"""ICJ's pooled figures: per citation family F1 (with its interval over targets and the TP/FP/FN it pools), precision
and recall, then the counts of scored and partial answers, and truncated or skipped ones only when there are any."""

from __future__ import annotations

from auditpacks.judges.icj.figures import figures

F1_CI = "95% CI, bootstrap over targets"
SCORED = {"name": "scored", "value": 3, "unit": "count", "interval": None, "interval_name": None,
          "meaning": "targets with a parsed answer", "group": "", "better": ""}
PARTIAL = {**SCORED, "name": "partial", "value": 1, "meaning": "answers with a missing or bad field"}


def rows(h):
    return [f.to_dict() for f in figures(h)]


def test_each_family_gives_f1_with_its_counts_and_interval_then_precision_and_recall():
    # cases: TP 2, FP 2, FN 1 -> P 2/4, R 2/3, F1 4/7
    h = {"case_ids": {"tp": 2, "fp": 2, "fn": 1, "precision": 0.5, "recall": 2 / 3, "f1": 4 / 7,
                      "f1_bootstrap95": [0.4, 0.9]},
         "scored": 3, "partial": 1}
    assert rows(h) == [
        {"name": "F1", "value": 4 / 7, "unit": "%", "interval": [0.4, 0.9], "interval_name": F1_CI,
         "meaning": "pooled over targets (TP 2, FP 2, FN 1)", "group": "case_ids", "better": "higher"},
        {"name": "precision", "value": 0.5, "unit": "%", "interval": None, "interval_name": None,
         "meaning": "cited items that are in the reference", "group": "case_ids", "better": "higher"},
        {"name": "recall", "value": 2 / 3, "unit": "%", "interval": None, "interval_name": None,
         "meaning": "reference items that were cited", "group": "case_ids", "better": "higher"},
        SCORED, PARTIAL]


def test_families_keep_the_headlines_order_and_missing_counts_read_as_zero():
    h = {"valid": 2, "resolution_symbols": {"f1": None, "f1_bootstrap95": None},
         "provision_keys": {"f1": 0.5, "tp": 1}, "scored": 3, "partial": 1}
    out = rows(h)
    assert [(r["name"], r["group"]) for r in out[:6]] == [
        ("F1", "resolution_symbols"), ("precision", "resolution_symbols"), ("recall", "resolution_symbols"),
        ("F1", "provision_keys"), ("precision", "provision_keys"), ("recall", "provision_keys")]
    assert out[0]["meaning"] == "pooled over targets (TP 0, FP 0, FN 0)"   # nothing to divide: n/a, not 0
    assert [out[i]["value"] for i in range(3)] == [None, None, None] and out[0]["interval"] is None
    assert out[3]["meaning"] == "pooled over targets (TP 1, FP 0, FN 0)"


def test_entries_that_are_not_a_family_give_no_family_figures():
    h = {"scored": 3, "partial": 1, "valid": 2, "warnings": ["few targets"], "notes": {"tp": 1}}
    assert rows(h) == [SCORED, PARTIAL]


def test_truncated_and_skipped_are_shown_only_when_there_are_some():
    truncated = {**SCORED, "name": "truncated", "value": 2,
                 "meaning": "answers cut off at the output-token limit (what came before the cut is scored)"}
    skipped = {**SCORED, "name": "skipped", "value": 4, "meaning": "targets not run"}
    base = {"scored": 3, "partial": 1}
    assert rows({**base, "truncated": 2, "skipped": 4}) == [SCORED, PARTIAL, truncated, skipped]
    assert rows({**base, "truncated": 0, "skipped": 0}) == [SCORED, PARTIAL]
    assert rows({**base, "skipped": 4}) == [SCORED, PARTIAL, skipped]


def test_counts_a_headline_lacks_are_shown_as_not_available():
    assert [(r["name"], r["value"]) for r in rows({})] == [("scored", None), ("partial", None)]
