"""The request-level probes of a System One endpoint: response schema, option-order invariance, determinism.

Each probe sends a few requests through a :class:`~auditpacks.runner.systemone.probe_client.ProbeClient`
and returns a JSON-ready finding ``{"status": "ok" | "failed" | "inconclusive" | "not run", ...}``
with a ``detail`` line. The questions ask which colour a note at the end of a short document
names; the same bodies serve :mod:`~auditpacks.runner.systemone.probe_limits`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from auditpacks.runner.systemone.protocol import ChoiceQuestion, DecisionRequest, SystemOneError, check_response
from auditpacks.runner.systemone.probe_client import ProbeClient, Reply

COLOURS = ("red", "blue", "green", "yellow")
INSTRUCTIONS = "Which colour does the note at the end of the document name?"
#: Neutral filler (no colour words) that pads a state in front of the canary note.
FILLER = ("The archive holds the minutes of the town council. Each meeting opened with a reading of the agenda. "
          "Members discussed roads, schools and the market, and the clerk recorded every vote. ")
#: Two answers differ when their choice differs or a probability moves by more than this (or the measured noise).
TOLERANCE = 1e-4
REPEATS = 3


def filler(chars: int) -> str:
    """``chars`` characters of filler."""
    return (FILLER * (chars // len(FILLER) + 1))[:chars]


def canary_state(colour: str, pad: int = 0) -> dict[str, Any]:
    """A state whose one document is ``pad`` characters of filler and then the canary note."""
    return {"documents": [filler(pad) + f"Note: the colour is {colour}."]}


def colour_question(order: Sequence[str] = COLOURS) -> dict[str, Any]:
    return {"type": "choice", "instructions": INSTRUCTIONS,
            "criteria": {c: f"the note names the colour {c}" for c in order}}


def body(model: str, state: Any, questions: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {"model": model, "state": state, "questions": dict(questions)}


def answers(reply: Reply, sent: Mapping[str, Any]) -> dict[str, dict]:
    """The checked answers of a reply to ``sent``; :class:`SystemOneError` (or the HTTP failure) otherwise."""
    if not reply.ok:
        raise SystemOneError(reply.why())
    request = DecisionRequest(sent["model"], sent["state"], tuple(
        ChoiceQuestion(qid, q["instructions"], dict(q["criteria"])) for qid, q in sent["questions"].items()))
    return check_response(reply.data, request)


def ask(client: ProbeClient, model: str, state: Any, question: Mapping[str, Any], qid: str = "q") -> dict:
    """One question's checked answer."""
    sent = body(model, state, {qid: question})
    return answers(client.post(sent), sent)[qid]


def change(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    """The largest change of one option's probability between two answers (1 when the choice moved and
    no probabilities were given)."""
    pa, pb = a.get("probabilities") or {}, b.get("probabilities") or {}
    if not pa or not pb:
        return 0.0 if a.get("choice") == b.get("choice") else 1.0
    return max(abs(float(pa.get(k, 0.0)) - float(pb.get(k, 0.0))) for k in set(pa) | set(pb))


def differs(a: Mapping[str, Any], b: Mapping[str, Any], tolerance: float = TOLERANCE) -> bool:
    return a.get("choice") != b.get("choice") or change(a, b) > tolerance


def schema(client: ProbeClient, model: str) -> dict[str, Any]:
    """Two questions in one request: an answer per question id, probabilities in [0, 1] summing to 1,
    confidence in [0, 1], a choice among the options; what ``usage`` and ``latency_ms`` say."""
    sent = body(model, canary_state("green"), {
        "colour": colour_question(),
        "note": {"type": "choice", "instructions": "Does the document contain a note?",
                 "criteria": {"yes": "it contains a note", "no": "it contains no note"}}})
    reply = client.post(sent)
    finding: dict[str, Any] = {"requests": 1, "seconds": round(reply.seconds, 3)}
    try:
        got = answers(reply, sent)
    except SystemOneError as exc:
        return {**finding, "status": "failed", "detail": str(exc)}
    usage = reply.data.get("usage") if isinstance(reply.data.get("usage"), Mapping) else {}
    notes = []
    if not usage or not usage.get("input_tokens"):
        notes.append("usage.input_tokens is missing or 0: the endpoint does not count tokens (unknown, not free)")
    for qid, answer in got.items():
        probabilities = answer.get("probabilities") or {}
        if probabilities and abs(float(answer["confidence"]) - float(probabilities.get(answer["choice"], 0))) > 0.01:
            notes.append(f"answer {qid!r}: confidence {answer['confidence']} is not the chosen option's "
                         f"probability {probabilities.get(answer['choice'])}; calibration uses the probabilities")
            break
    return {**finding, "status": "ok", "detail": "answers keyed by question id, valid choices and probabilities",
            "usage": dict(usage), "latency_ms": reply.data.get("latency_ms"), "notes": notes}


def option_order(client: ProbeClient, model: str) -> dict[str, Any]:
    """The same question with its options in three orders must get the same choice."""
    orders = [COLOURS, COLOURS[::-1], COLOURS[1:] + COLOURS[:1]]
    got = [ask(client, model, canary_state("green"), colour_question(order)) for order in orders]
    choices = [a["choice"] for a in got]
    moved = max(change(got[0], a) for a in got[1:])
    finding = {"requests": len(orders), "orders": [list(o) for o in orders], "choices": choices,
               "max_probability_change": round(moved, 4)}
    if len(set(choices)) > 1:
        return {**finding, "status": "failed",
                "detail": f"the choice depends on the order of the options: {', '.join(choices)} for the same question"}
    return {**finding, "status": "ok", "detail": f"the same choice ({choices[0]}) in {len(orders)} orders"}


def determinism(client: ProbeClient, model: str, repeats: int = REPEATS) -> dict[str, Any]:
    """The same request ``repeats`` times: the same choice; how far the probabilities move."""
    got = [ask(client, model, canary_state("blue"), colour_question()) for _ in range(repeats)]
    choices = [a["choice"] for a in got]
    moved = max(change(got[0], a) for a in got[1:])
    finding = {"requests": repeats, "choices": choices, "max_probability_change": round(moved, 4)}
    if len(set(choices)) > 1:
        return {**finding, "status": "failed",
                "detail": f"the same request got different choices: {', '.join(choices)}"}
    same = "identical answers" if moved == 0 else f"the same choice; probabilities move by up to {moved:.4f}"
    return {**finding, "status": "ok", "detail": f"{same} over {repeats} repeats"}
