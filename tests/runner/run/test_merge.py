"""Merging shards written by hand: run records read through RunRecord, results checked one at a time, and one
meaning of an ERROR result in the merged counts."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.runs.record import PackRef, Round, RunRecord, Summary
from auditpacks.runner.run.merge import MergeError, load_shard, merge


def result(name: str, severity: str = "pass", judgment_severity: str | None = None) -> dict:
    return {"scenario_name": name, "scenario_description": "d", "conversation": [], "severity": severity,
            "issues_found": [], "positive_behaviors": [], "summary": "", "recommendations": [],
            "judgment": {"severity": judgment_severity or severity}}


def shard(folder, index: int, positions: list[int], results: list[dict], base_url: str | None = None,
          more: tuple[str, ...] = ()):
    """``m.json`` and ``m.run.json`` of shard ``index``/2 of a three-scenario selection (served at ``base_url``
    and the replicas ``more``)."""
    folder.mkdir()
    (folder / "m.json").write_text(json.dumps({"timestamp": "t", "summary": {}, "results": results}, indent=2),
                                   encoding="utf-8")
    spec = {"spec": f"{index}/2", "index": index, "count": 2, "selected": 3, "selection_sha256": "s",
            "positions": positions}
    RunRecord(model="m", provider="openai", judge="choice_match", pack=PackRef(name="p.json", sha256="0" * 64),
              fingerprint="f", shard=spec, started=f"2026-12-0{index}T00:00:00", seconds=1.5, base_url=base_url,
              parameters={"more_base_urls": list(more)},
              summary=Summary(scenarios=len(results), completed=len(results)),
              rounds=[Round(round=1, seed=0, results="m.json")]).save(folder / "m.run.json")
    return folder


def test_a_bad_result_in_a_shard_names_the_shard_file_result_and_field(tmp_path):
    folder = shard(tmp_path / "s1", 1, [0, 2], [result("a"), {**result("c"), "conversation": "text"}])
    with pytest.raises(MergeError) as err:
        load_shard(folder, None)
    assert str(err.value) == f"{folder}: m.json result #1: field conversation is 'text', not a list"


def test_a_bad_run_record_names_its_file_and_field(tmp_path):
    folder = shard(tmp_path / "s1", 1, [0], [result("a")])
    record = json.loads((folder / "m.run.json").read_text(encoding="utf-8"))
    (folder / "m.run.json").write_text(json.dumps({**record, "fingerprint": 7}), encoding="utf-8")
    with pytest.raises(MergeError) as err:
        load_shard(folder, None)
    assert str(err.value) == "m.run.json: field fingerprint is 7, not a str"


def test_merged_counts_take_a_failed_judge_call_as_an_error(tmp_path):
    """Three scenarios: one passes, one is marked ERROR, one failed only in its judgment: 1 completed, 2 errors."""
    s1 = shard(tmp_path / "s1", 1, [0, 2], [result("a"), result("c", "pass", "ERROR")])
    s2 = shard(tmp_path / "s2", 2, [1], [result("b", "ERROR")])
    record = merge([s2, s1], tmp_path / "out")
    merged = json.loads((tmp_path / "out" / "m.json").read_text(encoding="utf-8"))["results"]
    assert [r["scenario_name"] for r in merged] == ["a", "b", "c"]
    assert (record.summary.scenarios, record.summary.completed, record.summary.errors) == (3, 1, 2)
    assert record.summary.completion == round(1 / 3, 4)
    saved = RunRecord.load(tmp_path / "out" / "m.run.json")
    assert saved.merged_from["shards"] == ["1/2", "2/2"] and saved.seconds == 3.0 and saved.shard is None


def test_the_merged_record_and_its_header_name_every_endpoint(tmp_path):
    import io

    from auditpacks.runner.display.summary_view import print_summary

    a, b, c = "http://a:8000/v1", "http://b:8000/v1", "http://c:8000/v1"
    one = shard(tmp_path / "s1", 1, [0, 2], [result("a"), result("c")], base_url=a, more=(b,))
    two = shard(tmp_path / "s2", 2, [1], [result("b")], base_url=c, more=(a,))
    record = merge([two, one], tmp_path / "out")
    assert (record.base_url, record.parameters["more_base_urls"]) == (a, [b, c])
    printed = io.StringIO()
    print_summary(record, printed)
    assert f"m via openai at {a}, {b}, {c} · judge choice_match" in printed.getvalue()
