"""``auditpacks report RUN [RUN…] --out report.html``: one self-contained file people read.

HTML (inline CSS, JS and SVG; nothing is fetched) or Markdown (``--format md``, printed
when there is no ``--out``). Runs on the same pack are also compared, pair by pair.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from auditpacks.core.io import atomic_write_text
from auditpacks.runner.reporting.report import MAX_SCENARIOS, build_context
from auditpacks.runner.reporting.render import render
from auditpacks.runner.reporting.runs import load_runs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="a run record (<model>.run.json), its results file, or a folder of runs")
    parser.add_argument("--out", type=Path, help="file to write (required for HTML; Markdown is printed without it)")
    parser.add_argument("--format", choices=("html", "md"), default=None,
                        help="html (default, or from --out's suffix) or md (Markdown, for CI logs)")
    parser.add_argument("--pack", action="append", default=[], type=Path, metavar="PACK.json",
                        help="the pack a run ran, when it is not beside the run (repeatable; matched by sha256)")
    parser.add_argument("--max-scenarios", type=int, default=MAX_SCENARIOS, metavar="N",
                        help=f"scenarios per run in the drill-down (default {MAX_SCENARIOS})")


def output_format(args: argparse.Namespace) -> str:
    if args.format:
        return args.format
    return "md" if args.out is not None and args.out.suffix.lower() in (".md", ".markdown") else "html"


def main(args: argparse.Namespace) -> int:
    fmt = output_format(args)
    if fmt == "html" and args.out is None:
        raise ValueError("report: --out FILE is required for an HTML report (or use --format md)")
    runs = load_runs(args.runs, args.pack)
    text = render(build_context(runs, max_scenarios=args.max_scenarios, plots_on=fmt == "html"), fmt)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    atomic_write_text(args.out, text)
    print(f"wrote {args.out} ({len(runs)} run{'s' if len(runs) != 1 else ''})")
    return 0
