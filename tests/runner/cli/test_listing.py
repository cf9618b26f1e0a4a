"""``auditpacks list``: the registry's benchmarks, and the packs and runs under a folder (links not followed)."""

from __future__ import annotations

import json
import os

from auditpacks.runner.cli.main import main
from tests.support.six_runs import write_six_runs


def test_lists_benchmarks_packs_and_runs_once(tmp_path, capsys):
    write_six_runs(tmp_path)
    os.symlink("run6", tmp_path / "results" / "latest")       # a runs folder's latest link: not listed again
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "x.run.json").write_text("{}", encoding="utf-8")  # hidden folders are not searched
    assert main(["list", str(tmp_path), "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [b["name"] for b in listing["benchmarks"]] == ["icj", "iustitia", "jacite"]  # by name
    assert [(os.path.basename(p["pack"]), p["scenarios"]) for p in listing["packs"]] == [("alpha.json", 4),
                                                                                          ("beta.json", 4)]
    assert [os.path.basename(r["run"]) for r in listing["runs"]] == [f"run{i}" for i in range(1, 7)]
    assert listing["runs"][5]["errors"] == 1 and listing["runs"][4]["model"] == "n"
    assert main(["list", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("benchmarks:\n  icj") and text.count(" · choice_match · ") == 6


def test_a_missing_folder_is_one_line(tmp_path, capsys):
    assert main(["list", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.strip().endswith("nope: no such folder")


def test_a_packs_read_report_is_shown_in_brief(tmp_path, capsys):
    from tests.support.paths import FIXTURES

    out = tmp_path / "icj.json"
    assert main(["build", "icj", "--source", str(FIXTURES / "icj"), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["list", str(tmp_path), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["packs"]
    # the fixture's data/test.jsonl and data/inputs.jsonl, 5 targets each, nothing declared, nothing skipped
    assert listed[0]["read"] == {"tables": 2, "rows": 10, "as_declared": 0, "skipped": 0, "warnings": []}
    assert main(["list", str(tmp_path)]) == 0
    assert "(icj, 5 scenarios; read 2 tables, 10 rows, 0 as declared, 0 files skipped)" in capsys.readouterr().out


def test_a_run_still_going_is_listed_as_running_and_latest_names_the_finished_one(tmp_path, capsys):
    import datetime as dt
    from pathlib import Path

    from auditpacks.core.io import atomic_write_json
    from auditpacks.runner.store.lock import FolderLock
    from tests.runner.store.test_layout import save_record

    root = tmp_path / "results" / "p"
    for name in ("done", "going", "gone"):
        (root / name).mkdir(parents=True)
    save_record(root / "done")
    atomic_write_json(root / "runs.json", {"runs": [
        {"id": name, "model": "m", "started": dt.datetime(2026, 12, 3, i).isoformat()}
        for i, name in enumerate(("done", "going", "gone"), 1)]})
    os.symlink("done", root / "latest")
    with FolderLock(root / "going"):
        assert main(["list", str(tmp_path), "--json"]) == 0
        listing = {Path(r["run"]).name: r for r in json.loads(capsys.readouterr().out)["runs"]}
        assert main(["list", str(tmp_path)]) == 0
        text = capsys.readouterr().out
    assert {name: (r["state"], r["latest"]) for name, r in listing.items()} == {
        "done": ("finished", True), "going": ("running", False), "gone": ("stopped", False)}
    assert "going  m · running · started 2026-12-03T02:00:00" in text and "errors · " in text
    assert text.count(" · latest") == 1
