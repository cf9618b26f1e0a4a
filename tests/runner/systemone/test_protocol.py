"""The System One protocol by hand: request validation, label probabilities, answers and response checks."""

import math

import pytest

from auditpacks.runner.systemone.protocol import (
    ChoiceQuestion,
    DecisionRequest,
    SystemOneError,
    check_response,
    choice_answer,
    decision_response,
    label_probabilities,
    parse_request,
    question_count,
)

Q = {"type": "choice", "instructions": "Outcome?", "criteria": {"granted": "the claim succeeds", "dismissed": None}}


def test_a_valid_request():
    request = parse_request({"model": "m", "state": {"court": "X"}, "questions": {"q1": Q}, "extra": 1})
    assert request == DecisionRequest("m", {"court": "X"}, (
        ChoiceQuestion("q1", "Outcome?", {"granted": "the claim succeeds", "dismissed": ""}),))


def test_question_count():
    assert question_count({"questions": {"a": Q, "b": Q}}) == 2
    assert question_count({"questions": []}) == 0 and question_count("x") == 0


@pytest.mark.parametrize("body, message", [
    ([], "request body: must be a JSON object"),
    ({"model": " ", "state": "", "questions": {"q": Q}}, "request field model: must be a non-empty string"),
    ({"model": "m", "state": 3, "questions": {"q": Q}}, "request field state: must be a string, an object or an array"),
    ({"model": "m", "state": "", "questions": []}, "request field questions: must be an object mapping question ids "
                                                  "to questions"),
    ({"model": "m", "state": "", "questions": {}}, "request field questions: empty; send 1-3 questions per call"),
    ({"model": "m", "state": "", "questions": {str(i): Q for i in range(4)}},
     "request field questions: 4 questions, over the limit of 3 questions per call; split the request"),
    ({"model": "m", "state": "", "questions": {" ": Q}}, "question ' ': the id must be a non-empty string"),
    ({"model": "m", "state": "", "questions": {"q": []}}, "question 'q': must be an object"),
    ({"model": "m", "state": "", "questions": {"q": {**Q, "type": "rank"}}},
     "question 'q' field type: 'rank' is not supported; only 'choice' is"),
    ({"model": "m", "state": "", "questions": {"q": {**Q, "instructions": ""}}},
     "question 'q' field instructions: must be a non-empty string"),
    ({"model": "m", "state": "", "questions": {"q": {**Q, "criteria": ["a", "b"]}}},
     "question 'q' field criteria: must be an object mapping option keys to descriptions"),
    ({"model": "m", "state": "", "questions": {"q": {**Q, "criteria": {"a": ""}}}},
     "question 'q' field criteria: a choice needs 2-255 options, got 1"),
    ({"model": "m", "state": "", "questions": {"q": {**Q, "criteria": {"a": "", " ": ""}}}},
     "question 'q' field criteria: option key ' ' must be a non-empty string"),
    ({"model": "m", "state": "", "questions": {"q": {**Q, "criteria": {"a": "", "b": 2}}}},
     "question 'q' field criteria.b: the description must be a string or null"),
])
def test_bad_requests_name_the_question_and_field(body, message):
    with pytest.raises(SystemOneError) as err:
        parse_request(body, max_questions=3)
    assert str(err.value) == message


def test_label_probabilities_softmax_over_the_labels_by_hand():
    top = {"A": math.log(0.5), "B": math.log(0.25), "x": math.log(0.25)}
    probs = label_probabilities(top, {"A": "granted", "B": "dismissed"})
    assert probs == pytest.approx({"granted": 2 / 3, "dismissed": 1 / 3})


def test_a_label_missing_from_the_top_gets_the_floor():
    # listed mass 0.8, so 0.2 is left; one label missing: floor = min(ln 0.2, ln 0.2) = ln 0.2
    probs = label_probabilities({"A": math.log(0.6), "B": math.log(0.2)}, {"A": "a", "B": "b", "C": "c"})
    assert probs == pytest.approx({"a": 0.6, "b": 0.2, "c": 0.2})
    # listed mass 0.9 and two missing: the even share ln 0.05 is below the smallest listed ln 0.1
    probs = label_probabilities({"A": math.log(0.8), "B": math.log(0.1)}, {"A": "a", "B": "b", "C": "c", "D": "d"})
    assert probs == pytest.approx({"a": 0.8, "b": 0.1, "c": 0.05, "d": 0.05})
    assert label_probabilities({}, {"A": "a", "B": "b"}) == {"a": 0.5, "b": 0.5}


def test_choice_answer_rounds_and_breaks_ties_with_the_sampled_key():
    assert choice_answer({"a": 0.123456, "b": 0.876544}) == {
        "type": "choice", "choice": "b", "confidence": 0.8765, "probabilities": {"a": 0.1235, "b": 0.8765}}
    assert choice_answer({"a": 0.5, "b": 0.5}, sampled="b")["choice"] == "b"
    assert choice_answer({"a": 0.5, "b": 0.5}, sampled="a")["choice"] == "a"


def test_decision_response_shape():
    assert decision_response("m", {"q": {"choice": "a"}}, 10.0, 2) == {
        "model": "m", "answers": {"q": {"choice": "a"}}, "usage": {"input_tokens": 10, "output_tokens": 2}}


REQUEST = DecisionRequest("m", "", (ChoiceQuestion("q", "?", {"a": "", "b": ""}),))


def test_a_good_response_gives_its_answers():
    answers = {"q": {"choice": "a", "confidence": 0.6, "probabilities": {"a": 0.6, "b": 0.39}}}
    assert check_response({"answers": answers}, REQUEST) == answers


@pytest.mark.parametrize("answers, message", [
    (None, "response field answers: missing or not an object"),
    ({}, "answer 'q': missing or not an object"),
    ({"q": {"choice": "z", "confidence": 1}}, "answer 'q' field choice: 'z' is not one of the options"),
    ({"q": {"choice": "a", "confidence": 1.5}}, "answer 'q' field confidence: 1.5 is not a probability"),
    ({"q": {"choice": "a", "confidence": "high"}}, "answer 'q' field confidence: 'high' is not a probability"),
    ({"q": {"choice": "a", "confidence": 1, "probabilities": {"z": 1}}},
     "answer 'q' field probabilities: must map option keys to probabilities"),
    ({"q": {"choice": "a", "confidence": 1, "probabilities": {"a": 1.2, "b": -0.2}}},
     "answer 'q' field probabilities: every value must lie in [0, 1]"),
    ({"q": {"choice": "a", "confidence": 1, "probabilities": {"a": 0.5, "b": 0.47}}},
     "answer 'q' field probabilities: they sum to 0.9700, not 1"),
])
def test_bad_responses_name_the_answer_and_field(answers, message):
    with pytest.raises(SystemOneError) as err:
        check_response({"answers": answers}, REQUEST)
    assert str(err.value) == message


def test_the_limits_themselves_are_allowed():
    """Exactly ``max_questions`` questions, and 255 options in a question."""
    options = {f"o{i}": "" for i in range(255)}
    request = parse_request({"model": "m", "state": "", "questions": {"a": Q, "b": {**Q, "criteria": options}}},
                            max_questions=2)
    assert [len(q.criteria) for q in request.questions] == [2, 255]


@pytest.mark.parametrize("answer", [
    {"choice": "b", "confidence": 0.0, "probabilities": {"a": 1.0, "b": 0.0}},    # certainty, either way round
    {"choice": "a", "confidence": 1.0, "probabilities": {"a": 1.0}},
])
def test_probabilities_of_0_and_1_are_probabilities(answer):
    assert check_response({"answers": {"q": answer}}, REQUEST) == {"q": answer}


def test_a_value_over_1_is_refused_even_when_the_sum_is_within_tolerance():
    answers = {"q": {"choice": "a", "confidence": 1.0, "probabilities": {"a": 1.01, "b": 0.0}}}
    with pytest.raises(SystemOneError, match=r"probabilities: every value must lie in \[0, 1\]$"):
        check_response({"answers": answers}, REQUEST)


def test_a_response_that_is_no_object_has_no_answers():
    with pytest.raises(SystemOneError, match="^response field answers: missing or not an object$"):
        check_response([{"answers": {}}], REQUEST)


def test_very_unlikely_labels_still_share_the_probability():
    """A grammar-bound server reports masked labels near -1000: A against B is e^0 to e^-1, 0.7311 to 0.2689."""
    found = label_probabilities({"A": -1000.0, "B": -1001.0}, {"A": "a", "B": "b"})
    assert found == pytest.approx({"a": 1 / (1 + math.exp(-1)), "b": math.exp(-1) / (1 + math.exp(-1))})
