"""ICJ's pooled figures: precision, recall and F1 per citation family (pooled over targets), and counts.

F1 carries its interval from the headline (the bootstrap over targets) in the summary, the report and
``compare`` alike; precision and recall carry none."""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.judges.figures import Figure, interval, number


def figures(h: Mapping[str, Any]) -> list[Figure]:
    """The citations headline (``citations.headline``) as figures."""
    rows = []
    for family, c in h.items():
        if not (isinstance(c, Mapping) and "f1" in c):
            continue
        counts = f"pooled over targets (TP {c.get('tp', 0)}, FP {c.get('fp', 0)}, FN {c.get('fn', 0)})"
        rows += [Figure("F1", number(c.get("f1")), interval=interval(c.get("f1_bootstrap95")),
                        interval_name="95% CI, bootstrap over targets", meaning=counts, group=family, better="higher"),
                 Figure("precision", number(c.get("precision")), meaning="cited items that are in the reference",
                        group=family, better="higher"),
                 Figure("recall", number(c.get("recall")), meaning="reference items that were cited", group=family,
                        better="higher")]
    rows += [Figure("scored", number(h.get("scored")), "count", meaning="targets with a parsed answer"),
             Figure("partial", number(h.get("partial")), "count", meaning="answers with a missing or bad field")]
    rows += [Figure(key, number(h.get(key)), "count", meaning=meaning) for key, meaning in (
        ("truncated", "answers cut off at the output-token limit (what came before the cut is scored)"),
        ("skipped", "targets not run")) if h.get(key)]
    return rows
