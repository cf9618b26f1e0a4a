"""Where a run's files go, and the refusal to write over a run of another pack or other settings."""

from pathlib import Path

import pytest

from auditpacks.core.record import PackRef, Round, RunRecord, Summary
from auditpacks.runner.execution.config import RunError
from auditpacks.runner.execution.layout import guard_folder, results_name, run_folder

SHA = "ab" * 32


def save_record(folder: Path, stem="m", sha=SHA, fingerprint="fp1"):
    record = RunRecord(model="m", provider="openai", judge="choice_match", fingerprint=fingerprint,
                       pack=PackRef(name="p.json", sha256=sha, builder="tests", scenarios_in_pack=3),
                       summary=Summary(scenarios=3, completed=3), rounds=[Round(round=1, seed=0, results="m.json")])
    record.save(folder / f"{stem}.run.json")


def test_run_folder_defaults_to_results_and_the_pack_stem():
    assert run_folder(None, Path("packs/jacite_smoke.json")) == Path("results/jacite_smoke")
    assert run_folder(Path("out/here"), Path("p.json")) == Path("out/here")


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
