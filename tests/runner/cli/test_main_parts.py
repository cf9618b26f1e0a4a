"""The ``auditpacks`` parser in process: its commands and their help, the benchmark families on fake modules (loaded
only for the command given), the readers and aliases likewise, and ``--version``."""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import importlib.metadata
import sys
import types
from pathlib import Path

import pytest

from auditpacks.runner.cli import main as cli
from auditpacks.runner.cli.run_args import RUN_DESCRIPTION, RUN_EXAMPLES, RUN_USAGE

#: The benchmark families: command → (the registry's kind, the handler its benchmarks get).
FAMILIES = {"build": ("builder", cli._build), "score": ("score", cli._score), "rescore": ("rescore", cli._delegate),
            "export": ("export", cli._export), "registry": ("registry", cli._delegate)}

#: The flag only one family's benchmarks get, and its help.
OWN_FLAG = {"score": ("json", cli.JSON_HELP),
            "build": ("force", "replace an existing pack of other content at --out (it is named on stderr)")}


def fake_module(monkeypatch, name: str, doc: str | None = "Fake ``bench`` module.\n\nMore text.") -> types.ModuleType:
    """A module ``name`` in sys.modules (found by find_spec) whose add_arguments adds ``--flag``."""
    module = types.ModuleType(name, doc)
    module.__spec__ = importlib.machinery.ModuleSpec(name, None)
    module.add_arguments = lambda parser: parser.add_argument("--flag", default="unset")
    monkeypatch.setitem(sys.modules, name, module)
    return module


@pytest.fixture
def benches(monkeypatch) -> dict[str, types.ModuleType]:
    """One fake benchmark, ``fb``, in every family (and none with tools): family → its module."""
    made = {command: fake_module(monkeypatch, f"fake_{kind}") for command, (kind, _) in FAMILIES.items()}
    monkeypatch.setattr(cli, "modules", lambda kind: {"fb": f"fake_{kind}"} if kind != "tools" else {})
    return made


def subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each sub-command's name → its one-line help, as ``--help`` lists them."""
    return {a.dest: a.help for a in subcommands(parser)._choices_actions}


def flag_help(parser: argparse.ArgumentParser) -> str:
    """A parser's ``--help``, unwrapped on one line."""
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=2000, max_help_position=2000)
    return " ".join(parser.format_help().split())


def test_the_commands_and_their_help():
    parser = cli.build_parser()
    assert parser.prog == "auditpacks" and parser.description.startswith("The auditpacks command: build, check, run")
    listed = helps(parser)
    assert {name: listed[name] for name in ("build", "check", "run", "merge", "score", "rescore", "export",
                                            "registry", "serve-decision")} == {
        "build": "build a scenario pack from a benchmark", "check": "validate a scenario pack (exit 1 on any ERROR)",
        "run": "run a pack on a model and grade it",
        "merge": "join the results of --shard runs into one results file and run file",
        "score": "score a benchmark's prediction file", "rescore": "re-score a published benchmark file",
        "export": "write a run's results as benchmark predictions, an Inspect AI log (inspect) or Every Eval Ever "
                  "records (eee)",
        "registry": "build a benchmark's registry from its official source",
        "serve-decision": "serve a local decision model (System One) on 127.0.0.1"}
    assert {name: listed[name] for name in cli.READERS} == {name: text for name, (_, text) in cli.READERS.items()}
    assert listed["icj-tools"] == "the same as: auditpacks tools icj"
    assert "--version show the version and exit" in flag_help(parser)


@pytest.mark.parametrize("argv", [[], ["check"], ["score"], ["merge", "--out", "o"], ["merge", "s"]])
def test_a_missing_command_benchmark_or_argument_is_refused(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.build_parser(argv[0] if argv else None).parse_args(argv)
    assert exc.value.code == 2 and "required" in capsys.readouterr().err


def test_check_and_merge_arguments():
    parser = cli.build_parser()
    check = parser.parse_args(["check", "p.json"])
    assert (check.pack, check.quiet, check.json, check.handler) == (Path("p.json"), False, False, cli._check)
    assert (lambda a: (a.quiet, a.json))(parser.parse_args(["check", "p.json", "--quiet", "--json"])) == (True, True)
    merge = parser.parse_args(["merge", "a", "b", "--out", "o", "--pack", "p.json", "--model", "m", "--json"])
    assert (merge.shards, merge.out, merge.pack, merge.model, merge.json, merge.handler) == (
        [Path("a"), Path("b")], Path("o"), Path("p.json"), "m", True, cli._merge)
    bare = parser.parse_args(["merge", "a", "--out", "o"])
    assert (bare.pack, bare.model, bare.json) == (None, None, False)
    shown = flag_help(subcommands(parser).choices["merge"])
    for text in ("SHARD_DIR [SHARD_DIR ...]", "SHARD_DIR the --out folder of each shard run",
                 "--out OUT folder for the merged files",
                 "--pack PACK the pack the shards ran: checked, and the headline figures recomputed",
                 "--model MODEL which model's runs to merge, when a folder holds several", f"--json {cli.JSON_HELP}"):
        assert text in shown
    shown = flag_help(subcommands(parser).choices["check"])
    assert "--quiet print ERROR and WARN lines only" in shown
    assert "--json print the findings and counts as JSON" in shown


def test_run_keeps_its_usage_examples_and_json_flag():
    parser = cli.build_parser("run")
    run = subcommands(parser).choices["run"]
    assert (run.usage, run.description, run.epilog) == (RUN_USAGE, RUN_DESCRIPTION, RUN_EXAMPLES)
    assert run.formatter_class is argparse.RawDescriptionHelpFormatter
    args = parser.parse_args(["run", "--pack", "p.json", "--json"])
    assert (args.json, args.handler) == (True, cli._run)
    assert parser.parse_args(["run", "--pack", "p.json"]).json is False
    assert cli.JSON_HELP == "print the figures as JSON on stdout instead of the table"
    assert f"--json {cli.JSON_HELP}" in " ".join(run.format_help().split())


@pytest.mark.parametrize("command", sorted(FAMILIES))
def test_a_family_loads_its_modules_only_for_its_own_command(benches, command):
    _, handler = FAMILIES[command]
    unloaded = cli.build_parser("check").parse_args([command, "fb"])
    assert unloaded.benchmark == "fb" and not hasattr(unloaded, "handler")
    parser = cli.build_parser(command)
    args = parser.parse_args([command, "fb", "--flag", "x"])
    assert (args.command, args.benchmark, args.flag, args.handler, args.module) == (
        command, "fb", "x", handler, benches[command])
    family = subcommands(subcommands(parser).choices[command])
    assert helps(subcommands(parser).choices[command])["fb"] == "Fake bench module."
    assert family.metavar == "BENCHMARK" and family.dest == "benchmark"
    bench = family.choices["fb"]
    assert (bench.get_default("json"), bench.get_default("force")) == (
        False if command == "score" else None, False if command == "build" else None)
    if command in OWN_FLAG:
        name, text = OWN_FLAG[command]
        assert f"--{name} {text}" in flag_help(bench)
        assert getattr(parser.parse_args([command, "fb", f"--{name}"]), name) is True


def test_export_offers_the_general_formats_beside_each_benchmarks_own(benches):
    for command in ("check", "export"):  # loaded or not, every benchmark and format is offered
        parser = cli.build_parser(command)
        assert set(subcommands(subcommands(parser).choices["export"]).choices) == {"fb", "inspect", "eee"}
    args = parser.parse_args(["export", "inspect", "r.json", "--out", "o.eval"])
    assert (args.handler, args.module) == (cli._export, importlib.import_module(cli.EXPORT_FORMATS["inspect"]))


def test_a_module_without_a_docstring_gets_an_empty_help(monkeypatch):
    fake_module(monkeypatch, "fake_undocumented", None)
    monkeypatch.setattr(cli, "modules", lambda kind: {"fb": "fake_undocumented"} if kind == "score" else {})
    assert helps(subcommands(cli.build_parser("score")).choices["score"])["fb"] == ""


def test_only_installed_modules_are_offered(monkeypatch):
    fake_module(monkeypatch, "fake_installed")
    assert cli._optional({"here": "fake_installed", "gone": "auditpacks.no_such_module"}) == {"here": "fake_installed"}


@pytest.mark.parametrize("command", sorted(cli.READERS))
def test_a_reader_is_loaded_only_for_its_own_command(command):
    reader = subcommands(cli.build_parser(command)).choices[command]
    assert reader.get_default("handler") is cli._delegate
    assert reader.get_default("module") is importlib.import_module(cli.READERS[command][0])
    assert subcommands(cli.build_parser("check")).choices[command].get_default("handler") is None


def test_the_tools_alias_and_serve_decision_load_only_when_named(monkeypatch):
    from auditpacks.runner.cli import tools
    from auditpacks.runner.systemone import serve_decision

    monkeypatch.setattr(cli, "modules", lambda kind: {"fb": "fake_tools"} if kind == "tools" else {})
    added = []
    monkeypatch.setattr(tools, "add_arguments", lambda parser, bench: added.append((parser.prog, bench)))
    assert helps(cli.build_parser())["fb-tools"] == "the same as: auditpacks tools fb" and added == []
    alias = subcommands(cli.build_parser("fb-tools")).choices["fb-tools"]
    assert added == [("auditpacks fb-tools", "fb")]
    assert (alias.get_default("handler"), alias.get_default("module")) == (cli._delegate, tools)
    assert subcommands(cli.build_parser()).choices["serve-decision"].get_default("handler") is None
    serve = subcommands(cli.build_parser("serve-decision")).choices["serve-decision"]
    assert serve.get_default("handler") is serve_decision.main


def test_version_prints_the_installed_version_on_stdout(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.build_parser().parse_args(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"auditpacks {importlib.metadata.version('auditpacks')}\n"
    version = next(a for a in cli.build_parser()._actions if isinstance(a, cli._Version))
    assert (version.nargs, version.option_strings) == (0, ["--version"])
