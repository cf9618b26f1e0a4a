"""Where a run's files go, and the refusal to write over a run of another pack or other settings."""

import datetime as dt
import os
from pathlib import Path

import pytest

from auditpacks.core.runs.record import PackRef, Round, RunRecord, Summary
from auditpacks.core.runs.run_files import INDEX_NAME, LATEST_NAME, run_id
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.store.layout import (guard_folder, mark_finished, open_run_folder, results_name,
                                                run_folder, run_settings, runs_index)
from tests.support.run_config import run_config

SHA = "ab" * 32


def save_record(folder: Path, stem="m", sha=SHA, fingerprint="fp1"):
    record = RunRecord(model="m", provider="openai", judge="choice_match", fingerprint=fingerprint,
                       pack=PackRef(name="p.json", sha256=sha, builder="tests", scenarios_in_pack=3),
                       summary=Summary(scenarios=3, completed=3), rounds=[Round(round=1, seed=0, results="m.json")])
    record.save(folder / f"{stem}.run.json")


def test_run_folder_defaults_to_results_and_the_pack_stem():
    assert run_folder(None, Path("packs/jacite_smoke.json")) == Path("results/jacite_smoke")
    assert run_folder(Path("out/here"), Path("p.json")) == Path("out/here")


WHEN = dt.datetime(2026, 12, 3, 7, 15, 30, tzinfo=dt.timezone.utc)


def test_run_ids_name_model_judge_settings_and_time():
    assert run_id("smollm2", "grounding", [], WHEN) == "smollm2-grounding-1203-071530"
    config = run_config(judge_model="gemma3:12b", temperature=0.7, seed=3, repeats=2,
                        shard="1/4")
    assert run_id("a_b-12ab", "checklist", run_settings(config), WHEN) == \
        "a_b-12ab-checklist-gemma3_12b-t0.7-s3-x2-shard1of4-1203-071530"
    assert run_settings(run_config()) == []


def open_here(tmp_path, monkeypatch, fingerprint="fp1", when=WHEN, **settings):
    monkeypatch.chdir(tmp_path)
    config = run_config(pack=Path("packs/p.json"), **settings)
    return open_run_folder(config, "m", "choice", pack_sha256=SHA, fingerprint=fingerprint, started=when)


def test_each_setting_gets_its_own_run_and_the_same_settings_resume(tmp_path, monkeypatch):
    first = open_here(tmp_path, monkeypatch)
    assert first == Path("results/p/m-choice-1203-071530") and first.is_dir()
    assert open_here(tmp_path, monkeypatch, when=WHEN + dt.timedelta(hours=1)) == first  # resumed
    other = open_here(tmp_path, monkeypatch, "fp2", temperature=0.5)
    assert other == Path("results/p/m-choice-t0.5-1203-071530")
    again = open_here(tmp_path, monkeypatch, resume=False)   # --fresh: a new run; the id taken gets a number
    assert again == Path("results/p/m-choice-1203-071530-2")
    entries = runs_index(Path("results/p"))
    assert [e["id"] for e in entries] == [first.name, other.name, again.name]
    assert [e["fingerprint"] for e in entries] == ["fp1", "fp2", "fp1"]
    assert not (Path("results/p") / LATEST_NAME).exists()      # none has finished yet
    assert open_here(tmp_path, monkeypatch) == again        # the latest run with these settings
    assert open_here(tmp_path, monkeypatch, shard="1/2") != again  # a shard is a run of its own


def test_out_keeps_its_folder_and_a_broken_index_is_one_line(tmp_path, monkeypatch):
    assert open_here(tmp_path, monkeypatch, out=Path("mine")) == Path("mine")
    (tmp_path / "results" / "p").mkdir(parents=True)
    (tmp_path / "results" / "p" / INDEX_NAME).write_text("[1]", encoding="utf-8")
    with pytest.raises(RunError) as err:
        open_here(tmp_path, monkeypatch)
    assert str(err.value) == f"{Path('results/p') / INDEX_NAME}: not a runs index (a JSON object with a list " \
        "'runs'); move it away"


def test_results_name_per_round():
    assert [results_name("m", n) for n in (1, 2, 10)] == ["m.json", "m.round2.json", "m.round10.json"]


def test_an_empty_folder_or_a_fresh_run_is_never_refused(tmp_path):
    guard_folder(tmp_path / "none", "m", pack_sha256=SHA, fingerprint="fp1", resume=True)
    save_record(tmp_path, sha="cd" * 32)
    guard_folder(tmp_path, "m", pack_sha256=SHA, fingerprint="other", resume=False)  # --fresh starts over


def test_the_same_pack_and_settings_resume(tmp_path):
    save_record(tmp_path)
    guard_folder(tmp_path, "m", pack_sha256=SHA, fingerprint="fp1", resume=True)
    guard_folder(tmp_path, "other-model", pack_sha256="ef" * 32, fingerprint="x", resume=True)  # not this model's


def test_another_pack_is_refused_naming_it(tmp_path):
    save_record(tmp_path, sha="cd" * 32)
    with pytest.raises(RunError) as err:
        guard_folder(tmp_path, "m", pack_sha256=SHA, fingerprint="fp1", resume=True)
    assert str(err.value) == ("m.run.json: holds a run of another pack (p.json, sha256 cdcdcdcdcdcd…); "
                              "use another --out folder or --fresh")


def test_other_settings_are_refused_naming_the_fingerprint(tmp_path):
    save_record(tmp_path, fingerprint="fp0")
    with pytest.raises(RunError) as err:
        guard_folder(tmp_path, "m", pack_sha256=SHA, fingerprint="fp1", resume=True)
    assert str(err.value) == ("m.run.json: holds a run with other settings (fingerprint fp0); "
                              "use another --out folder or --fresh")


def test_an_unreadable_run_file_is_refused_in_one_line(tmp_path):
    (tmp_path / "m.run.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(RunError) as err:
        guard_folder(tmp_path, "m", pack_sha256=SHA, fingerprint="fp1", resume=True)
    assert str(err.value).endswith("; use another --out folder or --fresh")
    assert "m.run.json" in str(err.value) and "\n" not in str(err.value)


def test_runs_started_at_once_each_get_their_own_entry(tmp_path, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.chdir(tmp_path)
    configs = [run_config(shard=f"{i}/8") for i in range(1, 9)]
    with ThreadPoolExecutor(8) as pool:
        folders = list(pool.map(lambda c: open_run_folder(c, "m", "choice", pack_sha256=SHA, fingerprint="fp",
                                                          started=WHEN), configs))
    assert len(set(folders)) == 8
    assert sorted(e["shard"] for e in runs_index(Path("results/p"))) == sorted(c.selection.shard for c in configs)


def test_latest_names_the_run_that_finished_last_never_one_still_going(tmp_path, monkeypatch):
    first = open_here(tmp_path, monkeypatch)
    mark_finished(run_config(pack=Path("packs/p.json")), first, WHEN + dt.timedelta(minutes=5))
    assert os.readlink(Path("results/p") / LATEST_NAME) == first.name
    running = open_here(tmp_path, monkeypatch, "fp2", temperature=0.5)   # started after, not finished
    assert os.readlink(Path("results/p") / LATEST_NAME) == first.name
    entries = {e["id"]: e for e in runs_index(Path("results/p"))}
    assert entries[first.name]["finished"] == "2026-12-03T07:20:30+00:00" and "finished" not in entries[running.name]
    mark_finished(run_config(pack=Path("packs/p.json")), running, WHEN + dt.timedelta(minutes=9))
    assert os.readlink(Path("results/p") / LATEST_NAME) == running.name
    mark_finished(run_config(pack=Path("packs/p.json"), out=Path("mine")), Path("mine"), WHEN)   # --out: no index
    assert os.readlink(Path("results/p") / LATEST_NAME) == running.name


def test_the_index_is_one_json_line_and_an_index_of_the_earlier_name_is_read_and_replaced(tmp_path, monkeypatch):
    import json

    root = tmp_path / "results" / "p"
    root.mkdir(parents=True)
    (root / "m-choice-1203-071530").mkdir()
    (root / "runs.json").write_text(json.dumps({"runs": [{"id": "m-choice-1203-071530", "fingerprint": "fp1",
                                                          "pack_sha256": SHA, "shard": None, "model": "m"}]},
                                               indent=2), encoding="utf-8")
    assert open_here(tmp_path, monkeypatch) == Path("results/p/m-choice-1203-071530")   # resumed from runs.json
    other = open_here(tmp_path, monkeypatch, "fp2")
    assert not (root / "runs.json").exists()
    text = (root / INDEX_NAME).read_text(encoding="utf-8")
    assert INDEX_NAME == "runs.jsonl" and text.count("\n") == 1
    assert [e["id"] for e in json.loads(text)["runs"]] == ["m-choice-1203-071530", other.name]
