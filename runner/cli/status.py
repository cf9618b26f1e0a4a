"""``auditpacks status DIR...``: done / total / errors / rate / ETA of each run folder (a shard each) and overall.

Read from the journals while the runs go on, without taking their locks (see
:mod:`runner.display.watch`); one line per run and a total, or ``--json``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from auditpacks.runner.display.watch import Progress, folder_progress, overall


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folders", nargs="+", type=Path, metavar="DIR", help="run folders (--out of each shard)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h{rest // 60:02d}m" if hours else (f"{rest // 60}m{rest % 60:02d}s" if rest >= 60 else f"{rest}s")


def line(row: Progress, width: int) -> str:
    total = "?" if row.total is None else str(row.total)
    rate = "-" if row.rate is None else f"{row.rate:.2f}/s"
    state = "finished" if row.finished else "stopped" if row.stopped else f"eta {duration(row.eta)}"
    return f"{row.name:<{width}}  {row.done:>6}/{total:<6}  {row.errors:>5} errors  {rate:>9}  {state}"


def main(args: argparse.Namespace) -> int:
    rows = [row for folder in args.folders for row in folder_progress(folder)]
    total = overall(rows)
    if args.json:
        print(json.dumps({"runs": [r.as_dict() for r in rows], "total": total.as_dict()}, indent=2))
        return 0
    width = max(len(r.name) for r in [*rows, total])
    for row in [*rows, total]:
        print(line(row, width))
    return 0
