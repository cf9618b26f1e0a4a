"""The ICJ Citation Graph's tool commands: ``describe``, ``snapshot`` and ``leak-audit``, and the flags every
tool command takes (the graph copy, its mapping, the snapshot cache, the protocol's conditions).

``leak-audit`` exits 1 when any tool returned a marker of material dated on or after a cutoff, or
anything else dated on or after it (see ``audit``).
See docs/icj-tools.md.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from auditpacks.core.errors import UserError
from auditpacks.packs.readreport import add_allow_partial

#: The commands besides ``run``: name → what it does.
ACTIONS = {"describe": "which table of the graph copy is which, with row counts and the read report",
           "snapshot": "build the per-cutoff snapshots (cached)",
           "leak-audit": "plant dated markers on and after each cutoff and fire generated calls at every tool"}


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "auditpacks" / "icj-snapshots"


def add_arguments(parser: argparse.ArgumentParser, action: str) -> None:
    """The flags of ``action`` (``run`` or one of :data:`ACTIONS`)."""
    parser.add_argument("--graph", type=Path, required=True, help="local copy of the ICJ Citation Graph")
    parser.add_argument("--mapping", type=Path, help="YAML naming tables or columns the copy names otherwise")
    add_allow_partial(parser)
    if action == "describe":
        return
    parser.add_argument("--cache", type=Path, default=None, help=f"snapshot folder (default {default_cache()}; "
                        "the leak audit's default is a temporary folder)")
    if action in ("run", "leak-audit"):
        parser.add_argument("--protocol", type=Path, help="the benchmark's protocol/ folder (conditions.json)")
        parser.add_argument("--tool-alias", action="append", default=[], metavar="NAME=TOOL",
                            help="answer the copy's tool NAME with TOOL (repeatable)")
    if action == "run":
        return
    parser.add_argument("--cutoff", action="append", default=[], metavar="YYYY-MM-DD")
    parser.add_argument("--targets", type=Path, help="the benchmark's data/test.jsonl: one cutoff per target date")
    if action == "leak-audit":
        parser.add_argument("--examples", type=int, default=25, help="generated calls per tool and cutoff")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")


def _cutoffs(args) -> list[str]:
    from auditpacks.packs.icj.graph.snapshot import check_cutoff
    from auditpacks.packs.icj.targets import load_targets

    found = [check_cutoff(c) for c in args.cutoff]
    if args.targets:
        found += [t.decision_date for t in load_targets(args.targets) if t.decision_date]
    if not found:
        raise UserError("no cutoff: give --cutoff or --targets (a test.jsonl with target_decision_date)")
    return sorted(set(found))


def main(args) -> int:
    """Run ``args.action`` (one of :data:`ACTIONS`); its exit code."""
    from auditpacks.packs.icj.graph.reader import read_graph

    graph = read_graph(args.graph, args.mapping, allow_partial=args.allow_partial)
    if args.action == "describe":
        counts = {role: table.num_rows for role, table in graph.tables.items()}
        listed = graph.manifest.get("counts", {}) if isinstance(graph.manifest.get("counts"), dict) else {}
        print(json.dumps({"tables": graph.found, "rows": counts, "manifest_counts": listed,
                          "read_report": graph.report, "source_hash": graph.source_hash},
                         indent=2, sort_keys=True))
        return 0
    cutoffs = _cutoffs(args)
    if args.action == "snapshot":
        from auditpacks.packs.icj.graph.snapshot import snapshot_for

        for cutoff in cutoffs:
            snapshot = snapshot_for(graph, cutoff, args.cache or default_cache())
            print(f"{cutoff}: {snapshot.folder} ({snapshot.info['counts']['documents']} documents, "
                  f"{snapshot.info['lexical']['passages']} passages)")
        return 0
    return _leak_audit(args, graph, cutoffs)


def _leak_audit(args, graph, cutoffs: list[str]) -> int:
    from auditpacks.packs.icj.tools.audit import leak_audit
    from auditpacks.packs.icj.tools.catalogue import conditions, parse_aliases

    chosen = conditions(args.protocol, parse_aliases(args.tool_alias))
    tools = {(tool.name, tool.does): tool for group in chosen.values() for tool in group}
    report = leak_audit(graph, cutoffs, list(tools.values()), examples=args.examples, cache=args.cache)
    summary = report.summary()
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        verdict = "passed" if report.passed else f"FAILED: {len(report.leaks)} leaking calls"
        print(f"leak audit {verdict} ({len(cutoffs)} cutoffs, {len(tools)} tools, {report.calls} calls; "
              f"{report.withheld_clean} clean results the guard would withhold)")
        seen = summary["found"]
        print(f"  planted {len(summary['planted'])} dated marker sets; seen {len(seen)} times at a cutoff "
              f"({sum(not f['leak'] for f in seen)} of earlier material, allowed; {sum(f['leak'] for f in seen)} "
              "of material dated on or after it)")
        for leak in summary["first_leaks"]:
            print(f"  {leak['cutoff']} {leak['tool']} {json.dumps(leak['arguments'], ensure_ascii=False)}: "
                  f"{leak['finding']}")
    return 0 if report.passed else 1
