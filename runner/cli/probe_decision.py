"""``auditpacks probe-decision URL``: conformance probes of a System One decision endpoint.

Prints one line per probe (schema, option order, determinism, option limit, request-size
limit, state window) and exits 0 when none failed, 1 when one failed or was inconclusive,
2 when nothing answers at the URL. While it probes, progress lines (one per check) and the heartbeat
go to stderr as for ``run``. ``--json`` prints the findings as JSON; ``--out`` also
writes them to a file.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from auditpacks.core.io import atomic_write_json
from auditpacks.core.arg_types import integer, number, text
from auditpacks.runner.display.progress import ProgressPrinter
from auditpacks.runner.systemone.decision_probe import CHECKS, FULL_REQUESTS, FULL_SECONDS, PROBE_MODEL, WINDOW_BOUND, probe
from auditpacks.runner.models.errors import RunError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", type=text, help="the System One endpoint, e.g. http://127.0.0.1:8000/v1/systemone")
    parser.add_argument("--model", type=text, default=PROBE_MODEL, help="model name sent (default %(default)s)")
    parser.add_argument("--api-key", type=text, help="sent as a bearer token (default: $SYSTEMONE_API_KEY, if set)")
    parser.add_argument("--timeout", type=number(0.0, above=True), default=30.0,
                        help="seconds per request (default 30)")
    parser.add_argument("--max-requests", type=integer(4), default=FULL_REQUESTS,
                        help="requests the probes may send in all (default %(default)s)")
    parser.add_argument("--seconds", type=number(0.0, above=True), default=FULL_SECONDS,
                        help="time budget in seconds; later probes are 'not run' (default %(default)g)")
    parser.add_argument("--max-options", type=integer(3), default=256,
                        help="most options per question tried (default %(default)s)")
    parser.add_argument("--max-bytes", type=integer(1024), default=4 * 2**20,
                        help="largest request body tried, in bytes (default %(default)s)")
    parser.add_argument("--window-chars", type=integer(1024), default=WINDOW_BOUND,
                        help="longest state tried for the canary, in characters (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument("--out", type=Path, help="also write the findings as JSON to this file")


def main(args: argparse.Namespace) -> int:
    key = args.api_key or os.environ.get("SYSTEMONE_API_KEY")
    with ProgressPrinter(CHECKS["full"], what="probe", label="probe-decision") as progress:
        progress.start([])
        result = probe(args.url, model=args.model, headers={"Authorization": f"Bearer {key}"} if key else None,
                       timeout=args.timeout, max_requests=args.max_requests, seconds=args.seconds,
                       max_options=args.max_options, max_bytes=args.max_bytes, window_chars=args.window_chars,
                       on_check=lambda name, finding: progress.update(
                           {"severity": "ERROR" if finding.get("status") == "failed" else "pass"}))
    if result["checks"]["schema"].get("reachable") is False:
        raise RunError(f"probe-decision: cannot reach {result['url']}: {result['checks']['schema']['detail']}")
    if args.out:
        atomic_write_json(args.out, result)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(f"{result['url']}: {result['requests']} requests")
        for name, check in result["checks"].items():
            print(f"{name.replace('_', ' '):<20} {check['status']:<12} {check.get('detail', '')}")
            for note in check.get("notes", []):
                print(f"{'':<20} {'note':<12} {note}")
    return 1 if result["warnings"] else 0
