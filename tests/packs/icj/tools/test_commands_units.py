"""The ICJ tool commands on stand-in graphs and audits (fast): each action's flags and help, the cutoffs from
``--cutoff`` and ``--targets``, and what ``describe``, ``snapshot`` and ``leak-audit`` print and return."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.core.errors import UserError
from auditpacks.packs.icj import targets as targets_module
from auditpacks.packs.icj.graph import reader, snapshot
from auditpacks.packs.icj.tools import audit, commands
from auditpacks.packs.icj.tools.commands import ACTIONS, add_arguments, default_cache, main

PROTOCOL = Path("tests/fixtures/icj/protocol")
CACHE_HELP = "snapshot folder (default {}; the leak audit's default is a temporary folder)"
HELP = {
    "--graph": "local copy of the ICJ Citation Graph",
    "--mapping": "YAML naming tables or columns the copy names otherwise",
    "--protocol": "the benchmark's protocol/ folder (conditions.json)",
    "--tool-alias": "answer the copy's tool NAME with TOOL (repeatable)",
    "--targets": "the benchmark's data/test.jsonl: one cutoff per target date",
    "--examples": "generated calls per tool and cutoff",
    "--json": "print the report as JSON",
}
FLAGS = {
    "describe": ["--graph", "--mapping", "--allow-partial"],
    "snapshot": ["--graph", "--mapping", "--allow-partial", "--cache", "--cutoff", "--targets"],
    "leak-audit": ["--graph", "--mapping", "--allow-partial", "--cache", "--protocol", "--tool-alias", "--cutoff",
                   "--targets", "--examples", "--json"],
    "run": ["--graph", "--mapping", "--allow-partial", "--cache", "--protocol", "--tool-alias"],
}


def parser_for(action):
    parser = argparse.ArgumentParser(prog=f"auditpacks tools icj {action}")
    add_arguments(parser, action)
    return parser


def parse(action, *argv):
    args = parser_for(action).parse_args(list(argv))
    args.action = action
    return args


def test_the_actions_are_describe_snapshot_and_leak_audit():
    assert list(ACTIONS) == ["describe", "snapshot", "leak-audit"]


@pytest.mark.parametrize("action", list(FLAGS))
def test_each_action_takes_its_flags_each_with_help(action, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    actions = {a.option_strings[-1]: a for a in parser_for(action)._actions if a.option_strings != ["-h", "--help"]}
    assert list(actions) == FLAGS[action]
    for flag, action_ in actions.items():
        expected = CACHE_HELP.format(default_cache()) if flag == "--cache" else HELP.get(flag)
        assert action_.help == expected or (flag == "--allow-partial" and action_.help)
    assert actions["--graph"].required and not any(a.required for f, a in actions.items() if f != "--graph")


def test_paths_lists_and_numbers_are_parsed_as_such():
    args = parse("leak-audit", "--graph", "g", "--mapping", "m.yaml", "--protocol", "p", "--targets", "t.jsonl",
                 "--cache", "c", "--cutoff", "1986-06-27", "--cutoff", "2004-07-09", "--tool-alias", "a=get_case",
                 "--tool-alias", "b=find_case", "--examples", "3", "--json")
    assert (args.graph, args.mapping, args.protocol, args.targets, args.cache) == (
        Path("g"), Path("m.yaml"), Path("p"), Path("t.jsonl"), Path("c"))
    assert args.cutoff == ["1986-06-27", "2004-07-09"] and args.tool_alias == ["a=get_case", "b=find_case"]
    assert args.examples == 3 and args.json is True
    plain = parse("leak-audit", "--graph", "g")
    assert (plain.mapping, plain.protocol, plain.targets, plain.cache) == (None, None, None, None)
    assert (plain.cutoff, plain.tool_alias, plain.examples, plain.json) == ([], [], 25, False)
    assert parse("snapshot", "--graph", "g").cutoff == []
    assert parse("run", "--graph", "g").tool_alias == []


def test_usage_shows_what_each_flag_takes():
    usage = parser_for("leak-audit").format_usage()
    assert "--cutoff YYYY-MM-DD" in usage and "--tool-alias NAME=TOOL" in usage and "--graph GRAPH" in usage
    assert "--cutoff YYYY-MM-DD" in parser_for("snapshot").format_usage()


def test_without_graph_the_command_is_refused(capsys):
    with pytest.raises(SystemExit):
        parser_for("describe").parse_args([])
    assert "the following arguments are required: --graph" in capsys.readouterr().err


def test_the_snapshot_cache_is_under_the_user_s_cache_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache() == tmp_path / "xdg" / "auditpacks" / "icj-snapshots"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache() == tmp_path / "home" / ".cache" / "auditpacks" / "icj-snapshots"


class Graph:
    """What the commands read of a graph."""

    def __init__(self, manifest):
        self.tables = {"cases": SimpleNamespace(num_rows=3), "passages": SimpleNamespace(num_rows=63)}
        self.manifest, self.found, self.source_hash = manifest, {"cases": "data/cases"}, "abc123"
        self.report = {"warnings": [], "skipped": []}


@pytest.fixture
def graphs(monkeypatch):
    """``read_graph`` answering with a stand-in graph; the calls it got."""
    calls = []

    def read_graph(root, mapping=None, *, allow_partial=False):
        calls.append((root, mapping, allow_partial))
        return graphs.graph
    graphs = SimpleNamespace(graph=Graph({"counts": {"cases": 3}}), calls=calls)
    monkeypatch.setattr(reader, "read_graph", read_graph)
    return graphs


@pytest.mark.parametrize("manifest, listed", [({"counts": {"cases": 3}}, {"cases": 3}), ({"counts": [3]}, {}),
                                              ({}, {})])
def test_describe_prints_tables_rows_and_declared_counts(graphs, capsys, manifest, listed):
    graphs.graph = Graph(manifest)
    assert main(parse("describe", "--graph", "g", "--mapping", "m.yaml", "--allow-partial")) == 0
    expected = {"tables": {"cases": "data/cases"}, "rows": {"cases": 3, "passages": 63}, "manifest_counts": listed,
                "read_report": {"warnings": [], "skipped": []}, "source_hash": "abc123"}
    assert capsys.readouterr().out == json.dumps(expected, indent=2, sort_keys=True) + "\n"
    assert graphs.calls == [(Path("g"), Path("m.yaml"), True)]


def dated(*dates):
    return lambda path: [SimpleNamespace(decision_date=d) for d in dates]


def test_cutoffs_come_from_flags_and_targets_together_sorted_once(graphs, monkeypatch, tmp_path, capsys):
    built = []

    def snapshot_for(graph, cutoff, cache):
        built.append((cutoff, cache))
        return SimpleNamespace(folder=Path(cache) / f"{cutoff}_abc", info={"counts": {"documents": 13},
                                                                         "lexical": {"passages": 43}})
    monkeypatch.setattr(snapshot, "snapshot_for", snapshot_for)
    monkeypatch.setattr(targets_module, "load_targets", dated("1986-06-27", None, "1949-12-15", ""))
    args = parse("snapshot", "--graph", "g", "--cutoff", "2004-07-09", "--cutoff", "1986-06-27",
                 "--targets", "test.jsonl", "--cache", str(tmp_path))
    assert main(args) == 0
    cutoffs = ("1949-12-15", "1986-06-27", "2004-07-09")
    assert built == [(c, tmp_path) for c in cutoffs]
    assert capsys.readouterr().out.splitlines() == [
        f"{c}: {tmp_path / (c + '_abc')} (13 documents, 43 passages)" for c in cutoffs]
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    built.clear()
    assert main(parse("snapshot", "--graph", "g", "--cutoff", "1986-06-27")) == 0
    assert built == [("1986-06-27", tmp_path / "xdg" / "auditpacks" / "icj-snapshots")]


def test_no_cutoff_or_a_bad_one_is_one_line(graphs, monkeypatch):
    with pytest.raises(UserError) as err:
        main(parse("snapshot", "--graph", "g"))
    assert str(err.value) == "no cutoff: give --cutoff or --targets (a test.jsonl with target_decision_date)"
    monkeypatch.setattr(targets_module, "load_targets", dated(None))
    with pytest.raises(UserError, match="^no cutoff"):
        main(parse("snapshot", "--graph", "g", "--targets", "t.jsonl"))
    with pytest.raises(UserError, match=r"^cutoff '1986-13-01' is not a date"):
        main(parse("snapshot", "--graph", "g", "--cutoff", "1986-13-01"))


class Report:
    def __init__(self, leaks):
        self.leaks, self.passed, self.calls, self.withheld_clean = leaks, not leaks, 40, 3

    def summary(self):
        seen = [{"leak": False}, {"leak": False}, {"leak": bool(self.leaks)}]
        return {"planted": [{"tag": "CANARYa"}, {"tag": "CANARYb"}], "found": seen, "first_leaks": self.leaks,
                "note": "arrêt"}


LEAK = {"cutoff": "1986-06-27", "tool": "get_case", "arguments": {"case_id": "Nicaragua — 070"},
        "finding": "a marker dated 1986-06-27, not before the cutoff 1986-06-27"}


@pytest.fixture
def audits(graphs, monkeypatch):
    calls = []

    def leak_audit(graph, cutoffs, tools, examples=25, cache=None):
        calls.append({"graph": graph, "cutoffs": cutoffs, "tools": [(t.name, t.does) for t in tools],
                      "examples": examples, "cache": cache})
        return audits.report
    audits = SimpleNamespace(report=Report([]), calls=calls)
    monkeypatch.setattr(audit, "leak_audit", leak_audit)
    return audits


def test_the_leak_audit_runs_every_distinct_tool_of_the_conditions(audits, graphs):
    assert main(parse("leak-audit", "--graph", "g", "--cutoff", "1986-06-27", "--examples", "4", "--cache", "c")) == 0
    [call] = audits.calls
    assert call["graph"] is graphs.graph and call["cutoffs"] == ["1986-06-27"]
    assert (call["examples"], call["cache"]) == (4, Path("c"))
    # the defaults: 3 Cypher tools, 12 designed, and search_passages answered by the semantic search
    assert len(call["tools"]) == 16 and ("search_passages", "semantic_search") in call["tools"]
    assert main(parse("leak-audit", "--graph", "g", "--cutoff", "1986-06-27", "--protocol", str(PROTOCOL),
                      "--tool-alias", "lookup=get_case")) == 0
    assert audits.calls[1]["tools"] == [("find_case", "find_case"), ("get_document", "get_document"),
                                        ("find_provision", "find_provision"), ("find_resolution", "find_resolution")]
    assert (audits.calls[1]["examples"], audits.calls[1]["cache"]) == (25, None)


def test_a_passing_audit_says_so_in_two_lines(audits, capsys):
    assert main(parse("leak-audit", "--graph", "g", "--cutoff", "1986-06-27", "--cutoff", "1949-12-15")) == 0
    assert capsys.readouterr().out.splitlines() == [
        "leak audit passed (2 cutoffs, 16 tools, 40 calls; 3 clean results the guard would withhold)",
        "  planted 2 dated marker sets; seen 3 times at a cutoff (3 of earlier material, allowed; 0 of material "
        "dated on or after it)"]


def test_a_failing_audit_names_each_first_leak_and_exits_1(audits, capsys):
    audits.report = Report([LEAK])
    assert main(parse("leak-audit", "--graph", "g", "--cutoff", "1986-06-27")) == 1
    assert capsys.readouterr().out.splitlines() == [
        "leak audit FAILED: 1 leaking calls (1 cutoffs, 16 tools, 40 calls; 3 clean results the guard would withhold)",
        "  planted 2 dated marker sets; seen 3 times at a cutoff (2 of earlier material, allowed; 1 of material "
        "dated on or after it)",
        '  1986-06-27 get_case {"case_id": "Nicaragua — 070"}: a marker dated 1986-06-27, not before the cutoff '
        "1986-06-27"]


@pytest.mark.parametrize("leaks, code", [([], 0), ([LEAK], 1)])
def test_the_audit_as_json(audits, capsys, leaks, code):
    audits.report = Report(leaks)
    assert main(parse("leak-audit", "--graph", "g", "--cutoff", "1986-06-27", "--json")) == code
    assert capsys.readouterr().out == json.dumps(audits.report.summary(), indent=2, ensure_ascii=False) + "\n"
