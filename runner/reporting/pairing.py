"""Two runs of one pack, paired scenario by scenario, and their differences (run A minus run B).

Runs of different packs (sha256) are refused; runs over different scenario sets are
compared on the scenarios both ran, with a warning. A scenario that is an ERROR in
either run leaves the paired analysis (a failed call is not an answer) and is counted.
The figures are the run's benchmark's paired statistic (the registry's ``paired``),
else the pass rate with scenarios as the bootstrap's clusters.
"""

from __future__ import annotations

from typing import Any

from auditpacks.core.errors import PackError
from auditpacks.core.benchmark import Paired
from auditpacks.core.registry import load
from auditpacks.judges.statistics.compare import compare_choices, paired_row
from auditpacks.judges.figures import ERROR, UNGRADED, question_group
from auditpacks.judges.reader import Reader
from auditpacks.judges.statistics.significance import decide, few_cluster_warnings
from auditpacks.runner.reporting.outcomes import answer, answer_key, group
from auditpacks.runner.reporting.runs import LoadedRun

#: The comparison of runs no benchmark's plugin reads: pass rate, resampling scenarios.
GENERIC = Paired("scenario", "", "; McNemar exact test on discordant scenarios")


def compare_runs(a: LoadedRun, b: LoadedRun, *, round_index: int = 0) -> dict[str, Any]:
    """Paired figures, warnings and the scenarios where the two runs disagree."""
    if a.sha256 != b.sha256:
        raise PackError(f"{a.record_path} ran {a.pack.path.name} (sha256 {a.sha256[:12]}…) and "
                        f"{b.record_path} ran {b.record.pack.name} (sha256 {b.sha256[:12]}…): "
                        "runs of different packs cannot be compared")
    if a.reader.benchmark != b.reader.benchmark:
        raise PackError(f"{a.record_path} was graded by {a.judge} and {b.record_path} by {b.judge}: "
                        "compare runs graded the same way")
    results_a = {r["scenario_name"]: r for r in a.rounds[round_index]}
    results_b = {r["scenario_name"]: r for r in b.rounds[round_index]}
    common = [name for name in results_a if name in results_b]
    warnings = []
    only_a, only_b = len(results_a) - len(common), len(results_b) - len(common)
    if only_a or only_b:
        warnings.append(f"the runs cover different scenarios: compared on the {len(common)} both ran "
                        f"({only_a} only in A, {only_b} only in B)")
    if len(a.rounds) > 1 or len(b.rounds) > 1:
        warnings.append(f"repeated runs: compared on round {round_index + 1} of each")
    reader = a.reader
    outcome = reader.outcome
    paired, errors, disagreements = [], 0, []
    for name in common:
        ra, rb, scenario = results_a[name], results_b[name], a.scenarios[name]
        if answer_key(reader, ra) != answer_key(reader, rb):
            disagreements.append({"scenario": name, "group": group(reader, scenario),
                                  "a": f"{outcome(ra)}: {answer(reader, ra)}",
                                  "b": f"{outcome(rb)}: {answer(reader, rb)}"})
        if ERROR in (outcome(ra), outcome(rb)):
            errors += 1
            continue
        paired.append((scenario, ra, rb))
    if errors:
        warnings.append(f"{errors} scenario(s) with an ERROR in either run left out of the paired figures")
    how = reader.paired or GENERIC
    figures = load(how.statistic)(paired) if how.statistic else _pass_rate(paired, reader)
    figures = [decide(row, unit=how.unit) for row in figures]
    warnings += few_cluster_warnings(figures, how.unit) or _runs_cluster_warnings(a, b, how.unit)
    return {"a": a.label, "b": b.label, "benchmark": reader.benchmark, "pack": a.pack.path.name,
            "sha256": a.sha256, "scenarios": len(common), "paired": len(paired), "only_a": only_a, "only_b": only_b,
            "errors": errors, "method": how.method, "figures": figures, "warnings": warnings,
            "disagreements": disagreements}


def _runs_cluster_warnings(a: LoadedRun, b: LoadedRun, unit: str) -> list[str]:
    """The few-clusters warnings the runs' own summaries carry, once each."""
    said = {name: [w for w in run.reader.recorded(run.record).warnings
                   if isinstance(w, str) and w.startswith("only ") and f"{unit}s" in w]
            for name, run in (("A", a), ("B", b))}
    both = [w for w in said["A"] if w in said["B"]]
    return both + [f"run {name}: {w}" for name, ws in said.items() for w in ws if w not in both]


def _pass_rate(paired: list[tuple], reader: Reader) -> list[dict[str, Any]]:
    rows = [{"cluster": s["name"], "question": question_group(s, reader.question), "a": ra.get("severity") == "pass",
             "b": rb.get("severity") == "pass"} for s, ra, rb in paired
            if UNGRADED not in (reader.outcome(ra), reader.outcome(rb))]
    stats = compare_choices(rows)  # ungraded in either run: left out of both, so A−B mirrors B−A
    return [paired_row("pass rate", stats["micro"], stats["mcnemar_p"], tested=True, clusters=stats["clusters"])]
