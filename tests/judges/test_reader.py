"""A run read through the benchmark that reads it: its headline and figures, verdict words, report, grouping."""

from __future__ import annotations

from auditpacks.judges.reader import Reader
from tests.support.tiny_pack import tiny_scenario

AGREEMENT = {"tasks": 4, "judgments": 2, "micro": 0.5, "macro": 0.25, "coverage": 0.75,
             "ci": {"micro": [0.0, 1.0], "macro": [0.0, 0.5], "coverage": [0.5, 1.0]}}


def test_closed_question_judges_get_the_reading_benchmarks_agreement_figures():
    for judge in ("choice", "choice_match"):
        rows = Reader.of(judge).figures(AGREEMENT)
        assert [f.name for f in rows] == ["agreement (micro)", "agreement (macro)", "coverage", "tasks", "judgments"]
        assert rows[2].value == 0.75 and rows[2].meaning.endswith("(the card's len(predictions) / n)")


def test_a_general_judge_declares_its_own_and_unknown_shapes_are_leaves():
    checklist = Reader.of("checklist").figures({"checklist items": {"met": 3}, "verdicts": {"pass": 1}, "graded": 1,
                                                "pass_rate": 1.0, "pass_wilson95": [0.2, 1.0],
                                                "all_not_applicable": 0})
    assert [f.name for f in checklist][:2] == ["pass rate", "verdict pass"]
    rows = Reader.of("no such judge").figures({"a": 2, "b": {"c": 0.5, "d": "text"}})
    assert [(f.name, f.value, f.unit) for f in rows] == [("a", 2, "count"), ("b c", 0.5, "ratio")]
    assert Reader.of("grounding").figures({"error": "ZeroDivisionError"}) == []


def test_a_choice_match_run_no_benchmark_reads_gets_the_general_pass_rate():
    # three scenarios: pass, medium (wrong), ungraded; pass rate 1 of 2 graded
    pairs = [({"name": "a"}, {"severity": "pass"}), ({"name": "b"}, {"severity": "medium"}),
             ({"name": "c"}, {"severity": "ungraded"}), ({"name": "d"}, None)]
    generic = Reader("choice_match")
    head = generic.headline(pairs)
    assert head.values["verdicts"] == {"pass": 1, "medium": 1, "ungraded": 1, "skipped": 1}
    assert head.values["graded"] == 2 and head.values["pass_rate"] == 0.5
    assert [(f.name, f.value) for f in head.figures][:2] == [("pass rate", 0.5), ("verdict pass", 1)]
    choice = Reader("choice").headline([({"name": "a"}, {"severity": "pass", "judgment": {"choice_method": "plain"}})])
    assert choice.values["choice_methods"] == {"plain": 1} and choice.values["pass_rate"] == 1.0


def test_an_iustitia_pack_graded_by_choice_is_pooled_as_agreement_with_the_choice_methods():
    scenarios = [tiny_scenario(i) for i in range(3)]   # judgments V0000 (3 tasks), accepted option i % 3
    pairs = [(s, {"severity": "pass", "judgment": {"choice": s["decision"]["accepted"][0], "choice_method": "label"}})
             for s in scenarios]
    head = Reader.of("choice", {"name": "iustitia"}).headline(pairs)
    assert head.values["micro"] == 1.0 and head.values["tasks"] == 3 and head.values["judgments"] == 1
    assert list(head.values)[-1] == "choice_methods" and head.values["choice_methods"] == {"label": 3}
    assert head.figures[0].name == "agreement (micro)"


class Unreadable:
    """Pairs a grader cannot read."""

    def __iter__(self):
        raise ZeroDivisionError("division by zero")


def test_a_failing_headline_is_kept_as_its_error(capsys):
    head = Reader.of("checklist").headline(Unreadable())
    assert head.values == {"error": "ZeroDivisionError: division by zero"} and head.figures == []
    assert head.error == "ZeroDivisionError: division by zero"
    assert "warning: checklist headline failed: ZeroDivisionError" in capsys.readouterr().err


def test_add_keeps_the_graders_values_in_place_and_appends_new_ones():
    reader = Reader.of("choice")
    head = reader.read({**AGREEMENT, "warnings": ["w1"]})
    added = reader.add(head, warnings=["w1", "w2"], panel={"judges": []})
    assert list(added.values) == [*AGREEMENT, "warnings", "panel"] and added.warnings == ["w1", "w2"]


def test_grouping_comes_from_the_pack_benchmark_and_clusters_from_the_reading_one():
    scenario = {"name": "s", "metadata": {"verdict_id": "V1", "question_id": "Q", "case_id": "C"},
                "decision": {"id": "D"}}
    iustitia = Reader.of("choice_match", {"name": "iustitia"})
    assert (iustitia.document(scenario), iustitia.question(scenario), iustitia.cluster(scenario)) == ("V1", "Q", "V1")
    icj = Reader.of("citations", {"name": "icj"})
    assert (icj.document(scenario), icj.question(scenario)) == ("C", "D")   # no questions: the decision's id
    checklist = Reader.of("checklist", {"name": "iustitia"})
    assert (checklist.document(scenario), checklist.question(scenario)) == ("V1", "Q")
    assert checklist.cluster is None and checklist.paired is None and checklist.report is None
    generic = Reader("checklist")
    assert (generic.document(scenario), generic.question(scenario), generic.per) == (None, "D", None)
