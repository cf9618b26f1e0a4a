"""``auditpacks tools BENCHMARK ACTION``: a benchmark's tool conditions, found through the registry's ``tools`` entry.

    auditpacks tools BENCHMARK run --pack PACK.json --condition NAME (--base-url URL --target M | --embedded)
                                   --out DIR [--max-steps N] [--limit N] [the benchmark's own flags]
    auditpacks tools BENCHMARK ACTION ...        the benchmark's own commands (e.g. ``leak-audit``)

``auditpacks BENCHMARK-tools ACTION`` is the same command. The plugin module declares ``ACTIONS``
(name → help), ``add_arguments(parser, action)``, ``main(args)`` for its own actions and
``setup(args, pack) -> ToolSetup`` for ``run``.
"""

from __future__ import annotations

import argparse

from auditpacks.core.registry import BENCHMARKS, load, modules
from auditpacks.runner.cli.tools_run import add_run_arguments, run


def add_arguments(parser: argparse.ArgumentParser, benchmark: str | None = None) -> None:
    """The actions of ``benchmark``'s tool conditions, or one sub-command per benchmark that has them."""
    if benchmark is not None:
        _add_actions(parser, benchmark)
        return
    family = parser.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    for name in modules("tools"):
        _add_actions(family.add_parser(name, help=f"{BENCHMARKS[name].title}: tool conditions"), name)


def _add_actions(parser: argparse.ArgumentParser, benchmark: str) -> None:
    plugin = load(BENCHMARKS[benchmark].tools)
    actions = parser.add_subparsers(dest="action", required=True)
    action = actions.add_parser("run", help="run a pack under one of the benchmark's tool conditions")
    plugin.add_arguments(action, "run")
    add_run_arguments(action)
    action.set_defaults(plugin=plugin)
    for name, help_text in plugin.ACTIONS.items():
        action = actions.add_parser(name, help=help_text)
        plugin.add_arguments(action, name)
        action.set_defaults(plugin=plugin)


def main(args) -> int:
    if args.action == "run":
        return run(args, args.plugin)
    return int(args.plugin.main(args) or 0)
