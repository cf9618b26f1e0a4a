"""Finding the card's smoke questions by content, on hand-made task indexes (no dataset copy needed)."""

from __future__ import annotations

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.iustitia.smoke import find_question, question_summaries, smoke_ids

PIN = "pin its id under iustitia.smoke.questions in codebook.yaml"


def task(question_id, unit_type="decision", options=("YES", "NO"), **extra):
    return {"question_id": question_id, "task_id": f"{question_id}-t", "unit_type": unit_type,
            "option_keys": list(options), **extra}


def test_summaries_take_instructions_from_the_task_else_the_questions_table():
    index = [task("A", instructions="Was the defendant found guilty?"), task("B"), task("C", "victim"),
             task("C", "defendant"), task("D", options=("0", "1", "2"))]
    table = {"B": {"instructions": "Was the sentence suspended?"}, "C": {}, "D": None}
    assert question_summaries(index, table) == {
        "A": {"instructions": "Was the defendant found guilty?", "units": {"decision"}, "options": 2},
        "B": {"instructions": "Was the sentence suspended?", "units": {"decision"}, "options": 2},
        "C": {"instructions": "", "units": {"victim", "defendant"}, "options": 2},
        "D": {"instructions": "", "units": {"decision"}, "options": 3},
    }


def test_a_task_without_a_unit_type_counts_under_none():
    without = {key: value for key, value in task("A").items() if key != "unit_type"}
    assert question_summaries([without, task("A", "victim")], {})["A"]["units"] == {None, "victim"}


QUESTIONS = {
    "GUILTY.VERDICT": {"instructions": "", "units": {"decision"}, "options": 2},
    "N_GUILTY_DEFENDANTS": {"instructions": "How many defendants were found guilty?", "units": {"decision"},
                            "options": 4},
    "DEF.SUSPENDED_SENTENCE": {"instructions": "Was the sentence suspended?", "units": {"defendant"}, "options": 2},
    "VIC.PRESENT": {"instructions": "Was the victim present at the hearing?", "units": {"victim"}, "options": 2},
    "Q7": {"instructions": "Did the victim attend the trial?", "units": {None}, "options": 3},
}


@pytest.mark.parametrize("entry, found", [
    ({"about": "guilty verdict", "unit": "decision", "match": ["guilty"]}, "GUILTY.VERDICT"),  # fewest options
    ({"about": "guilty verdict", "match": ["Guilty Verdict"]}, "GUILTY.VERDICT"),  # the id's words, any case
    ({"about": "suspended sentence", "unit": "defendant", "match": ["suspend"]}, "DEF.SUSPENDED_SENTENCE"),
    ({"about": "suspended sentence", "match": ["SUSPENDED SENTENCE"]}, "DEF.SUSPENDED_SENTENCE"),
    # a question whose tasks name no unit type is eligible for any unit: Q7 (3 options) against VIC.PRESENT (2)
    ({"about": "victim", "unit": "victim", "match": ["present|attend", "hearing|trial"]}, "VIC.PRESENT"),
    ({"about": "victim", "unit": "witness", "match": ["present|attend", "hearing|trial"]}, "Q7"),
    ({"about": "victim", "unit": "victim", "match": ["attend"]}, "Q7"),
    # pinned ids first, the first one this copy has
    ({"about": "guilty verdict", "unit": "decision", "match": ["guilty"], "ids": ["GONE", "N_GUILTY_DEFENDANTS"]},
     "N_GUILTY_DEFENDANTS"),
    ({"about": "guilty verdict", "unit": "victim", "match": ["nothing"], "ids": ["GUILTY.VERDICT"]}, "GUILTY.VERDICT"),
])
def test_a_question_is_found_by_unit_and_content(entry, found):
    assert find_question(entry, QUESTIONS) == found


@pytest.mark.parametrize("entry, unit", [
    ({"about": "suspended sentence", "unit": "decision", "match": ["suspend"]}, "decision"),  # asked of defendants
    ({"about": "suspended sentence", "unit": "victim", "match": ["suspend"]}, "victim"),
    ({"about": "suspended sentence", "match": ["suspend", "victim"]}, "any"),  # every pattern must match
    ({"about": "suspended sentence", "match": ["suspend", "victim"], "ids": ["GONE"]}, "any"),
])
def test_no_eligible_question_is_one_line_naming_unit_and_patterns(entry, unit):
    with pytest.raises(PackError) as err:
        find_question(entry, QUESTIONS)
    patterns = " and ".join(f"'{p}'" for p in entry["match"])
    assert str(err.value) == (f"smoke question 'suspended sentence': no eligible question of the tasks asks it "
                              f"({unit} targets, instructions matching {patterns}); {PIN}")


@pytest.mark.parametrize("instructions", [42, None, ["guilty"]])
def test_instructions_that_are_not_text_are_read_as_none(instructions):
    questions = {"GUILTY.VERDICT": {"instructions": instructions, "units": {"decision"}, "options": 2}}
    assert find_question({"about": "v", "match": ["^guilty verdict $"]}, questions) == "GUILTY.VERDICT"
    for pattern in ("42", "none", "x"):
        with pytest.raises(PackError, match="no eligible question"):
            find_question({"about": "v", "match": [pattern]}, questions)


def test_equal_candidates_are_refused_in_sorted_order():
    questions = {name: {"instructions": "Was the sentence suspended?", "units": {"defendant"}, "options": 2}
                 for name in ("S2", "S1")}
    with pytest.raises(PackError) as err:
        find_question({"about": "suspended sentence", "unit": "defendant", "match": ["suspend"]}, questions)
    assert str(err.value) == f"smoke question 'suspended sentence': several questions fit equally (S1, S2); {PIN}"


class Copy:
    """A dataset copy without a published smoke file; its questions table holds the instructions."""

    questions = {"Q12": {"instructions": "Was the sentence suspended?"}}

    def smoke_file(self, relative):
        return None


CODEBOOK = {"smoke": {"file": "simpleaudit/smoke.json", "questions": [
    {"about": "suspended sentence", "unit": "defendant", "match": ["suspend"]},
    {"about": "guilty verdict", "unit": "decision", "match": ["guilty"]},
]}}
INDEX = [task("Q12", "defendant") | {"task_id": "d1::Q12"},
         task("Q12", "defendant") | {"task_id": "d2::Q12"}]


def test_smoke_ids_stop_at_a_missing_question_unless_told_to_note_it():
    with pytest.raises(PackError, match="^smoke question 'guilty verdict': no eligible question"):
        smoke_ids(Copy(), INDEX, CODEBOOK)
    found, read, missing = smoke_ids(Copy(), INDEX, CODEBOOK, strict=False)
    assert found == ["d1::Q12"] and read == []  # the first task of the question its instructions name
    assert len(missing) == 1 and missing[0].startswith("smoke question 'guilty verdict': no eligible question")
