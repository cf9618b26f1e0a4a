"""``auditpacks compare RUN_A RUN_B [RUN…]``: paired differences of runs on the same pack and scenarios.

The first run is A; every other run is B in turn. Differences are A − B with paired
bootstrap intervals that resample the benchmark's clusters; each row says whether the
difference is significant, not significant or not testable and by what
(:mod:`auditpacks.judges.statistics.significance`); the scenarios where the runs disagree are listed. ``--json`` prints the same figures as JSON; ``--report``
also writes the report with its comparison section.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from auditpacks.core.io import atomic_write_text
from auditpacks.runner.reporting.labels import what_differs
from auditpacks.runner.reporting.pairing import compare_runs
from auditpacks.runner.reporting.render import decision, number, pct, render, shown_interval, signed_pct
from auditpacks.runner.reporting.report import build_context
from auditpacks.runner.reporting.runs import LoadedRun, load_runs

SHOWN_DISAGREEMENTS = 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run records (or results files, or folders); A first")
    parser.add_argument("--pack", action="append", default=[], type=Path, metavar="PACK.json",
                        help="the pack the runs ran, when it is not beside them")
    parser.add_argument("--json", action="store_true", help="print the comparisons as JSON")
    parser.add_argument("--report", type=Path, metavar="REPORT.html",
                        help="also write the report (.md for Markdown) with these comparisons")


def table(comparison: dict[str, Any]) -> Table:
    out = Table(title=f"A {comparison['a']}  vs  B {comparison['b']}", title_justify="left")
    for name in ("figure", "A", "B", "A − B", "paired 95% CI", "p", "decision"):
        out.add_column(name, justify="left" if name in ("figure", "decision") else "right", no_wrap=name == "decision")
    for f in comparison["figures"]:
        if f.get("note"):
            out.add_row(f"{f['figure']} ({f['note']})", str(f["a"]), str(f["b"]), "–", "–", number(f["p"]),
                        f.get("decision") or "–")
        else:
            out.add_row(f["figure"], pct(f["a"]), pct(f["b"]), signed_pct(f["diff"]), shown_interval(f),
                        number(f["p"]) if f["tested"] else "–", f.get("decision") or "–")
    return out


def comparable_groups(runs: list[LoadedRun]) -> tuple[list[list[LoadedRun]], list[LoadedRun]]:
    """Runs grouped by pack and benchmark, in the order given: the groups of two or more, and the runs
    alone in theirs."""
    groups: dict[tuple[str, str | None], list[LoadedRun]] = {}
    for run in runs:
        groups.setdefault((run.sha256, run.reader.benchmark), []).append(run)
    return [g for g in groups.values() if len(g) > 1], [g[0] for g in groups.values() if len(g) == 1]


def main(args: argparse.Namespace) -> int:
    runs = load_runs(args.runs, args.pack)
    if len(runs) < 2:
        raise ValueError("compare: give at least two runs")
    groups, alone = comparable_groups(runs)
    if any(Path(a).is_dir() for a in args.runs) and groups:  # a folder: compare what can be compared
        for run in alone:
            print(f"auditpacks: warning: {run.label}: no other run of its pack and benchmark here; left out",
                  file=sys.stderr)
        comparisons = [compare_runs(g[0], other) for g in groups for other in g[1:]]
    else:
        comparisons = [compare_runs(runs[0], other) for other in runs[1:]]
    differs = what_differs([r.record for r in runs])
    if differs and not args.json:
        print(differs)
    for c in comparisons:
        for warning in c["warnings"]:
            print(f"auditpacks: warning: {c['b']}: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(comparisons, indent=2, ensure_ascii=False))
    else:
        console = Console(soft_wrap=True)
        for c in comparisons:
            console.print(table(c))
            for f in c["figures"]:
                console.print(f"  {f['figure']}: {decision(f)}", markup=False, highlight=False)
            console.print(f"{c['paired']} paired scenarios ({c['method']}); differences are A − B.", markup=False)
            shown = c["disagreements"][:SHOWN_DISAGREEMENTS]
            console.print(f"{len(c['disagreements'])} scenario(s) where the runs disagree"
                          + (":" if shown else "."), markup=False)
            for d in shown:
                console.print(f"  {d['scenario']}\n    A {d['a']}\n    B {d['b']}", markup=False, highlight=False)
    if args.report:
        fmt = "md" if args.report.suffix.lower() in (".md", ".markdown") else "html"
        atomic_write_text(args.report, render(build_context(runs, comparisons, plots_on=fmt == "html"), fmt))
        print(f"wrote {args.report}", file=sys.stderr if args.json else sys.stdout)
    return 0
