"""Write a run as an Inspect AI eval log (needs the inspect extra), to browse with ``inspect view``.

``auditpacks export inspect RUN --out LOG.eval [--pack PACK.json]``

One sample per scenario (each round of a repeated run an epoch), the grader's verdict as its score, the run's
headline figures as the log's metrics with their intervals; a merged run or a split results file is one log.
See docs/results.md for what is carried over.
"""

from __future__ import annotations

import argparse
from pathlib import Path

RUN_HELP = "the run: its folder (holding one run record), its run record or its results file"
PACK_HELP = "the pack the run ran, for its manifest (default: found beside the run by name and sha256)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", type=Path, metavar="RUN", help=RUN_HELP)
    parser.add_argument("--out", type=Path, required=True,
                        help="the log file to write: .eval (Inspect's own format) or .json")
    parser.add_argument("--pack", type=Path, help=PACK_HELP)


def main(args: argparse.Namespace) -> int:
    from auditpacks.runner.reporting.exports.inspect_log import require_inspect, write_log

    require_inspect()  # before anything is read: a missing extra is one line with the install command
    from auditpacks.runner.reporting.exports.source import load_source

    log = write_log(load_source(args.run, args.pack), args.out)
    metrics = sum(len(s.metrics) for s in log.results.scores)
    print(f"wrote {len(log.samples)} samples and {metrics} metrics to {args.out}")
    print(f"look at it with: inspect view --log-dir {args.out.parent}")
    return 0
