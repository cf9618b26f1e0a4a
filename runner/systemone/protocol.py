"""The System One decision protocol: request validation and response shapes (pure functions).

Request::

    {"model": str, "state": str | object | array,
     "questions": {<id>: {"type": "choice", "instructions": str, "criteria": {<key>: <description>}}}}

Response::

    {"model": str,
     "answers": {<id>: {"type": "choice", "choice": <key>, "confidence": p, "probabilities": {<key>: p}}},
     "usage": {"input_tokens": int, "output_tokens": int}}

Limits: 1-64 questions per call, 2-255 options per choice question, probabilities rounded
to 4 decimals (a summing tolerance of 0.02 is allowed). Used by the decision server and by
clients that check what they send and receive. Every error is a ``SystemOneError`` whose
one-line message names the question id and the field.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from auditpacks.core.defaults import MAX_QUESTIONS

MIN_OPTIONS, MAX_OPTIONS = 2, 255
PROBABILITY_DECIMALS = 4
SUM_TOLERANCE = 0.02
#: Stand-in for a residual probability of zero when deriving the floor of unseen labels.
TINY = 1e-12


class SystemOneError(ValueError):
    """A request or response that breaks the System One protocol."""


@dataclass(frozen=True)
class ChoiceQuestion:
    id: str
    instructions: str
    criteria: dict[str, str]  # option key -> description ("" when the request gave none)


@dataclass(frozen=True)
class DecisionRequest:
    model: str
    state: str | dict | list
    questions: tuple[ChoiceQuestion, ...]


def question_count(body: Any) -> int:
    """How many questions a body carries (0 when it carries no question mapping)."""
    questions = body.get("questions") if isinstance(body, Mapping) else None
    return len(questions) if isinstance(questions, Mapping) else 0


def parse_request(body: Any, *, max_questions: int = MAX_QUESTIONS) -> DecisionRequest:
    """A validated request. Unknown top-level and question keys are ignored."""
    if not isinstance(body, Mapping):
        raise SystemOneError("request body: must be a JSON object")
    model = body.get("model")
    if not isinstance(model, str) or not model.strip():
        raise SystemOneError("request field model: must be a non-empty string")
    state = body.get("state")
    if not isinstance(state, (str, dict, list)):
        raise SystemOneError("request field state: must be a string, an object or an array")
    questions = body.get("questions")
    if not isinstance(questions, Mapping):
        raise SystemOneError("request field questions: must be an object mapping question ids to questions")
    if not questions:
        raise SystemOneError(f"request field questions: empty; send 1-{max_questions} questions per call")
    if len(questions) > max_questions:
        raise SystemOneError(f"request field questions: {len(questions)} questions, over the limit of "
                             f"{max_questions} questions per call; split the request")
    return DecisionRequest(model, state, tuple(_question(qid, q) for qid, q in questions.items()))


def _question(qid: Any, question: Any) -> ChoiceQuestion:
    if not isinstance(qid, str) or not qid.strip():
        raise SystemOneError(f"question {qid!r}: the id must be a non-empty string")
    where = f"question {qid!r} field"
    if not isinstance(question, Mapping):
        raise SystemOneError(f"question {qid!r}: must be an object")
    if question.get("type") != "choice":
        raise SystemOneError(f"{where} type: {question.get('type')!r} is not supported; only 'choice' is")
    instructions = question.get("instructions")
    if not isinstance(instructions, str) or not instructions.strip():
        raise SystemOneError(f"{where} instructions: must be a non-empty string")
    criteria = question.get("criteria")
    if not isinstance(criteria, Mapping):
        raise SystemOneError(f"{where} criteria: must be an object mapping option keys to descriptions")
    if not MIN_OPTIONS <= len(criteria) <= MAX_OPTIONS:
        raise SystemOneError(f"{where} criteria: a choice needs {MIN_OPTIONS}-{MAX_OPTIONS} options, "
                             f"got {len(criteria)}")
    for key, description in criteria.items():
        if not isinstance(key, str) or not key.strip():
            raise SystemOneError(f"{where} criteria: option key {key!r} must be a non-empty string")
        if description is not None and not isinstance(description, str):
            raise SystemOneError(f"{where} criteria.{key}: the description must be a string or null")
    return ChoiceQuestion(qid, instructions, {k: v or "" for k, v in criteria.items()})


def label_probabilities(top_logprobs: Mapping[str, float], labels: Mapping[str, str]) -> dict[str, float]:
    """Softmax over the labels' logprobs, as unrounded probabilities per option key.

    ``top_logprobs`` maps tokens to logprobs (the top alternatives of one position);
    ``labels`` maps each label token to its option key. A label missing from the top
    alternatives gets the floor: the lower of the smallest listed logprob and an even share
    of the unlisted probability mass, both upper bounds on its true logprob.
    """
    missing = [label for label in labels if label not in top_logprobs]
    floor = 0.0
    if missing and top_logprobs:
        residual = 1.0 - sum(math.exp(lp) for lp in top_logprobs.values())
        floor = min(min(top_logprobs.values()), math.log(max(residual, TINY) / len(missing)))
    logprobs = {labels[label]: top_logprobs.get(label, floor) for label in labels}
    peak = max(logprobs.values())
    weights = {key: math.exp(lp - peak) for key, lp in logprobs.items()}
    total = sum(weights.values())
    return {key: w / total for key, w in weights.items()}


def choice_answer(probabilities: Mapping[str, float], sampled: str | None = None) -> dict[str, Any]:
    """One answer: the most probable key (ties go to ``sampled``), its confidence, all probabilities."""
    choice = max(probabilities, key=lambda key: (probabilities[key], key == sampled))
    rounded = {key: round(p, PROBABILITY_DECIMALS) for key, p in probabilities.items()}
    return {"type": "choice", "choice": choice, "confidence": rounded[choice], "probabilities": rounded}


def decision_response(model: str, answers: Mapping[str, dict], input_tokens: int, output_tokens: int) -> dict:
    """The response body for a whole request."""
    return {"model": model, "answers": dict(answers),
            "usage": {"input_tokens": int(input_tokens), "output_tokens": int(output_tokens)}}


def check_response(body: Any, request: DecisionRequest) -> dict[str, dict]:
    """The answers of a response, checked against the request it answers."""
    answers = body.get("answers") if isinstance(body, Mapping) else None
    if not isinstance(answers, Mapping):
        raise SystemOneError("response field answers: missing or not an object")
    for question in request.questions:
        answer = answers.get(question.id)
        where = f"answer {question.id!r} field"
        if not isinstance(answer, Mapping):
            raise SystemOneError(f"answer {question.id!r}: missing or not an object")
        if not isinstance(answer.get("choice"), str) or answer["choice"] not in question.criteria:
            raise SystemOneError(f"{where} choice: {answer.get('choice')!r} is not one of the options")
        confidence = answer.get("confidence")
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 <= confidence <= 1.0:
            raise SystemOneError(f"{where} confidence: {confidence!r} is not a probability")
        probabilities = answer.get("probabilities")
        if probabilities is not None:
            _check_probabilities(where, probabilities, question)
    return dict(answers)


def _check_probabilities(where: str, probabilities: Any, question: ChoiceQuestion) -> None:
    if not isinstance(probabilities, Mapping) or set(probabilities) - set(question.criteria):
        raise SystemOneError(f"{where} probabilities: must map option keys to probabilities")
    if not all(isinstance(p, (int, float)) and not isinstance(p, bool) and 0.0 <= p <= 1.0
               for p in probabilities.values()):
        raise SystemOneError(f"{where} probabilities: every value must lie in [0, 1]")
    if abs(sum(probabilities.values()) - 1.0) > SUM_TOLERANCE:
        raise SystemOneError(f"{where} probabilities: they sum to {sum(probabilities.values()):.4f}, not 1")
