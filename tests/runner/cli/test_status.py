"""``auditpacks status``: one line per run folder and a total, or JSON; it never takes a run's lock."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pytest

from auditpacks.runner.cli.main import main
from auditpacks.runner.cli.status import add_arguments, duration, line
from auditpacks.runner.display.watch import Progress
from auditpacks.runner.store.lock import FolderLock


def write_shard(folder, keys: list[str], total: int, severity: str = "PASS",
                progress: str = "m.progress.jsonl") -> None:
    folder.mkdir(parents=True)
    lines = [json.dumps({"fingerprint": "f"})] + [
        json.dumps({"key": k, "name": k, "result": {"severity": severity}}) for k in keys]
    (folder / "m.journal.jsonl").write_text("\n".join(lines) + "\n")
    (folder / progress).write_text(json.dumps({"total": total, "resumed": 0, "started": time.time() - 100}))


def test_status_prints_each_shard_and_the_total_while_a_run_holds_its_lock(tmp_path, capsys):
    write_shard(tmp_path / "shard-1", ["a", "b"], 5)
    write_shard(tmp_path / "shard-2", ["c"], 3, severity="ERROR", progress="m.progress.json")  # the earlier name
    with FolderLock(tmp_path / "shard-1"):  # a run writing shard 1 right now
        assert main(["status", str(tmp_path / "shard-1"), str(tmp_path / "shard-2")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert lines[0].split()[:4] == ["shard-1", "2/5", "0", "errors"]
    assert lines[1].split()[:4] == ["shard-2", "1/3", "1", "errors"]
    assert lines[1].split()[-2:] == ["-", "stopped"]  # no process writes shard 2: cancelled or failed
    assert lines[2].split()[:4] == ["total", "3/8", "1", "errors"] and "eta" in lines[2]


def test_status_json(tmp_path, capsys):
    write_shard(tmp_path / "shard-1", ["a"], 2)
    with FolderLock(tmp_path / "shard-1"):
        assert main(["status", str(tmp_path / "shard-1"), "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert out == json.dumps(data, indent=2) + "\n"  # an indented document, one figure a line
    assert [r["name"] for r in data["runs"]] == ["shard-1"]
    assert (data["total"]["done"], data["total"]["total"], data["total"]["errors"]) == (1, 2, 0)
    assert 0.005 < data["total"]["rate"] < 0.02  # 1 in about 100 s


def test_a_shard_not_started_yet_has_a_line_and_the_total_no_eta(tmp_path, capsys):
    write_shard(tmp_path / "shard-1", ["a"], 2)
    assert main(["status", str(tmp_path / "shard-1"), str(tmp_path / "shard-2")]) == 0  # shard 2: still queued
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["shard-2", "0/?", "0", "errors", "-", "eta", "-"]
    assert lines[2].split()[:2] == ["total", "1/?"] and lines[2].endswith("eta -")


def test_status_of_a_file_is_one_line(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert main(["status", str(tmp_path / "file")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="auditpacks status")
    add_arguments(parser)
    return parser


def test_the_folders_are_paths_and_json_is_off_unless_asked():
    args = _parser().parse_args(["results/a", "results/b"])
    assert (args.folders, args.json) == ([Path("results/a"), Path("results/b")], False)
    assert _parser().parse_args(["a", "--json"]).json is True


@pytest.mark.parametrize("shown", ["usage: auditpacks status [-h] [--json] DIR [DIR ...]",
                                   "DIR run folders (--out of each shard)",
                                   "--json print the figures as JSON on stdout"])
def test_the_help_names_the_folders_and_the_json_flag(shown):
    assert shown in " ".join(_parser().format_help().split())


@pytest.mark.parametrize("seconds, shown", [
    (None, "-"), (0, "0s"), (59.4, "59s"), (59.6, "1m00s"), (60, "1m00s"), (61, "1m01s"), (754, "12m34s"),
    (3599, "59m59s"), (3600, "1h00m"), (3661, "1h01m"), (5400, "1h30m"), (7199, "1h59m"), (7322, "2h02m"),
    (36000, "10h00m"),
])
def test_a_duration_is_seconds_then_minutes_then_hours(seconds, shown):
    assert duration(seconds) == shown


def progress(**given) -> Progress:
    row = {"name": "shard-1", "done": 3, "total": 10, "errors": 1, "rate": 0.5, "eta": 14.0, "finished": False}
    return Progress(**{**row, **given})


@pytest.mark.parametrize("given, shown", [
    ({}, "shard-1       3/10          1 errors     0.50/s  eta 14s"),
    ({"eta": 754.0}, "shard-1       3/10          1 errors     0.50/s  eta 12m34s"),
    ({"rate": None, "eta": None}, "shard-1       3/10          1 errors          -  eta -"),
    ({"total": None, "rate": 1.234}, "shard-1       3/?           1 errors     1.23/s  eta 14s"),
    ({"finished": True, "done": 10, "eta": 0.0}, "shard-1      10/10          1 errors     0.50/s  finished"),
    ({"stopped": True}, "shard-1       3/10          1 errors     0.50/s  stopped"),
])
def test_a_line_is_done_of_total_errors_rate_and_state(given, shown):
    assert line(progress(**given), 7) == shown


def test_the_names_are_padded_to_the_width_given():
    assert line(progress(name="a"), 5).startswith("a           3/10")
