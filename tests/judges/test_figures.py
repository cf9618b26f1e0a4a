"""Figures by judge: a benchmark's own, a general judge's own, or a headline's numeric leaves."""

from __future__ import annotations

from auditpacks.judges.figures import Column, Table, figures, leaves, question_group


def test_closed_question_judges_get_the_owning_benchmarks_agreement_figures():
    head = {"tasks": 4, "judgments": 2, "micro": 0.5, "macro": 0.25, "coverage": 0.75,
            "ci": {"micro": [0.0, 1.0], "macro": [0.0, 0.5], "coverage": [0.5, 1.0]}}
    for judge in ("choice", "choice_match"):
        rows = figures(judge, head)
        assert [f.name for f in rows] == ["agreement (micro)", "agreement (macro)", "coverage", "tasks", "judgments"]
        assert rows[2].value == 0.75 and rows[2].meaning.endswith("(the card's len(predictions) / n)")


def test_a_general_judge_declares_its_own_and_unknown_shapes_are_leaves():
    checklist = figures("checklist", {"checklist items": {"met": 3}, "verdicts": {"pass": 1}, "graded": 1,
                                      "pass_rate": 1.0, "pass_wilson95": [0.2, 1.0], "all_not_applicable": 0})
    assert [f.name for f in checklist][:2] == ["pass rate", "verdict pass"]
    rows = figures("no such judge", {"a": 2, "b": {"c": 0.5, "d": "text"}})
    assert [(f.name, f.value, f.unit) for f in rows] == [("a", 2, "count"), ("b c", 0.5, "ratio")]
    assert figures("grounding", {"error": "ZeroDivisionError"}) == []
    assert leaves({"n": float("nan"), "m": None}) == leaves({"m": None})  # NaN is no figure; None is n/a


def test_markdown_keeps_the_columns_not_marked_html_only():
    table = Table("t", [Column("A"), Column("B", md=""), Column("C", md="C in Markdown")], [[1, 2, 3], [4, 5, 6]])
    assert table.md_columns == ["A", "C in Markdown"] and table.md_rows == [[1, 3], [4, 6]]


def test_question_group():
    assert question_group({"metadata": {"question_id": "q1"}, "category": "x"}) == "q1"
    assert question_group({"decision": {"id": "d"}}) == "d" and question_group({}) == "all"


def test_a_result_whose_judgment_failed_is_an_error_word_as_it_is_an_error_count():
    from auditpacks.judges.figures import outcome

    assert outcome({"severity": "pass", "judgment": {"severity": "ERROR"}}) == "error"
    assert outcome({"severity": "ERROR"}) == "error"
    assert outcome({"severity": "pass", "judgment": {"severity": "pass"}}) == "correct"
    assert outcome({"severity": "ungraded", "judgment": {}}) == "ungraded"
