"""The typed values of a run's figures: a headline's warnings and error, tables, question groups, verdict words."""

from __future__ import annotations

from auditpacks.judges.figures import Column, Headline, Table, leaves, outcome, outcome_words, question_group


def test_a_headline_holds_its_figures_and_the_graders_values_with_their_warnings_and_error():
    values = {"micro": 0.5, "warnings": ["only 2 judgments"], "calibration": {"ece": 0.1}}
    head = Headline(values)
    assert head.warnings == ["only 2 judgments"] and head.error is None and head.calibration == {"ece": 0.1}
    failed = Headline({"error": "ZeroDivisionError: division by zero"})
    assert failed.error == "ZeroDivisionError: division by zero" and failed.warnings == [] and failed.figures == []
    assert Headline({"calibration": None}).calibration is None
    assert leaves({"n": float("nan"), "m": None}) == leaves({"m": None})  # NaN is no figure; None is n/a


def test_a_headlines_figures_are_made_once_when_first_asked_for():
    made = []
    head = Headline({"n": 2}, reading=lambda values: made.append(dict(values)) or leaves(values))
    assert made == [] and head.values == {"n": 2}   # kept and stored without making a figure
    assert [f.name for f in head.figures] == ["n"] and head.figures is head.figures and made == [{"n": 2}]


def test_markdown_keeps_the_columns_not_marked_html_only():
    table = Table("t", [Column("A"), Column("B", md=""), Column("C", md="C in Markdown")], [[1, 2, 3], [4, 5, 6]])
    assert table.md_columns == ["A", "C in Markdown"] and table.md_rows == [[1, 3], [4, 6]]


def test_question_group():
    scenario = {"metadata": {"question_id": "q1"}, "category": "x"}
    assert question_group(scenario, lambda s: s["metadata"]["question_id"]) == "q1"   # the benchmark's question
    assert question_group(scenario) == "x"   # the generic rule reads no benchmark's field
    assert question_group({"decision": {"id": "d"}}) == "d" and question_group({}) == "all"
    assert question_group({"decision": {"id": "d"}}, lambda s: None) == "d"


def test_a_result_whose_judgment_failed_is_an_error_word_as_it_is_an_error_count():
    from auditpacks.judges.figures import outcome

    assert outcome({"severity": "pass", "judgment": {"severity": "ERROR"}}) == "error"
    assert outcome({"severity": "ERROR"}) == "error"
    assert outcome({"severity": "pass", "judgment": {"severity": "pass"}}) == "correct"
    assert outcome({"severity": "ungraded", "judgment": {}}) == "ungraded"


def test_a_benchmarks_own_word_comes_between_wrong_and_ungraded():
    def own(result):
        return "invented" if result.get("judgment", {}).get("n_invented") else None

    assert outcome({"severity": "high", "judgment": {"n_invented": 2}}, own) == "invented"
    assert outcome({"severity": "high", "judgment": {"n_invented": 2}}) == "wrong"
    assert outcome({"severity": "ungraded", "judgment": {"n_invented": 2}}, own) == "ungraded"
    assert outcome_words() == ("correct", "wrong", "invented", "ungraded", "error")   # jacite's word, installed
