"""The request-level probes against a scripted client: the exact bodies sent and the exact findings kept."""

from __future__ import annotations

import pytest

from auditpacks.runner.systemone.probe_checks import (COLOURS, FILLER, canary_state, change, determinism, differs, filler,
                                                      option_order, schema)
from auditpacks.runner.systemone.probe_client import Reply

COLOUR = {"type": "choice", "instructions": "Which colour does the note at the end of the document name?",
          "criteria": {"red": "the note names the colour red", "blue": "the note names the colour blue",
                       "green": "the note names the colour green", "yellow": "the note names the colour yellow"}}


class Scripted:
    """A probe client that answers the n-th request with ``replies[n]`` (answers keyed by question id, or a Reply)."""

    def __init__(self, *replies) -> None:
        self.replies, self.sent, self.requests = list(replies), [], 0

    def post(self, body) -> Reply:
        self.sent.append(body)
        self.requests += 1
        reply = self.replies[len(self.sent) - 1]
        return reply if isinstance(reply, Reply) else Reply(200, reply, 0.12345)


def answer(choice: str, p: float, confidence: float | None = None) -> dict:
    """A choice with probability ``p``, the rest on red (or on blue when red is chosen)."""
    other = "blue" if choice == "red" else "red"
    return {"type": "choice", "choice": choice, "confidence": p if confidence is None else confidence,
            "probabilities": {choice: p, other: round(1 - p, 6)}}


def note(choice: str = "yes") -> dict:
    return {"type": "choice", "choice": choice, "confidence": 1.0}


def test_filler_and_the_canary_state_are_exactly_as_long_as_asked():
    assert filler(10) == FILLER[:10] and filler(0) == ""
    assert filler(2 * len(FILLER) + 5) == FILLER * 2 + FILLER[:5]
    assert canary_state("red", 7) == {"documents": [FILLER[:7] + "Note: the colour is red."]}


def test_change_counts_an_option_only_one_answer_names_and_falls_back_to_the_choice_without_probabilities():
    a = {"choice": "x", "probabilities": {"x": 0.7, "y": 0.3}}
    assert abs(change(a, {"choice": "x", "probabilities": {"x": 0.7, "z": 0.3}}) - 0.3) < 1e-12
    assert change(a, {"choice": "x"}) == 0.0 and change({"choice": "y"}, a) == 1.0
    half, quarter = {"choice": "x", "probabilities": {"x": 0.5, "y": 0.5}}, {"choice": "x", "probabilities":
                                                                                {"x": 0.75, "y": 0.25}}
    assert not differs(half, quarter, tolerance=0.25)   # a move of exactly the tolerance is the same answer


def test_the_schema_probe_asks_two_questions_and_keeps_usage_and_latency():
    client = Scripted({"answers": {"colour": answer("green", 0.9), "note": note()},
                       "usage": {"input_tokens": 10, "output_tokens": 1}, "latency_ms": 12})
    assert schema(client, "m") == {
        "requests": 1, "seconds": 0.123, "status": "ok",
        "detail": "answers keyed by question id, valid choices and probabilities",
        "usage": {"input_tokens": 10, "output_tokens": 1}, "latency_ms": 12, "notes": []}
    assert client.sent == [{"model": "m", "state": {"documents": ["Note: the colour is green."]}, "questions": {
        "colour": COLOUR,
        "note": {"type": "choice", "instructions": "Does the document contain a note?",
                 "criteria": {"yes": "it contains a note", "no": "it contains no note"}}}}]


NO_TOKENS = "usage.input_tokens is missing or 0: the endpoint does not count tokens (unknown, not free)"


@pytest.mark.parametrize("usage, colour, notes", [
    ({"input_tokens": 0}, answer("green", 0.9), [NO_TOKENS]),
    ("lots", answer("green", 0.9), [NO_TOKENS]),
    (None, answer("green", 0.9), [NO_TOKENS]),
    ({"input_tokens": 5}, answer("green", 0.7, confidence=0.5),
     ["answer 'colour': confidence 0.5 is not the chosen option's probability 0.7; calibration uses the probabilities"]),
    ({"input_tokens": 5}, answer("green", 0.7, confidence=0.705), []),   # within 0.01
    ({"input_tokens": 5}, {"choice": "green", "confidence": 0.01, "probabilities": {"red": 1.0}}, []),   # 0.01 off
    ({"input_tokens": 5}, {"choice": "green", "confidence": 0.9}, []),   # no probabilities to compare
])
def test_the_schema_probe_notes_missing_token_counts_and_a_confidence_that_is_not_the_probability(usage, colour,
                                                                                                  notes):
    found = schema(Scripted({"answers": {"colour": colour, "note": note()}, "usage": usage}), "m")
    assert (found["status"], found["notes"], found["usage"]) == ("ok", notes, usage if isinstance(usage, dict) else {})


def test_a_failed_schema_request_is_a_failed_finding():
    assert schema(Scripted(Reply(500, {"error": "boom"}, 0.5)), "m") == \
        {"requests": 1, "seconds": 0.5, "status": "failed", "detail": "HTTP 500: boom"}


def single(client: Scripted) -> list[tuple]:
    """Each request's model, state and its one question as (id, option order)."""
    return [(b["model"], b["state"], [(qid, list(q["criteria"])) for qid, q in b["questions"].items()])
            for b in client.sent]


def test_option_order_asks_three_orders_and_keeps_the_largest_move_from_the_first():
    client = Scripted(*({"answers": {"q": answer("green", p)}} for p in (0.9, 0.612345, 0.8)))
    orders = [["red", "blue", "green", "yellow"], ["yellow", "green", "blue", "red"], ["blue", "green", "yellow", "red"]]
    assert option_order(client, "m") == {
        "requests": 3, "orders": orders, "choices": ["green"] * 3, "max_probability_change": 0.2877, "status": "ok",
        "detail": "the same choice (green) in 3 orders"}
    state = {"documents": ["Note: the colour is green."]}
    assert single(client) == [("m", state, [("q", order)]) for order in orders]
    assert client.sent[0]["questions"]["q"] == COLOUR


def test_option_order_fails_when_two_orders_get_different_choices():
    client = Scripted(*({"answers": {"q": answer(c, 0.6)}} for c in ("green", "green", "red")))
    found = option_order(client, "m")
    assert (found["status"], found["detail"]) == \
        ("failed", "the choice depends on the order of the options: green, green, red for the same question")


def test_determinism_repeats_one_request_and_reports_how_far_the_probabilities_move():
    client = Scripted(*({"answers": {"q": answer("blue", p)}} for p in (0.9, 0.612345, 0.8)))
    assert determinism(client, "m") == {
        "requests": 3, "choices": ["blue"] * 3, "max_probability_change": 0.2877, "status": "ok",
        "detail": "the same choice; probabilities move by up to 0.2877 over 3 repeats"}
    assert single(client) == [("m", {"documents": ["Note: the colour is blue."]}, [("q", list(COLOURS))])] * 3


@pytest.mark.parametrize("choices, status, detail", [
    (("blue",) * 4, "ok", "identical answers over 4 repeats"),
    (("blue", "red", "blue", "blue"), "failed", "the same request got different choices: blue, red, blue, blue"),
])
def test_determinism_with_identical_or_differing_choices(choices, status, detail):
    found = determinism(Scripted(*({"answers": {"q": answer(c, 0.6)}} for c in choices)), "m", repeats=4)
    assert (found["requests"], found["status"], found["detail"]) == (4, status, detail)
