"""A run's headline rows in the report: none for a run in which every scenario ended in ERROR."""

from __future__ import annotations

import json

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
