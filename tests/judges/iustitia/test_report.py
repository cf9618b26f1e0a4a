"""Iustitia's report section: per-question agreement, coverage as the card defines it (predictions given ÷
tasks, as in the headline and the export) and valid answers shown apart."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from auditpacks.judges.iustitia.agreement import agreement, headline
from auditpacks.judges.iustitia.run_tasks import tasks_from_scenarios
from auditpacks.judges.iustitia.export import export_predictions
from auditpacks.judges.figures import Cell, Plot
from auditpacks.judges.iustitia.report import answer, group, per_question, section
from auditpacks.judges.iustitia.report import headline as headline_figures
from tests.support.hand_runs import RunView, choice_result, error_result
from tests.support.tiny_pack import write_pack


def one_round(pairs) -> RunView:
    """A one-round choice_match run of an Iustitia pack, as the report reads it."""
    return RunView([pairs], "choice_match", {"name": "iustitia"})


@pytest.fixture()
def run(tmp_path) -> RunView:
    """Ten tiny closed questions (q{i % 5}); q0: one right, one answered off the options; q1: one reply with
    no readable option, one ERROR; q2…q4: every answer right."""
    scenarios = json.loads(write_pack(tmp_path / "tiny.json", 10, per_document=2).read_text(encoding="utf-8"))
    special = {5: choice_result(scenarios[5], "maybe"), 1: choice_result(scenarios[1], None),
               6: error_result(scenarios[6])}
    return one_round([(s, special.get(i) or choice_result(s, s["decision"]["accepted"][0]))
                for i, s in enumerate(scenarios)])


def test_per_question_coverage_counts_predictions_given_and_valid_answers_apart(run):
    rows = {r["question"]: r for r in per_question(run)}
    q0, q1 = rows["q0"], rows["q1"]
    assert (q0["tasks"], q0["correct"], q0["agreement"]) == (2, 1, 0.5)
    assert q0["coverage"] == 1.0 and q0["valid"] == 0.5  # "maybe" is a prediction, not one of the options
    assert (q1["tasks"], q1["correct"], q1["coverage"], q1["valid"]) == (2, 0, 0.0, 0.0)  # no choice; an ERROR
    assert all(rows[q]["coverage"] == rows[q]["valid"] == 1.0 for q in ("q2", "q3", "q4"))


def test_report_headline_and_export_share_one_coverage(run):
    head = run.headline().values
    assert head == headline(run.pairs())   # Iustitia's agreement headline
    assert head["coverage"] == 0.8  # 8 predictions given for 10 tasks
    rows = per_question(run)
    assert sum(r["coverage"] * r["tasks"] for r in rows) / sum(r["tasks"] for r in rows) == head["coverage"]
    records, skipped = export_predictions({"results": [r for _, r in run.pairs()]},
                                          {s["name"]: s["name"] for s, _ in run.pairs()})
    assert len(records) == 8 and len(skipped) == 1 and None not in [r["choice"] for r in records]
    scored = agreement(tasks_from_scenarios(s for s, _ in run.pairs()), {r["task_id"]: r["choice"] for r in records})
    assert scored["coverage"] == head["coverage"] and scored["micro"] == head["micro"] == 0.7


def test_section_is_a_table_a_plot_and_the_headline_warnings(run):
    part = section(run)
    (table,) = part.tables
    assert [c.title for c in table.columns] == ["Question", "Tasks", "Correct", "Agreement",
                                                "Judgment bootstrap 95%", "Coverage", "Valid answers"]
    assert table.md_columns == ["Question", "Tasks", "Correct", "Agreement", "Judgment bootstrap 95%"]
    assert [row[0].value for row in table.rows] == ["q0", "q1", "q2", "q3", "q4"]
    (plot,) = part.plots
    assert plot.kind == "dots" and plot.series["agreement"][0] == [0.5, 0.0, 1.0, 1.0, 1.0]
    # each question is asked in two judgments (q0: V0000 and V0002): too few to resample, so no interval
    assert part.warnings == ["only 5 judgments: judgment-bootstrap intervals under-cover with few clusters",
                             "per question: 5 of 5 questions rest on fewer than 3 judgments (q0, q1, q2, q3, q4); "
                             "their intervals are withheld"]
    assert all(r["judgments"] == 2 and r["ci"] is None for r in per_question(run))


def test_a_question_asked_in_three_judgments_or_more_keeps_its_interval(tmp_path):
    # 30 scenarios, two per judgment: q0 is asked in V0000, V0002, V0005, V0007, V0010 and V0012
    scenarios = json.loads(write_pack(tmp_path / "tiny.json", 30, per_document=2).read_text(encoding="utf-8"))
    run = one_round([(s, choice_result(s, s["decision"]["accepted"][0])) for s in scenarios])
    rows = {r["question"]: r for r in per_question(run)}
    assert rows["q0"]["judgments"] == 6 and rows["q0"]["ci"] == [1.0, 1.0]
    assert not any(w.startswith("per question:") for w in section(run).warnings)


def test_answer_words():
    assert answer({"choice": "guilty", "choice_method": "label"}) == "chose guilty (label)"
    assert answer({"choice": None}) == "no choice read"


def _task(name, verdict, question_id, options=("a", "b")):
    return {"name": name, "decision": {"id": question_id, "accepted": ["a"], "criteria": {o: "" for o in options}},
            "metadata": {"task_id": name, "verdict_id": verdict, "question_id": question_id}}


def _run(*rounds, warnings=()):
    """A run as the section reads it: its rounds' (scenario, result) pairs and a headline with ``warnings``."""
    return SimpleNamespace(pairs=lambda round_index=0: rounds[round_index],
                           headline=lambda round_index=0: SimpleNamespace(warnings=list(warnings),
                                                                          figures=[f"round {round_index}"]))


def _chose(choice, severity="pass"):
    return {"severity": severity, "judgment": {"choice": choice}}


def _three_judgments():
    """qA asked six times in three judgments: V1 right, wrong, off the options; V2 right, nothing read; V3 right."""
    return [(_task("t1", "V1", "qA"), _chose("a")), (_task("t2", "V1", "qA"), _chose("b")),
            (_task("t3", "V1", "qA"), _chose("zz")), (_task("t4", "V2", "qA"), _chose("a")),
            (_task("t5", "V2", "qA"), _chose(None, "low")), (_task("t6", "V3", "qA"), _chose("a"))]


def test_each_task_of_a_judgment_counts_and_three_judgments_keep_the_interval():
    (row,) = per_question(_run([], _three_judgments()), 1)
    assert {k: row[k] for k in ("question", "tasks", "correct", "agreement", "judgments", "coverage", "valid")} == {
        "question": "qA", "tasks": 6, "correct": 3, "agreement": 0.5, "judgments": 3,
        "coverage": 5 / 6, "valid": 4 / 6}
    assert len(row["ci"]) == 2 and row["ci"][0] <= 0.5 <= row["ci"][1]


def test_the_section_shows_a_row_of_typed_cells_and_a_dot_per_question_for_the_round_asked():
    part = section(_run([], _three_judgments(), warnings=["a warning"]), 1)
    (table,) = part.tables
    ci = per_question(_run(_three_judgments()))[0]["ci"]
    assert table.title == "Per question"
    assert table.rows == [[Cell("qA"), Cell(6, "count"), Cell(3, "count"), Cell(0.5, "%"), Cell(ci, "interval"),
                           Cell(5 / 6, "%"), Cell(4 / 6, "%")]]
    assert part.plots == [Plot("dots", ["qA"], {"agreement": ([0.5], [ci])},
                               "agreement with the reference (95% interval, judgments resampled)", 1.0)]
    assert part.warnings == ["a warning"]      # three judgments: not too few


def test_the_warning_names_the_first_five_questions_with_too_few_judgments():
    part = section(_run([(_task(f"t{i}", "V1", f"q{i}"), _chose("a")) for i in range(6)]))
    assert part.warnings == ["per question: 6 of 6 questions rest on fewer than 3 judgments (q0, q1, q2, q3, q4 …); "
                             "their intervals are withheld"]


def test_a_round_without_graded_tasks_has_an_empty_table_and_no_plot():
    part = section(_run([(_task("t1", "V1", "qA") | {"decision": {"accepted": []}}, _chose("a"))]))
    assert part.tables[0].rows == [] and part.plots == [] and part.warnings == []


def test_the_headline_group_and_answer_of_a_round_and_a_scenario():
    assert (headline_figures(_run([])), headline_figures(_run([], []), 1)) == (["round 0"], ["round 1"])
    assert group(_task("t1", "V1", "qA") | {"decision": {"id": "d"}}) == "qA"
    assert group({"name": "t", "decision": {"id": "d"}}) == "d"
    assert answer({"choice": "guilty", "choice_source": "logprobs"}) == "chose guilty (logprobs)"
