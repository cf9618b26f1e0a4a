"""A reader built from a run record, the headline a record keeps for the run and for each round, verdict words
through the reading benchmark, and when a headline has figures at all."""

from __future__ import annotations

import json

from auditpacks.core.benchmark import Benchmark
from auditpacks.core.registry import BENCHMARKS
from auditpacks.core.runs.record import RunRecord
from auditpacks.judges.figures import Figure
from auditpacks.judges.reader import Reader
from tests.support.hand_runs import choice_result, write_run
from tests.support.tiny_pack import write_pack

AGREEMENT = {"tasks": 4, "judgments": 2, "micro": 0.5, "macro": 0.25, "coverage": 0.75, "ci": {}}


def repeated_record(tmp_path, builder, judge: str = "choice_match") -> RunRecord:
    """A two-round run whose record keeps a headline for the run and one per round."""
    pack = write_pack(tmp_path / "tiny.json", 4)
    scenarios = json.loads(pack.read_text(encoding="utf-8"))
    results = [choice_result(s, s["decision"]["accepted"][0]) for s in scenarios]
    path = write_run(tmp_path / "run", "m", pack, judge, results, results)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["pack"]["builder"] = builder
    data["summary"]["headline"] = {**AGREEMENT, "micro": 0.5}
    for one, micro in zip(data["rounds"], (0.25, 0.75)):
        one["summary"] = {**data["summary"], "headline": {**AGREEMENT, "micro": micro}}
    return RunRecord.from_dict(data, source=path.name)


def test_a_reader_of_a_record_reads_its_judge_on_its_builders_pack(tmp_path):
    # jacite's grader on an iustitia pack: jacite reads the results, iustitia groups the scenarios
    reader = Reader.of_record(repeated_record(tmp_path, {"name": "iustitia"}, "grounding"))
    assert reader == Reader("grounding", "jacite", "iustitia")
    assert Reader.of_record(repeated_record(tmp_path / "other", "tests", "grounding")) == Reader(
        "grounding", "jacite", "jacite")


def test_the_recorded_headline_of_the_run_and_of_each_round(tmp_path):
    record = repeated_record(tmp_path, {"name": "iustitia"})
    reader = Reader.of_record(record)
    assert reader.recorded(record).values["micro"] == 0.5
    assert reader.recorded(record, 0).values["micro"] == 0.25 and reader.recorded(record, 1).values["micro"] == 0.75
    assert reader.recorded(record, 1).figures[0].name == "agreement (micro)"
    record.rounds[1].summary = None   # a round recorded before headlines were kept
    assert reader.recorded(record, 1).values == {} and reader.recorded(record, 1).figures == []


def test_verdict_words_through_the_reading_benchmark():
    invented = {"severity": "high", "judgment": {"n_invented": 1}}
    assert Reader.of("grounding").outcome(invented) == "invented"
    assert Reader("grounding").outcome(invented) == "wrong"   # no benchmark reads it: the generic words
    assert Reader.of("grounding").outcome({"severity": "pass", "judgment": {"n_invented": 0}}) == "correct"
    assert Reader.of("grounding").outcome({"severity": "ERROR"}) == "error"


def test_only_a_headline_that_is_nothing_but_an_error_has_no_figures():
    icj = Reader.of("citations")
    assert icj.figures({"error": "ZeroDivisionError: division by zero"}) == [] and icj.figures({}) == []
    rows = Reader("no such judge").figures({"micro": 0.5})   # one value, and not an error
    assert rows == [Figure("micro", 0.5, "ratio")]
    both = Reader("no such judge").figures({"error": "late", "tasks": 3})
    assert both == [Figure("tasks", 3, "count")]


def test_a_benchmark_that_declares_no_figures_shows_the_numeric_leaves(monkeypatch):
    monkeypatch.setattr("auditpacks.judges.reader.BENCHMARKS", {**BENCHMARKS, "plain": Benchmark("Plain", "tests")})
    rows = Reader("choice_match", "plain").figures({"tasks": 3, "ci": {"micro": 0.5}, "method": "x"})
    assert rows == [Figure("tasks", 3, "count"), Figure("ci micro", 0.5, "ratio")]
