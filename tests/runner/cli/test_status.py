"""``auditpacks status``: one line per run folder and a total, or JSON; it never takes a run's lock."""

from __future__ import annotations

import json
import time

from auditpacks.runner.cli.main import main
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
    data = json.loads(capsys.readouterr().out)
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
