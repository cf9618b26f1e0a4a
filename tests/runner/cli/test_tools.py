"""``auditpacks tools BENCHMARK``: one sub-command per benchmark whose registry entry declares tool conditions,
and ``auditpacks NAME-tools`` as the same command; in process, over a toy benchmark's tools: its actions, their
help, the arguments each is required to have, and what its own commands return."""

from __future__ import annotations

import argparse

import pytest

from auditpacks.core.benchmark import Benchmark
from auditpacks.runner.cli import tools
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


class ToyTools:
    """A benchmark's tools module: one action of its own (``audit --code N``) beside ``run``."""

    ACTIONS = {"audit": "check the toy's leaks"}
    added: list[str] = []

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser, action: str) -> None:
        ToyTools.added.append(action)
        if action == "audit":
            parser.add_argument("--code", type=int)

    @staticmethod
    def main(args: argparse.Namespace) -> int | None:
        return args.code


@pytest.fixture
def toy(monkeypatch) -> argparse.ArgumentParser:
    """``auditpacks tools`` with one benchmark, ``toy``, whose tools are :class:`ToyTools`."""
    monkeypatch.setattr(tools, "BENCHMARKS", {"toy": Benchmark(title="Toy court", builder="toy",
                                                               tools="tests.runner.cli.test_tools:ToyTools")})
    monkeypatch.setattr(tools, "modules", lambda kind: ["toy"] if kind == "tools" else [])
    ToyTools.added = []
    parser = argparse.ArgumentParser(prog="auditpacks tools")
    tools.add_arguments(parser)
    return parser


def test_a_benchmarks_own_action_gets_its_arguments_and_its_plugin(toy):
    args = toy.parse_args(["toy", "audit", "--code", "3"])
    assert (args.benchmark, args.action, args.code, args.plugin) == ("toy", "audit", 3, ToyTools)
    assert ToyTools.added == ["run", "audit"]


@pytest.mark.parametrize("argv, missing", [([], "BENCHMARK"), (["toy"], "action")])
def test_the_benchmark_and_the_action_are_required(toy, capsys, argv, missing):
    with pytest.raises(SystemExit) as stop:
        toy.parse_args(argv)
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip().endswith(f"the following arguments are required: {missing}")


def help_of(parser: argparse.ArgumentParser, argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit):
        parser.parse_args([*argv, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_the_help_lists_each_benchmark_and_its_actions(toy, capsys):
    assert "BENCHMARK ... positional arguments: BENCHMARK toy Toy court: tool conditions" in help_of(toy, [], capsys)
    shown = help_of(toy, ["toy"], capsys)
    assert "run run a pack under one of the benchmark's tool conditions" in shown
    assert "audit check the toy's leaks" in shown


@pytest.mark.parametrize("code, status", [(None, 0), (0, 0), (3, 3)])
def test_an_own_action_returns_what_the_benchmarks_main_returns_or_zero(toy, code, status):
    argv = ["toy", "audit"] + ([] if code is None else ["--code", str(code)])
    assert tools.main(toy.parse_args(argv)) == status
