"""Where a finished run is found again (its index entry with the record's fingerprint and pack, a folder of its own
holding the record), and the index and run folder details a run relies on."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.core.runs.run_files import LATEST_NAME
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.store.layout import located, mark_finished, open_run_folder, run_settings, runs_index
from tests.runner.store.test_layout import SHA, WHEN, open_here, save_record
from tests.support.run_config import run_config

RECORD = SimpleNamespace(fingerprint="fp1", pack=SimpleNamespace(sha256=SHA))


def entry(run_id, fingerprint="fp1", sha=SHA, model="m"):
    return {"id": run_id, "fingerprint": fingerprint, "pack_sha256": sha, "model": model}


def index(root: Path, entries, recorded=()) -> None:
    """The pack folder's index of ``entries``; each run in ``recorded`` has a folder holding an ``m`` record."""
    root.mkdir(parents=True)
    (root / "runs.jsonl").write_text(json.dumps({"runs": entries}), encoding="utf-8")
    for name in recorded:
        (root / name).mkdir()
        (root / name / "m.run.json").write_text("{}", encoding="utf-8")


def test_the_last_entry_of_the_run_with_its_record_is_found(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    root = Path("results/p")
    index(root, [entry("r1"), entry("r2"), entry("r3", fingerprint="fp2"), entry("r4", sha="cd" * 32), entry("r5"),
                 entry("r6", model="../m"), entry("r7")], recorded=("r1", "r2", "r3", "r4"))
    (root / "r5").mkdir()                                   # no record in it
    (root / "m.run.json").write_text("{}", encoding="utf-8")  # where r6's model would lead
    os.symlink("r1", root / "r7")                           # a link, not a folder of its own
    assert located(run_config(pack=Path("packs/p.json")), RECORD) == root / "r2"


def test_out_is_where_the_run_went(tmp_path):
    assert located(run_config(pack=Path("packs/p.json"), out=tmp_path / "mine"), RECORD) == tmp_path / "mine"


def test_no_such_run_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    index(Path("results/p"), [entry("r1", fingerprint="fp2")], recorded=("r1",))
    with pytest.raises(RunError, match="^results/p/runs.jsonl: lists no finished run with fingerprint fp1$"):
        located(run_config(pack=Path("packs/p.json")), RECORD)


@pytest.mark.parametrize("sha, fingerprint, refusal", [("cd" * 32, "fp1", "holds a run of another pack"),
                                                       (SHA, "fp2", "holds a run with other settings")])
def test_an_out_folder_is_guarded_before_the_run_writes_there(tmp_path, sha, fingerprint, refusal):
    save_record(tmp_path)
    config = run_config(pack=Path("packs/p.json"), out=tmp_path)
    with pytest.raises(RunError, match=refusal):
        open_run_folder(config, "m", "choice", pack_sha256=sha, fingerprint=fingerprint, started=WHEN)


def test_an_out_folder_with_the_same_pack_and_settings_is_resumed(tmp_path):
    save_record(tmp_path)
    config = run_config(pack=Path("packs/p.json"), out=tmp_path)
    assert open_run_folder(config, "m", "choice", pack_sha256=SHA, fingerprint="fp1", started=WHEN) == tmp_path


def test_a_folder_already_there_is_not_taken_and_the_entry_says_when_the_run_started(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("results/p/m-choice-1203-071530").mkdir(parents=True)   # not in the index, yet there
    made = open_here(tmp_path, monkeypatch)
    assert made == Path("results/p/m-choice-1203-071530-2")
    assert runs_index(Path("results/p"))[0]["started"] == "2026-12-03T07:15:30+00:00"


def test_two_turns_are_a_setting_of_their_own():
    assert run_settings(run_config(max_turns=2)) == ["turns2"]


@pytest.mark.parametrize("runs", [5, [{"name": "r1"}], [{"id": 5}]])
def test_an_index_without_a_list_of_runs_with_ids_is_refused(tmp_path, runs):
    (tmp_path / "runs.jsonl").write_text(json.dumps({"runs": runs}), encoding="utf-8")
    with pytest.raises(RunError, match=f"^{tmp_path}/runs.jsonl: field runs is not a list of runs with an id; "
                                       "move it away$"):
        runs_index(tmp_path)


def test_a_long_bad_id_is_quoted_to_80_characters(tmp_path):
    bad = "../" + "x" * 100
    (tmp_path / "runs.jsonl").write_text(json.dumps({"runs": [{"id": bad}]}), encoding="utf-8")
    with pytest.raises(RunError) as err:
        runs_index(tmp_path)
    assert f"has id {bad[:80]!r}, not a folder name" in str(err.value)


def test_where_links_cannot_be_made_the_run_is_still_finished(tmp_path, monkeypatch):
    first = open_here(tmp_path, monkeypatch)

    def no_links(*args, **kwargs):
        raise OSError("operation not permitted")

    monkeypatch.setattr(os, "symlink", no_links)
    mark_finished(run_config(pack=Path("packs/p.json")), first, WHEN)
    assert runs_index(Path("results/p"))[0]["finished"] == "2026-12-03T07:15:30+00:00"
    assert not (Path("results/p") / LATEST_NAME).exists()
