"""The run record: typed fields, a JSON round trip, one-line errors for other versions and bad fields."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.runs.record import RECORD_VERSION, PackRef, RecordError, Round, RunRecord, Summary
from auditpacks.runner.cli.main import main


def record(**changes) -> RunRecord:
    base = RunRecord(model="qwen3:8b", provider="openai", judge="choice", fingerprint="abc",
                     pack=PackRef(name="p.json", sha256="0" * 64, builder="iustitia", scenarios_in_pack=9),
                     summary=Summary(scenarios=3, completed=2, errors=1, verdicts={"ERROR": 1, "pass": 2}),
                     rounds=[Round(round=1, seed=0, results="qwen3_8b.json")])
    for key, value in changes.items():
        setattr(base, key, value)
    return base


def test_round_trip_keeps_every_field_and_unknown_keys(tmp_path):
    path = tmp_path / "m.run.json"
    original = record(extra={"lock": {"pid": 7}})
    original.save(path)
    data = json.loads(path.read_text())
    assert data["record_version"] == RECORD_VERSION and data["pack"]["sha256"] == "0" * 64
    assert data["summary"]["errors"] == 1 and "notes" not in data["summary"]
    assert data["lock"] == {"pid": 7}  # a key this version does not know survives a load and save
    assert RunRecord.load(path) == original
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left


def test_graded_all():
    assert Summary(scenarios=2, completed=2).graded_all
    assert not Summary(scenarios=2, completed=1, errors=1).graded_all
    assert not Summary(scenarios=0).graded_all
    assert not Summary(scenarios=2, completed=2, outcomes={"ungraded": 2}).graded_all   # the judge graded nothing
    assert Summary(scenarios=2, completed=2, outcomes={"ungraded": 1, "correct": 1}).graded_all


@pytest.mark.parametrize("change, message", [
    (lambda d: d.pop("record_version"), "m.run.json: a run record from before record_version 1"),
    (lambda d: d.update(record_version=99), "m.run.json: run record version 99; this auditpacks reads version 1"),
    (lambda d: d.update(model=3), "m.run.json: field model is 3, not a str"),
    (lambda d: d["pack"].pop("sha256"), "m.run.json: pack: field sha256 is None, not a str"),
    (lambda d: d["summary"].update(errors="1"), "m.run.json: summary: field errors is '1', not an integer"),
    (lambda d: d.update(repeats=0), "m.run.json: field repeats is 0, not a positive integer"),
    (lambda d: d.update(repeats=2), "m.run.json: field rounds lists 1 rounds but repeats is 2"),
    (lambda d: d["rounds"][0].update(round=0), r"m.run.json: rounds\[0\]: field round is 0, not a positive integer"),
])
def test_bad_records_are_one_line_errors(tmp_path, change, message):
    data = record().to_dict()
    change(data)
    path = tmp_path / "m.run.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RecordError, match="^" + message):
        RunRecord.load(path)


def test_merge_reports_an_old_record_in_one_line(tmp_path, capsys):
    shard = tmp_path / "s1"
    shard.mkdir()
    (shard / "m.run.json").write_text(json.dumps({"model": "m", "shard": {"spec": "1/2"}}))
    assert main(["merge", str(shard), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["auditpacks: error: m.run.json: a run record from before record_version 1 (no record_version "
                   "field); run it again with this auditpacks"]
