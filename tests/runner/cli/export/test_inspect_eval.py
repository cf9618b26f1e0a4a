"""``auditpacks export inspect`` in process: its arguments and help, what it prints after writing a log, and a
``--pack`` without a manifest refused."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from auditpacks.runner.cli.export.inspect_eval import add_arguments, main
from auditpacks.runner.reporting.exports.source import ExportError
from tests.support.hand_runs import tiny_choice_run


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="auditpacks export inspect")
    add_arguments(parser)
    return parser


def test_the_run_the_log_and_the_pack_are_paths():
    args = _parser().parse_args(["results/tiny/latest", "--out", "logs/tiny.eval", "--pack", "packs/tiny.json"])
    assert (args.run, args.out, args.pack) == (Path("results/tiny/latest"), Path("logs/tiny.eval"),
                                               Path("packs/tiny.json"))
    assert _parser().parse_args(["run", "--out", "x.eval"]).pack is None


def test_the_log_file_must_be_named(capsys):
    with pytest.raises(SystemExit) as stop:
        _parser().parse_args(["results/tiny/latest"])
    assert stop.value.code == 2
    assert "the following arguments are required: --out" in capsys.readouterr().err


@pytest.mark.parametrize("shown", [
    "usage: auditpacks export inspect [-h] --out OUT [--pack PACK] RUN",
    "RUN the run: its folder (holding one run record), its run record or its results file",
    "--out OUT the log file to write: .eval (Inspect's own format) or .json",
    "--pack PACK the pack the run ran, for its manifest (default: found beside the run by name and sha256)",
])
def test_the_help_names_each_argument_and_what_it_is(shown):
    assert shown in " ".join(_parser().format_help().split())


def test_the_log_written_is_summed_up_with_where_to_look_at_it(tmp_path, capsys):
    """Four scenarios, four samples; a headline of three numbers (a pack no benchmark built: its numeric leaves are
    the figures) is three metrics."""
    run = tiny_choice_run(tmp_path)
    record = json.loads(run.read_text(encoding="utf-8"))
    record["summary"]["headline"] = {"correct": 2, "graded": 3, "accuracy": 2 / 3}
    run.write_text(json.dumps(record), encoding="utf-8")
    out = tmp_path / "logs" / "tiny.eval"
    assert main(_parser().parse_args([str(run), "--out", str(out)])) == 0
    assert capsys.readouterr().out.splitlines() == [f"wrote 4 samples and 3 metrics to {out}",
                                                    f"look at it with: inspect view --log-dir {tmp_path / 'logs'}"]


def test_a_pack_given_without_a_manifest_beside_it_is_refused(tmp_path):
    run = tiny_choice_run(tmp_path)
    (tmp_path / "other.json").write_text("[]", encoding="utf-8")
    with pytest.raises(ExportError, match=r"^other\.json: no manifest other\.manifest\.json beside it$"):
        main(_parser().parse_args([str(run), "--out", str(tmp_path / "tiny.eval"), "--pack",
                                   str(tmp_path / "other.json")]))
    assert not (tmp_path / "tiny.eval").exists()
