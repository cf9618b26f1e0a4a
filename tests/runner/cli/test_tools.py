"""``auditpacks tools BENCHMARK``: one sub-command per benchmark whose registry entry declares tool conditions,
and ``auditpacks NAME-tools`` as the same command."""

from __future__ import annotations

import pytest

from auditpacks.runner.cli.main import build_parser


def test_the_benchmarks_with_tool_conditions_are_the_registrys():
    parser = build_parser("tools")
    args = parser.parse_args(["tools", "icj", "leak-audit", "--graph", "g", "--cutoff", "1986-06-27"])
    assert (args.benchmark, args.action, args.cutoff) == ("icj", "leak-audit", ["1986-06-27"])
    with pytest.raises(SystemExit):
        parser.parse_args(["tools", "jacite", "run"])  # jacite declares no tool conditions


def test_the_alias_takes_the_same_arguments():
    common = ["run", "--graph", "g", "--pack", "p.json", "--condition", "Parametric", "--embedded", "--out", "o"]
    via_tools = vars(build_parser("tools").parse_args(["tools", "icj", *common]))
    via_alias = vars(build_parser("icj-tools").parse_args(["icj-tools", *common]))
    for args in (via_tools, via_alias):
        args.pop("command"), args.pop("benchmark", None), args.pop("handler"), args.pop("module")
    assert via_tools == via_alias and via_tools["max_steps"] == 8 and via_tools["no_response_cache"] is False
