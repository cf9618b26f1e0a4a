"""``auditpacks compare FOLDER``: the runs of each pack compared with one another, named by what differs."""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.runner.cli import compare
from auditpacks.runner.cli.main import main
from tests.support.six_runs import write_six_runs


def test_a_folder_compares_each_packs_runs_and_names_the_lone_ones(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write_six_runs(tmp_path)
    shutil.rmtree(tmp_path / "results" / "run5")
    shutil.rmtree(tmp_path / "results" / "run6")      # beta keeps one run: nothing to pair it with
    assert main(["compare", "results", "--json"]) == 0
    printed = capsys.readouterr()
    pairs = [(c["a"], c["b"]) for c in json.loads(printed.out)]
    assert pairs == [("alpha.json · temperature 0 · seed 0", "alpha.json · temperature 0.7 · seed 0"),
                     ("alpha.json · temperature 0 · seed 0", "alpha.json · temperature 0 · seed 3")]
    assert "m · beta.json: no other run of its pack and benchmark here; left out" in printed.err
    assert main(["compare", "results"]) == 0
    assert capsys.readouterr().out.startswith("what differs: pack (alpha.json, beta.json); temperature (0, 0.7); "
                                              "seed (0, 3)\n")


# In process, on fakes: the arguments, the table, the grouping and what ``main`` prints and writes.

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="auditpacks compare")
    compare.add_arguments(parser)
    return parser


def test_the_runs_come_in_order_packs_add_up_and_json_and_report_are_off_unless_asked():
    assert vars(_parser().parse_args(["a", "b"])) == {"runs": ["a", "b"], "pack": [], "json": False, "report": None}
    args = _parser().parse_args(["b", "a", "--pack", "p.json", "--pack", "q.json", "--json", "--report", "r.md"])
    assert (args.runs, args.pack, args.json, args.report) == (["b", "a"], [Path("p.json"), Path("q.json")], True,
                                                              Path("r.md"))


@pytest.mark.parametrize("shown", [
    "usage: auditpacks compare [-h] [--pack PACK.json] [--json] [--report REPORT.html] RUN [RUN ...]",
    "RUN run records (or results files, or folders); A first",
    "--pack PACK.json the pack the runs ran, when it is not beside them",
    "--json print the comparisons as JSON",
    "--report REPORT.html also write the report (.md for Markdown) with these comparisons",
])
def test_the_help_names_each_argument(shown):
    assert shown in " ".join(_parser().format_help().split())


TESTED = {"figure": "accuracy", "a": 0.75, "b": 0.5, "diff": 0.25, "ci": [0.05, 0.45], "p": 0.0123, "tested": True,
          "decision": "significant", "decided_by": "interval and McNemar agree"}
UNTESTED = {"figure": "refusals [strict]", "a": 0.1, "b": 0.125, "diff": -0.025, "ci_withheld": True, "p": 0.5, "tested": False}
NOTED = {"figure": "answers", "note": "counts", "a": 12, "b": 7, "p": 0.25, "decision": None}


def comparison(a="run a", b="run b", figures=(TESTED,), disagreements=(), warnings=()) -> dict:
    return {"a": a, "b": b, "figures": list(figures), "paired": 3, "method": "cluster bootstrap",
            "disagreements": list(disagreements), "warnings": list(warnings)}


def test_the_table_shows_shares_as_percentages_and_a_noted_figure_as_it_is():
    made = compare.table(comparison(figures=[TESTED, UNTESTED, NOTED | {"decision": "not testable"}, NOTED]))
    assert (made.title, made.title_justify) == ("A run a  vs  B run b", "left")
    assert [(c.header, c.justify, c.no_wrap) for c in made.columns] == [
        ("figure", "left", False), ("A", "right", False), ("B", "right", False), ("A − B", "right", False),
        ("paired 95% CI", "right", False), ("p", "right", False), ("decision", "left", True)]
    assert [list(row) for row in zip(*(c._cells for c in made.columns))] == [
        ["accuracy", "75.0%", "50.0%", "+25.0%", "[+5.0%, +45.0%]", "0.0123", "significant"],
        ["refusals [strict]", "10.0%", "12.5%", "-2.5%", "withheld", "–", "–"],
        ["answers (counts)", "12", "7", "–", "–", "0.25", "not testable"],
        ["answers (counts)", "12", "7", "–", "–", "0.25", "–"]]


def fake_run(label: str, pack: str = "p", benchmark: str | None = "jacite") -> SimpleNamespace:
    return SimpleNamespace(label=label, sha256=pack, reader=SimpleNamespace(benchmark=benchmark), record=label)


def test_runs_group_by_pack_and_benchmark_in_the_order_given():
    runs = [fake_run("1"), fake_run("2", "q", "icj"), fake_run("3", "p", None), fake_run("4"), fake_run("5", "q", "icj"),
            fake_run("6", "r"), fake_run("7", "q", "icj")]
    groups, alone = compare.comparable_groups(runs)
    assert [[r.label for r in g] for g in groups] == [["1", "4"], ["2", "5", "7"]]
    assert [r.label for r in alone] == ["3", "6"]


@pytest.fixture
def fakes(monkeypatch):
    """``main`` on fake runs: what it loaded, compared and rendered is kept in the returned dict."""
    seen = {"pairs": [], "runs": [fake_run("a"), fake_run("b", "other"), fake_run("c", "other")], "differs": ""}
    monkeypatch.setattr(compare, "load_runs", lambda given, packs: seen.setdefault("loaded", (given, packs))
                        and seen["runs"])
    seen["comparisons"] = {}

    def compare_runs(a, b):
        seen["pairs"].append((a.label, b.label))
        return seen["comparisons"].get(b.label) or comparison(a.label, b.label)
    monkeypatch.setattr(compare, "compare_runs", compare_runs)
    monkeypatch.setattr(compare, "what_differs", lambda records: f"{seen['differs']}{records}" if seen["differs"] else "")
    monkeypatch.setattr(compare, "build_context", lambda runs, comparisons, plots_on: (runs, comparisons, plots_on))
    monkeypatch.setattr(compare, "render", lambda context, fmt: f"{fmt} of {[r.label for r in context[0]]} "
                        f"{[c['b'] for c in context[1]]} plots {context[2]}")
    return seen


def run_main(*argv: str) -> int:
    return compare.main(_parser().parse_args(list(argv)))


def test_one_run_is_not_enough(fakes):
    fakes["runs"] = fakes["runs"][:1]
    with pytest.raises(ValueError, match="^compare: give at least two runs$"):
        run_main("a.run.json", "b.run.json")


def test_files_compare_the_first_with_each_other_as_json(fakes, capsys):
    fakes["comparisons"]["b"] = comparison("a", "b", warnings=["fewer scenarios", "another judge"])
    fakes["runs"] = fakes["runs"][:2] + [fake_run("c · ü", "other")]
    assert run_main("a.run.json", "b.run.json", "c.run.json", "--pack", "p.json", "--json") == 0
    assert fakes["loaded"] == (["a.run.json", "b.run.json", "c.run.json"], [Path("p.json")])
    assert fakes["pairs"] == [("a", "b"), ("a", "c · ü")]
    printed = capsys.readouterr()
    assert json.loads(printed.out) == [fakes["comparisons"]["b"], comparison("a", "c · ü")]
    assert printed.out.startswith('[\n  {\n    "a": "a",\n') and '"b": "c · ü"' in printed.out
    assert printed.err == "auditpacks: warning: b: fewer scenarios\nauditpacks: warning: b: another judge\n"


def test_a_folder_compares_within_each_group_or_falls_back_to_the_first_run(fakes, tmp_path, capsys):
    assert run_main(str(tmp_path), "--json") == 0
    assert fakes["pairs"] == [("b", "c")]
    assert capsys.readouterr().err == "auditpacks: warning: a: no other run of its pack and benchmark here; left out\n"
    fakes["pairs"].clear()
    fakes["runs"] = [fake_run("a"), fake_run("b", "other")]
    assert run_main(str(tmp_path), "--json") == 0
    assert fakes["pairs"] == [("a", "b")] and capsys.readouterr().err == ""


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_the_text_output_names_what_differs_then_each_comparison(fakes, monkeypatch, capsys):
    """Figure names, the method, scenario texts and answers print as they are (no markup read, no colours), one
    line however long."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "40")
    long = "a scenario whose name is longer than the forty columns of the terminal"
    disagreements = [{"scenario": long, "a": "[b]yes[/b] 1", "b": "no 2"}] + [
        {"scenario": f"s{i}", "a": "x", "b": "y"} for i in range(1, 21)]
    fakes["comparisons"] = {"b": comparison("a", "b", [TESTED, UNTESTED], disagreements) | {"method": "by case [x]"},
                            "c": comparison("a", "c")}
    fakes["differs"] = "what differs: "
    assert run_main("a.run.json", "b.run.json", "c.run.json") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "what differs: ['a', 'b', 'c']"
    assert ANSI.sub("", lines[1]) == "A a  vs  B b"
    at = lines.index("  accuracy: significant (interval and McNemar agree)")
    assert lines[at + 1] == "  refusals [strict]: –"
    assert [ANSI.sub("", line) for line in lines[at + 2:at + 4]] == [
        "3 paired scenarios (by case [x]); differences are A − B.", "21 scenario(s) where the runs disagree:"]
    assert lines[at + 4:at + 7] == [f"  {long}", "    A [b]yes[/b] 1", "    B no 2"]
    assert lines[at + 7:at + 64] == [f"{part}" for i in range(1, 20) for part in (f"  s{i}", "    A x", "    B y")]
    assert ANSI.sub("", lines[at + 64]) == "A a  vs  B c"
    assert ANSI.sub("", lines[-1]) == "0 scenario(s) where the runs disagree."


def test_without_differences_the_output_starts_with_the_table(fakes, capsys):
    assert run_main("a.run.json", "b.run.json") == 0
    assert capsys.readouterr().out.splitlines()[0] == "A a  vs  B b"


@pytest.mark.parametrize("name, written", [
    ("r.md", "md of ['a', 'b', 'c'] ['b', 'c'] plots False"),
    ("R.MARKDOWN", "md of ['a', 'b', 'c'] ['b', 'c'] plots False"),
    ("r.html", "html of ['a', 'b', 'c'] ['b', 'c'] plots True"),
    ("r.txt", "html of ['a', 'b', 'c'] ['b', 'c'] plots True"),
])
def test_the_report_is_markdown_by_its_suffix_else_html_with_plots(fakes, tmp_path, capsys, name, written):
    report = tmp_path / name
    assert run_main("a.run.json", "b.run.json", "c.run.json", "--report", str(report)) == 0
    assert report.read_text(encoding="utf-8") == written
    assert capsys.readouterr().out.endswith(f"\nwrote {report}\n")
    assert run_main("a.run.json", "b.run.json", "--json", "--report", str(report)) == 0
    printed = capsys.readouterr()
    assert (printed.err, json.loads(printed.out)[0]["b"]) == (f"wrote {report}\n", "b")
