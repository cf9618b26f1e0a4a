"""A panel of checklist judges on the same transcripts: aggregated verdicts, agreement, and the disagreements.

Each judge's verdict per scenario is ``pass``, ``fail`` or None (ungraded or ERROR). The
**majority** verdict counts the graded verdicts (a tie is ``tie``); the **weighted** verdict
weighs each judge by its qualification (:data:`WEIGHTS`: qualified 1, unchecked 0.5, not
qualified 0; when every judge that graded a scenario weighs 0, each weighs 1). Agreement is
Krippendorff's alpha over all judges (nominal; ungraded left out; the ``krippendorff``
package) and Cohen's kappa for each pair of judges over the scenarios both graded.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Mapping, Sequence

from auditpacks.judges.trust.qualification import kappa

WEIGHTS = {"qualified": 1.0, "unchecked": 0.5, "not qualified": 0.0}
TIE = "tie"


def majority(verdicts: Sequence[str | None]) -> str | None:
    graded = [v for v in verdicts if v is not None]
    passes, fails = graded.count("pass"), graded.count("fail")
    return None if not graded else "pass" if passes > fails else "fail" if fails > passes else TIE


def weighted(verdicts: Sequence[str | None], statuses: Sequence[str]) -> str | None:
    """The verdict weighted by each judge's qualification status."""
    pairs = [(v, WEIGHTS.get(s, WEIGHTS["unchecked"])) for v, s in zip(verdicts, statuses) if v is not None]
    if not pairs:
        return None
    if not any(w for _, w in pairs):
        pairs = [(v, 1.0) for v, _ in pairs]
    passes = sum(w for v, w in pairs if v == "pass")
    fails = sum(w for v, w in pairs if v == "fail")
    return "pass" if passes > fails else "fail" if fails > passes else TIE


def alpha(table: Sequence[Sequence[str | None]]) -> float | None:
    """Krippendorff's alpha (nominal) of ``table`` (one row per judge, one column per scenario); None when
    undefined (fewer than two judges, or no scenario graded by two of them, or no variation at all)."""
    import krippendorff
    import numpy as np

    codes = {"pass": 1.0, "fail": 0.0}
    data = np.array([[codes.get(v, np.nan) if v is not None else np.nan for v in row] for row in table], dtype=float)
    pairable = (np.sum(~np.isnan(data), axis=0) >= 2) if data.size else np.array([])
    if len(table) < 2 or not pairable.any() or len(set(data[~np.isnan(data)])) < 2:
        return None
    value = float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    return None if math.isnan(value) else value


def panel_figures(names: Sequence[str], judges: Sequence[str], table: Sequence[Sequence[str | None]],
                  statuses: Sequence[str]) -> dict[str, Any]:
    """``table[j][i]``: judge ``judges[j]``'s verdict on scenario ``names[i]``; ``statuses[j]`` its qualification."""
    columns = list(zip(*table)) if table else []
    pairwise = []
    for a, b in itertools.combinations(range(len(judges)), 2):
        both = [(x, y) for x, y in zip(table[a], table[b]) if x is not None and y is not None]
        pairwise.append({"judges": [judges[a], judges[b]], "scenarios": len(both),
                         "agree": sum(x == y for x, y in both),
                         "kappa": kappa([x for x, _ in both], [y for _, y in both])})
    disagreements = [{"scenario": name, "verdicts": dict(zip(judges, column))}
                     for name, column in zip(names, columns) if len({v for v in column if v is not None}) > 1]
    return {
        "judges": [{"model": j, "qualification": s} for j, s in zip(judges, statuses)],
        "scenarios": len(names),
        "majority": _counts([majority(c) for c in columns]),
        "weighted": _counts([weighted(c, statuses) for c in columns]),
        "krippendorff_alpha": alpha(table),
        "pairwise_kappa": pairwise,
        "disagreements": disagreements,
    }


def _counts(verdicts: Sequence[str | None]) -> dict[str, int]:
    out: dict[str, int] = {}
    for verdict in verdicts:
        key = verdict or "ungraded"
        out[key] = out.get(key, 0) + 1
    return out


def summary_line(figures: Mapping[str, Any]) -> str:
    value = figures["krippendorff_alpha"]
    shown = "undefined" if value is None else f"{value:.2f}"
    return (f"judge panel of {len(figures['judges'])}: Krippendorff's alpha {shown}; judges disagree on "
            f"{len(figures['disagreements'])} of {figures['scenarios']} scenarios (listed in the run file under "
            "summary.headline.panel.disagreements)")


def disagreement_lines(figures: Mapping[str, Any], at_most: int = 50) -> list[str]:
    """One line per scenario on which the judges disagree (the first ``at_most``), for a human to read."""
    rows = figures["disagreements"]
    lines = [f"judges disagree on {row['scenario']}: "
             + ", ".join(f"{judge} {verdict or 'ungraded'}" for judge, verdict in row["verdicts"].items())
             for row in rows[:at_most]]
    if len(rows) > at_most:
        lines.append(f"judges disagree on {len(rows) - at_most} more scenarios (see the run file)")
    return lines
