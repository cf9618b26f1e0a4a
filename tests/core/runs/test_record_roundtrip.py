"""The run record: typed fields, a JSON round trip, one-line errors for other versions and bad fields."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.errors import FormatError, PackError
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


def full() -> RunRecord:
    """A record with every field away from its default (a repeated run under a tool condition, merged)."""
    from auditpacks.core.condition import Condition

    return RunRecord(
        model="m", provider="anthropic", judge="checklist", fingerprint="f",
        pack=PackRef(name="p.json", sha256="1" * 64, builder="iustitia", scenarios_in_pack=9),
        parameters={"temperature": 0.5}, auditpacks="1.0", simpleaudit="0.4", model_digest="sha256:d",
        base_url="http://h/v1", embedded=True, judge_model="jm", models={"judge": {"requests": 3}},
        judge_qualification={"status": "qualified"}, cache={"hits": 1}, performance={"requests": 2}, seed=7,
        shard={"spec": "1/2", "index": 1, "count": 2, "selected": 4, "selection_sha256": "s", "positions": [0, 3]},
        merged_from={"shards": ["1/2"]}, decision_probe={"ok": True}, cost={"usd": 0.1}, started="2026-12-01",
        seconds=12.5, repeats=2, condition=Condition(name="Tools", tools={"find": "find_case"}),
        summary=Summary(scenarios=3, completed=3, notes=["n"], unanswered=["u"]),
        rounds=[Round(round=1, seed=7, results="m.json", summary=Summary(scenarios=3, completed=3)),
                Round(round=2, seed=8, results="r/m.round2.json")],
        extra={"lock": {"pid": 7}})


def test_every_field_away_from_its_default_survives_a_round_trip(tmp_path):
    path = tmp_path / "m.run.json"
    full().save(path)
    assert RunRecord.load(path) == full()
    assert full().results_files(tmp_path) == [tmp_path / "m.json", tmp_path / "r" / "m.round2.json"]


def test_the_json_keeps_the_fields_in_order_the_condition_only_when_set():
    data = full().to_dict()
    assert list(data)[:5] == ["record_version", "model", "provider", "judge", "pack"]
    assert list(data)[-4:] == ["condition", "started", "seconds", "lock"]
    assert data["condition"] == {"name": "Tools", "tools": {"find": "find_case"}, "search": None,
                                 "cutoff_policy": None, "snapshots": {}}
    assert data["rounds"][0] == {"round": 1, "seed": 7, "results": "m.json",
                                 "summary": Summary(scenarios=3, completed=3).to_dict()}
    assert "notes" not in data["rounds"][0]["summary"] and data["rounds"][1]["summary"] is None
    plain = record(started="2026-12-02", seconds=3.0).to_dict()
    assert "condition" not in plain and (plain["started"], plain["seconds"]) == ("2026-12-02", 3.0)


def test_fields_left_out_read_as_their_defaults():
    data = record().to_dict()
    for key in ("parameters", "repeats", "condition"):
        data.pop(key, None)
    data["pack"].pop("scenarios_in_pack")
    data["rounds"][0].pop("summary")
    read = RunRecord.from_dict(data, source="m.run.json")
    assert (read.parameters, read.repeats, read.condition, read.pack.scenarios_in_pack) == ({}, 1, None, 0)
    assert read.rounds[0].summary is None


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(model=""), "m.run.json: field model is empty"),
    (lambda d: d.update(parameters=[1]), r"m.run.json: field parameters is \[1\], not a dict"),
    (lambda d: d.pop("pack"), "m.run.json: field pack is None, not a dict"),
    (lambda d: d["pack"].update(name=None), "m.run.json: pack: field name is None, not a str"),
    (lambda d: d.update(rounds={}), "m.run.json: field rounds is {}, not a list"),
    (lambda d: d.update(repeats=True), "m.run.json: field repeats is True, not a positive integer"),
    (lambda d: d.update(rounds=["m.json"]), r"m.run.json: rounds\[0\]: not a JSON object"),
    (lambda d: d["rounds"][0].update(seed=True), r"m.run.json: rounds\[0\]: field seed is True, not a int"),
    (lambda d: d["rounds"][0].update(results=3), r"m.run.json: rounds\[0\]: field results is 3, not a str"),
    (lambda d: d["rounds"][0].update(results="/" + "a" * 99),
     r"m.run.json: rounds\[0\]: field results is '/a{79}', not a file inside the run's folder$"),
    (lambda d: d["rounds"][0].update(summary={"scenarios": 1}),
     r"m.run.json: rounds\[0\].summary: field completed is None, not an integer"),
    (lambda d: d["summary"].update(unanswered="a"), "m.run.json: summary: field unanswered is not a list of scenario"),
    (lambda d: d["summary"].update(unanswered=["a", 1]), "m.run.json: summary: field unanswered is not a list of"),
])
def test_more_bad_records_are_one_line_errors(change, message):
    data = record().to_dict()
    change(data)
    with pytest.raises(RecordError, match="^" + message):
        RunRecord.from_dict(data, source="m.run.json")


def test_what_is_not_a_record_is_named(tmp_path):
    with pytest.raises(RecordError, match=r"^x: not a run record \(a JSON object expected\)$"):
        RunRecord.from_dict([], source="x")
    with pytest.raises(RecordError, match=r"^run record: not a run record"):
        RunRecord.from_dict(None)
    with pytest.raises(PackError, match=r"^m.run.json: run record not found$"):
        RunRecord.load(tmp_path / "m.run.json")
    data = {**record().to_dict(), "condition": {"tools": {}}}
    with pytest.raises(FormatError, match=r"^m.run.json: field condition is not an object with a name$"):
        RunRecord.from_dict(data, source="m.run.json")
