"""``auditpacks list``'s parts on hand-made folders: its arguments, the folders it does not search, the packs and
their read reports in brief, unreadable and unrecorded runs, and the lines it prints."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pytest

from auditpacks.core.runs.record import PackRef, Round, RunRecord, Summary
from auditpacks.runner.cli import listing
from auditpacks.runner.store.lock import FolderLock

STARTED = "2026-12-03T07:15:30.123456+00:00"   # a run's start, as records keep it (to the microsecond)


def parser():
    made = argparse.ArgumentParser(prog="auditpacks list")
    listing.add_arguments(made)
    return made


def test_the_folder_defaults_to_the_current_one_and_help_names_it_dir():
    assert vars(parser().parse_args([])) == {"folder": Path("."), "json": False}
    assert vars(parser().parse_args(["runs", "--json"])) == {"folder": Path("runs"), "json": True}
    text = " ".join(parser().format_help().split())
    assert "usage: auditpacks list [-h] [--json] [DIR]" in text
    assert "DIR where to look for packs and runs (default: the current folder)" in text
    assert "--json print the lists as JSON" in text


def write(path: Path, data) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_hidden_folders_virtual_environments_and_their_files_are_not_searched(tmp_path):
    for name in (".git/a.json", "env/pyvenv.cfg", "env/lib/x.run.json", "node_modules/b.json", "b/c.json", "a.json"):
        write(tmp_path / name, "{}")
    assert [p.relative_to(tmp_path).as_posix() for p in listing.files(tmp_path)] == ["a.json", "b/c.json"]


READ = {"tables": [{"rows": 5, "declared": 5}, {"rows": 3, "declared": 4}, {"rows": 7}, {"rows": None, "declared": 6},
                   {"rows": 2, "declared": 2}, {"rows": 1, "declared": 1}, "not a table"],
        "skipped": ["a.csv", "b.csv"], "warnings": ["table t3 has no declared count", "w2"]}


def test_a_read_report_in_brief():
    """Rows 5+3+7+0+2+1; as declared: the three whose declared count equals their rows."""
    assert listing.read_summary(READ) == {"tables": 6, "rows": 18, "as_declared": 3, "skipped": 2,
                                          "warnings": ["table t3 has no declared count", "w2"]}
    assert listing.read_summary({"tables": []}) == {"tables": 0, "rows": 0, "as_declared": 0, "skipped": 0,
                                                    "warnings": []}


@pytest.mark.parametrize("report", [None, [], {"tables": "t"}, {"skipped": []}])
def test_no_read_report_no_summary(report):
    assert listing.read_summary(report) is None


def pack(folder: Path, name: str, manifest) -> None:
    write(folder / f"{name}.json", "[]")
    write(folder / f"{name}.manifest.json", manifest)


def test_packs_are_json_files_with_a_readable_manifest_beside_them(tmp_path):
    pack(tmp_path, "a", "{not json")                                    # unreadable: left out, the rest listed
    pack(tmp_path, "b", {"builder": "tests", "counts": {"scenarios": 2}})
    pack(tmp_path, "c", {"builder": {"name": "icj"}, "read_report": READ})
    pack(tmp_path, "d", ["not", "a", "manifest"])
    write(tmp_path / "e.manifest.json", {"builder": "tests"})            # no pack beside it
    assert listing.packs(list(listing.files(tmp_path))) == [
        {"pack": str(tmp_path / "b.json"), "builder": "tests", "scenarios": 2},
        {"pack": str(tmp_path / "c.json"), "builder": "icj", "scenarios": None,
         "read": listing.read_summary(READ)}]


def record(folder: Path, model: str = "m", started: str = STARTED) -> None:
    RunRecord(model=model, provider="openai", judge="choice_match", fingerprint="fp", started=started,
              pack=PackRef(name="p.json", sha256="ab" * 32, builder="tests", scenarios_in_pack=3),
              summary=Summary(scenarios=3, completed=3, errors=1),
              rounds=[Round(round=1, seed=0, results="m.json")]).save(folder / f"{model}.run.json")


def runs_folder(tmp_path: Path) -> Path:
    """``a/`` a run of its own; under ``p/``: an index (the old name) of four runs, ``done`` and ``later`` recorded
    (``latest`` names ``done``), ``going`` and ``gone`` not yet; two stray files beside the index; ``bad`` an
    unreadable record."""
    (tmp_path / "a").mkdir()
    record(tmp_path / "a", model="n")
    root = tmp_path / "p"
    for name in ("done", "going", "gone", "later", "bad"):
        (root / name).mkdir(parents=True)
    record(root / "done")
    record(root / "later")
    write(root / "bad" / "m.run.json", "{")
    write(root / "runs.json", {"runs": [{"id": name, "model": "m", "started": STARTED}
                                        for name in ("done", "going", "gone", "later")]})
    write(root / "notes.txt", "")
    write(root / "zz.txt", "")
    os.symlink("done", root / "latest")
    return root


def test_runs_recorded_unrecorded_and_unreadable_each_listed_once(tmp_path):
    root = runs_folder(tmp_path)
    with FolderLock(root / "later"):
        found = listing.runs(list(listing.files(tmp_path)))
    brief = [(Path(r["run"]).relative_to(tmp_path).as_posix(), r.get("state"), r.get("latest")) for r in found]
    assert brief == [("a", "finished", False), ("p/going", "stopped", False), ("p/gone", "stopped", False),
                     ("p/bad/m.run.json", None, None), ("p/done", "finished", True), ("p/later", "running", False)]
    assert found[3]["error"].startswith("m.run.json: invalid JSON at line 1")
    assert found[1] == {"run": str(root / "going"), "state": "stopped", "model": "m", "started": STARTED,
                        "latest": False}


def test_the_new_index_wins_over_the_old_one(tmp_path):
    root = runs_folder(tmp_path)
    write(root / "runs.jsonl", {"runs": [{"id": "gone", "model": "m", "started": STARTED}]})
    found = listing.runs(list(listing.files(tmp_path)))
    assert [Path(r["run"]).name for r in found if r.get("state") == "stopped"] == ["gone"]


def test_a_folder_named_latest_is_not_the_latest_link(tmp_path):
    (tmp_path / "latest").mkdir()
    record(tmp_path / "latest")
    [run] = listing.runs(list(listing.files(tmp_path)))
    assert run["latest"] is False


def main(folder: Path, as_json: bool = False) -> int:
    return listing.main(argparse.Namespace(folder=folder, json=as_json))


def test_the_lines_for_each_pack_and_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(listing, "skipped", lambda: [])
    root = runs_folder(tmp_path)
    pack(tmp_path, "b", {"builder": "tests", "counts": {"scenarios": 2}})
    pack(tmp_path, "c", {"builder": "icj", "counts": {"scenarios": 5}, "read_report": READ})
    with FolderLock(root / "later"):
        assert main(tmp_path) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index(f"packs under {tmp_path}:")
    assert lines[at + 1:] == [
        f"  {tmp_path / 'b.json'}  (tests, 2 scenarios)",
        f"  {tmp_path / 'c.json'}  (icj, 5 scenarios; read 6 tables, 18 rows, 3 as declared, 2 files skipped, "
        "2 warnings: table t3 has no declared count)",
        f"runs under {tmp_path}:",
        f"  {tmp_path / 'a'}  n · choice_match · p.json · 3 scenarios, 1 errors · 2026-12-03T07:15:30",
        f"  {root / 'going'}  m · stopped · started 2026-12-03T07:15:30",
        f"  {root / 'gone'}  m · stopped · started 2026-12-03T07:15:30",
        f"  {root / 'bad' / 'm.run.json'}: unreadable: m.run.json: invalid JSON at line 1 column 2: "
        "Expecting property name enclosed in double quotes",
        f"  {root / 'done'}  m · choice_match · p.json · 3 scenarios, 1 errors · 2026-12-03T07:15:30 · latest",
        f"  {root / 'later'}  m · choice_match · p.json · 3 scenarios, 1 errors · 2026-12-03T07:15:30 · running"]


def test_an_empty_folder_says_none(tmp_path, capsys):
    assert main(tmp_path) == 0
    out = capsys.readouterr().out
    assert f"\npacks under {tmp_path}: none\nruns under {tmp_path}: none\n" in out


def test_the_json_listing_is_indented_keeps_non_ascii_and_names_plugins_not_loaded(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(listing, "skipped", lambda: ["broken: ImportError"])
    folder = tmp_path / "domstoler-æ"
    pack(folder, "b", {"builder": "tests", "counts": {"scenarios": 2}})
    assert main(folder, as_json=True) == 0
    out = capsys.readouterr().out
    assert out.startswith('{\n  "benchmarks": [\n    {\n      "name": "icj",') and "domstoler-æ/b.json" in out
    assert json.loads(out)["plugins_not_loaded"] == ["broken: ImportError"]
