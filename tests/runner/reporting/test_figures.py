"""A run's headline rows in the report: one per figure of the round asked for, none for a run in which every
scenario ended in ERROR."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import pytest

from auditpacks.judges.figures import Figure
from auditpacks.runner.reporting.figures import headline_rows
from auditpacks.runner.reporting.runs import load_runs
from tests.support.hand_runs import choice_result, error_result, write_run
from tests.support.tiny_pack import write_pack


def test_an_all_error_run_has_no_figure_rows_and_an_answered_one_has_its_agreement(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 6, per_document=2)
    items = json.loads(pack.read_text(encoding="utf-8"))
    failed = write_run(tmp_path / "failed", "failed", pack, "choice_match", [error_result(s) for s in items])
    answered = write_run(tmp_path / "ok", "ok", pack, "choice_match",
                         [choice_result(s, s["decision"]["accepted"][0]) for s in items])
    dead, alive = load_runs([failed, answered])
    assert headline_rows(dead) == []    # not "agreement 0.0% [0.0%, 0.0%]"
    rows = {row["figure"]: row for row in headline_rows(alive)}
    assert rows["agreement (micro)"]["value"] == 1.0   # 6 of 6


def _run(figures_by_round, report=None, failed_all=False):
    """A stand-in for a loaded run: its summary's ERROR flag, its report module, its figures per round."""
    record = SimpleNamespace(summary=SimpleNamespace(failed_all=failed_all))
    return SimpleNamespace(record=record, report=report,
                           headline=lambda round_index=0: SimpleNamespace(figures=figures_by_round[round_index]))


def test_a_row_holds_the_figure_its_group_in_words_and_its_interval():
    shown = [Figure("agreement", 0.75, interval=(0.5, 0.9), interval_name="95% Wilson interval",
                    meaning="3 of 4", group="civil_law"),
             Figure("answered", 4, unit="count")]
    assert headline_rows(_run({0: shown})) == [
        {"figure": "agreement (civil law)", "value": 0.75, "unit": "%", "interval": [0.5, 0.9],
         "interval_name": "95% Wilson interval", "meaning": "3 of 4"},
        {"figure": "answered", "value": 4, "unit": "count", "interval": None, "interval_name": "",
         "meaning": ""}]


@pytest.mark.parametrize("interval", [(0.1, math.inf), (math.nan, 0.2), (-math.inf, math.nan)])
def test_an_interval_with_an_end_that_is_not_finite_is_left_out_with_its_name(interval):
    rows = headline_rows(_run({0: [Figure("agreement", 0.5, interval=interval, interval_name="95% CI")]}))
    assert (rows[0]["interval"], rows[0]["interval_name"]) == (None, "")


def test_a_finite_interval_without_a_name_has_an_empty_name():
    rows = headline_rows(_run({0: [Figure("agreement", 0.5, interval=(0.25, 0.75))]}))
    assert (rows[0]["interval"], rows[0]["interval_name"]) == ([0.25, 0.75], "")


def test_the_round_asked_for_is_the_one_shown_from_the_run_or_its_report():
    rounds = {0: [Figure("first", 0.1)], 1: [Figure("second", 0.2)]}
    assert [r["figure"] for r in headline_rows(_run(rounds), 1)] == ["second"]
    asked = []
    report = SimpleNamespace(headline=lambda run, round_index: asked.append(round_index) or [Figure("report's", 0.3)])
    assert [r["figure"] for r in headline_rows(_run(rounds, report=report), 1)] == ["report's"]
    assert asked == [1]


def test_a_failed_run_has_no_rows_even_with_a_report():
    report = SimpleNamespace(headline=lambda run, round_index: [Figure("agreement", 0.0)])
    assert headline_rows(_run({0: []}, report=report, failed_all=True)) == []
