"""The handlers of ``auditpacks`` in process: check on tiny packs, and build, run, merge, score, export and the
delegated commands on fake modules."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs import pack as pack_module
from auditpacks.runner.cli import main as cli
from tests.support.tiny_pack import write_pack


def check_args(pack: Path, *flags: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(["check", str(pack), *flags])


def test_check_prints_every_finding_and_a_count_line(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 2)
    assert cli._check(check_args(pack)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == ["WARN", "WARN", "INFO", "INFO"]
    assert lines[0] == "WARN #0 'Tiny 0000 - Outcome of V0000' [expected_behavior]: has 1 items; 3-7 expected"
    assert lines[-1] == "tiny.json: 2 scenarios, 0 errors, 2 warnings, manifest verified"
    assert cli._check(check_args(pack, "--quiet")) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == ["WARN", "WARN", "tiny.json:"]


def test_check_of_a_pack_with_errors_and_no_manifest_exits_1(tmp_path, capsys):
    pack = tmp_path / "empty.json"
    pack.write_text("[]", encoding="utf-8")
    assert cli._check(check_args(pack, "--quiet")) == 1
    assert capsys.readouterr().out.splitlines() == ["ERROR pack [-]: no scenarios",
                                                    "empty.json: 0 scenarios, 1 errors, 0 warnings"]
    assert cli._check(check_args(pack, "--json")) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["errors"], data["warnings"], data["manifest_verified"]) == (1, 0, False)


def test_check_json_carries_the_counts_and_findings(tmp_path, capsys):
    pack = write_pack(tmp_path / "påk.json", 2)
    assert cli._check(check_args(pack, "--json")) == 0
    out = capsys.readouterr().out
    assert out.startswith('{\n  "pack": "påk.json",\n  "scenarios": 2,')
    data = json.loads(out)
    assert {k: v for k, v in data.items() if k != "findings"} == {
        "pack": "påk.json", "scenarios": 2, "errors": 0, "warnings": 2, "manifest_verified": True}
    assert [f["level"] for f in data["findings"]] == ["WARN", "WARN", "INFO", "INFO"]
    assert data["findings"][0] == {"level": "WARN", "record": "#0 'Tiny 0000 - Outcome of V0000'",
                                   "field": "expected_behavior", "message": "has 1 items; 3-7 expected"}
    assert cli._check(check_args(pack, "--json", "--quiet")) == 0
    assert [f["level"] for f in json.loads(capsys.readouterr().out)["findings"]] == ["WARN", "WARN"]


@pytest.mark.parametrize("returned, code", [(None, 0), (False, 0), (0, 0), (4, 4), (True, 1)])
def test_a_delegated_commands_exit_code_is_what_its_main_returns(returned, code):
    seen = []
    args = argparse.Namespace(module=SimpleNamespace(main=lambda a: seen.append(a) or returned))
    assert cli._delegate(args) == code and seen == [args]


@pytest.mark.parametrize("force", [False, True])
def test_build_replaces_a_pack_only_with_force_and_names_what_it_wrote(force, capsys):
    def build(got):
        seen.append((got, pack_module._REPLACE.get()))
        return Path("out/p.json")

    seen = []
    args = argparse.Namespace(force=force, module=SimpleNamespace(build=build))
    assert cli._build(args) == 0
    assert seen == [(args, force)] and pack_module._REPLACE.get() is False
    assert capsys.readouterr().out == f"wrote {Path('out/p.json')}\n"


def test_run_is_the_run_command(monkeypatch):
    from auditpacks.runner.cli import run_command

    args = argparse.Namespace(pack=Path("p.json"))
    monkeypatch.setattr(run_command, "run_command", lambda a: 3 if a is args else 0)
    assert cli._run(args) == 3


@pytest.mark.parametrize("as_json", [False, True])
def test_merge_says_what_it_joined_on_stderr_and_reports_the_merged_run(monkeypatch, capsys, tmp_path, as_json):
    from auditpacks.runner.cli import run_command
    from auditpacks.runner.run import merge

    record, calls = SimpleNamespace(merged_from={"shards": ["1/2", "2/2"]}), []

    def fake_merge(shards, out, *, pack, model):
        print("merging")  # the merge's own chatter: kept off stdout, which holds only the summary
        calls.append(("merge", shards, out, pack, model))
        return record

    def report_run(got, json_flag):
        print("summary")
        calls.append(("report", got, json_flag))
        return 3

    monkeypatch.setattr(merge, "merge", fake_merge)
    monkeypatch.setattr(run_command, "report_run", report_run)
    monkeypatch.setattr(run_command, "print_viewer", lambda folder: calls.append(("viewer", folder)))
    args = cli.build_parser().parse_args(["merge", "a", "b", "--out", str(tmp_path), "--pack", "p.json",
                                          "--model", "m"] + (["--json"] if as_json else []))
    assert cli._merge(args) == 3
    assert calls == [("merge", [Path("a"), Path("b")], tmp_path, Path("p.json"), "m"), ("report", record, as_json),
                     ("viewer", tmp_path)]
    printed = capsys.readouterr()
    assert printed.out == "summary\n"
    assert printed.err == f"merging\nmerged shards 1/2, 2/2 into {tmp_path}\n"


def scorer(text: str | None, code: int = 0) -> SimpleNamespace:
    """A fake scorer: prints its table, writes ``text`` to ``--out`` (when given and not None), returns ``code``."""
    def main(args):
        print("the table")
        if text is not None and args.out is not None:
            assert args.out.suffix == ".json"  # the scorer picks the format from --out
            args.out.write_text(text, encoding="utf-8")
        return code
    return SimpleNamespace(main=main)


@pytest.mark.parametrize("text", ['{"score": "ø"}', '{"score": "ø"}\n'])
@pytest.mark.parametrize("keep", [False, True])
def test_score_json_prints_the_scores_file_and_writes_out_when_asked(tmp_path, capsys, text, keep):
    wanted = tmp_path / "sub" / "s.json" if keep else None
    args = argparse.Namespace(json=True, out=wanted, module=scorer(text))
    assert cli._score(args) == 0
    printed = capsys.readouterr()
    assert (printed.out, printed.err) == ('{"score": "ø"}\n', "the table\n")
    assert json.loads(printed.out) == {"score": "ø"}
    if keep:
        assert wanted.read_text(encoding="utf-8") == text
    assert list(tmp_path.iterdir()) == ([tmp_path / "sub"] if keep else [])


def test_score_json_of_a_failed_scorer_prints_nothing_on_stdout(tmp_path, capsys):
    wanted = tmp_path / "s.json"
    assert cli._score(argparse.Namespace(json=True, out=wanted, module=scorer(None, 2))) == 2
    assert capsys.readouterr() == ("", "the table\n") and not wanted.exists()


def test_score_without_json_is_the_scorer_itself(tmp_path, capsys):
    wanted = tmp_path / "s.json"
    assert cli._score(argparse.Namespace(json=False, out=wanted, module=scorer("{}", 0))) == 0
    assert capsys.readouterr() == ("the table\n", "") and wanted.read_text(encoding="utf-8") == "{}"


@pytest.mark.parametrize("benchmark, checked", [("inspect", False), ("eee", False), ("jacite", True)])
def test_export_checks_a_benchmarks_own_format_against_the_run(monkeypatch, benchmark, checked):
    from auditpacks.judges import run_reader

    calls = []
    monkeypatch.setattr(run_reader, "check_benchmark", lambda results, bench: calls.append((results, bench)))
    args = argparse.Namespace(benchmark=benchmark, results=Path("r.json"),
                              module=SimpleNamespace(main=lambda a: calls.append("exported") or 0))
    assert cli._export(args) == 0
    assert calls == ([(Path("r.json"), benchmark)] if checked else []) + ["exported"]


def test_export_of_another_benchmarks_run_exports_nothing(monkeypatch):
    from auditpacks.judges import run_reader

    def refuse(results, bench):
        raise PackError("r.json: a run of the icj benchmark")

    monkeypatch.setattr(run_reader, "check_benchmark", refuse)
    args = argparse.Namespace(benchmark="jacite", results=Path("r.json"), module=SimpleNamespace(main=sys.exit))
    with pytest.raises(PackError, match="icj benchmark"):
        cli._export(args)
