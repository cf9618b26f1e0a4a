"""A batch fetched in process, on a fake model: the request it sends, the answers handed out, the fallbacks
(a missing answer, a rejected or failed batch, batching stopped), single calls, the figures and the notes."""

from __future__ import annotations

import asyncio

import pytest
from simpleaudit import DecisionTarget

from auditpacks.runner.models.reply import Reply
from auditpacks.runner.models.retry import CallFailed
from auditpacks.runner.systemone.batching import BatchedDecisionTarget
from auditpacks.runner.targets import scenario_log
from tests.runner.systemone.test_batching_parts import scenario


class FakeModel:
    """The scenarios' model: each batch request is noted and answered by the next outcome."""

    def __init__(self, *outcomes) -> None:
        self.outcomes, self.requests, self.fatal, self.closed = list(outcomes), [], None, False

    async def generate(self, request):
        self.requests.append(request)
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def aclose(self) -> None:
        self.closed = True


class FakeSingle:
    """The single-question target: answers ``single`` and counts its calls."""

    def __init__(self, model: FakeModel, **inner) -> None:
        self.inner, self.model, self.repeat, self.sent = DecisionTarget("http://h/v1/systemone", "clef", **inner), \
            model, 0, []

    async def send(self, **kwargs):
        self.sent.append(kwargs)
        return "single"

    @property
    def fatal(self):
        return self.model.fatal

    async def aclose(self) -> None:
        await self.model.aclose()


def answers(*choices, tokens=(6, 3)) -> Reply:
    ids = ["answer"] + [f"answer~{n}" for n in range(2, len(choices) + 1)]
    found = {qid: {"choice": c, "confidence": 0.5} for qid, c in zip(ids, choices) if c}
    return Reply("", input_tokens=tokens[0], output_tokens=tokens[1], batch={"model": "clef", "answers": found})


def target(*outcomes, batch_questions=64, **inner) -> BatchedDecisionTarget:
    return BatchedDecisionTarget(FakeSingle(FakeModel(*outcomes), **inner), batch_questions=batch_questions)


KEYS = ["ka", "kb", "kc"]


def run(batched: BatchedDecisionTarget, count: int = 2, ask: list[str] | None = None) -> dict:
    """Prefetch ``count`` questions on one state, then ask the scenarios ``ask`` (each in its own task)."""
    async def go():
        await batched.prefetch([scenario(k, "A") for k in KEYS[:count]], KEYS[:count])

        async def one(key):
            scenario_log.begin(key=key)
            try:
                return await batched.send(user="q")
            except RuntimeError as exc:
                return exc
        return {key: await asyncio.create_task(one(key)) for key in (ask or [])}
    return asyncio.run(go())


def test_batching_needs_room_for_two_questions():
    with pytest.raises(ValueError, match="^batch_questions must be at least 2 to batch, got 1$"):
        target(batch_questions=1)


def test_each_question_not_prefetched_is_asked_alone_as_simpleaudit_gave_it():
    batched, context = target(), object()

    async def go():
        first = await batched.send(user="q1")   # outside any scenario log
        scenario_log.begin(key="ka")
        second = await batched.send(user="q2", history=[{"role": "user", "content": "q0"}], documents=["D"],
                                    context=context, system="s", file_uri="f", response_format={}, params={})
        return first, second
    assert asyncio.run(go()) == ("single", "single") and batched.single_calls == 2
    assert batched.single.sent == [{"user": "q1", "history": None, "documents": None, "context": None},
                                   {"user": "q2", "history": [{"role": "user", "content": "q0"}], "documents": ["D"],
                                    "context": context}]


def test_a_batch_is_one_request_whose_time_limit_is_its_questions_added_up():
    batched = target(answers("yes", "no", "yes"), timeout=20.0)
    got = run(batched, 3, ["kc", "ka"])
    (request,) = batched.single.model.requests
    assert request.messages == [] and request.timeout == 60.0 and list(request.body["questions"]) == \
        ["answer", "answer~2", "answer~3"]
    assert (got["kc"].content, got["kc"].input_tokens, got["ka"].input_tokens, got["ka"].output_tokens) == \
        ("yes: Yes.", 2, 2, 1)
    assert got["kc"].raw["model"] == "clef" == got["ka"].raw["model"]   # the model the batch reply names
    assert batched.fallbacks == [] and batched.single.sent == []


def test_an_answer_missing_from_the_reply_is_asked_alone():
    batched = target(answers("yes", None))
    got = run(batched, 2, ["ka", "kb"])
    assert got == {"ka": got["ka"], "kb": "single"} and got["ka"].content == "yes: Yes."
    assert batched.fallbacks == [{"questions": 2, "asked_alone": 1, "status": None,
                                  "reason": "the reply lacked 1 of 2 answers", "batching_stopped": False}]
    assert batched.notes() == ["decision batch of 2 questions: the reply lacked 1 of 2 answers; asked 1 of them one "
                               "at a time"]
    assert batched.single_calls == 1 and batched.single.sent == [{"user": "q", "history": None, "documents": None,
                                                                  "context": None}]


def test_a_reply_without_answers_sends_every_question_alone():
    batched = target(Reply("", batch=None))
    assert run(batched, 2, ["ka", "kb"]) == {"ka": "single", "kb": "single"}
    assert batched.fallbacks[0]["asked_alone"] == 2 and batched.sizes == {2: 1}


def test_an_answer_outside_the_options_is_that_scenarios_error():
    got = run(target(answers("maybe", "no")), 2, ["ka", "kb"])
    assert isinstance(got["ka"], RuntimeError) and "not one of the options" in str(got["ka"])
    assert got["kb"].content == "no: No."


@pytest.mark.parametrize("status, stopped", [(400, True), (422, True), (413, False), (503, False)])
def test_a_rejected_batch_is_asked_alone_and_a_400_or_422_stops_batching(status, stopped):
    batched = target(CallFailed([f"HTTP {status}: no"], retryable=False, status=status), answers("yes", "no"))
    run(batched, 2)
    assert batched.fallbacks == [{"questions": 2, "asked_alone": 2, "status": status,
                                  "reason": f"HTTP {status}: no (not retried)", "batching_stopped": stopped}]
    assert batched.enabled is (not stopped) and batched.sizes == {}
    run(batched, 2)
    assert len(batched.single.model.requests) == (1 if stopped else 2)
    assert batched.notes()[0].endswith("; batching stopped for the rest of the run") is stopped


def test_any_other_failure_falls_back_with_its_kind_and_a_short_reason():
    batched = target(ValueError("x" * 400))
    run(batched, 2)
    assert batched.fallbacks[0]["reason"] == "ValueError: " + "x" * 288 and batched.fallbacks[0]["status"] is None
    assert batched.enabled


def test_a_group_of_one_is_not_batched():
    batched = target()
    run(batched, 1)
    assert batched.single.model.requests == []


def test_only_questions_within_the_limits_are_batched():
    batched = target()
    broken = [{"name": "x", "decision": {"id": "answer"}}, {"name": "y"}, scenario("a", "A")]
    assert [q.key for q in batched.questions(broken, ["kx", "ky", "ka"])] == ["ka"]   # the broken ones are left out
    stateless = {"name": "a", "decision": {k: v for k, v in scenario("a", "A")["decision"].items() if k != "state"}}
    prompted = batched.questions([{**stateless, "test_prompt": "Own words?"}, stateless], ["ka", "kb"])
    assert prompted[0].body["state"] == "Own words?"   # a question without a state asks in the scenario's words
    assert "Question answer?" in prompted[1].body["state"]   # else in the decision's own rendering
    small = target(max_body_bytes=10)
    assert small.questions([scenario("a", "A")], ["ka"]) == []


def test_the_figures_count_batches_sizes_and_single_calls():
    batched = target(answers("yes", "no", "yes"), answers("yes", "no"), batch_questions=3)
    asyncio.run(batched.prefetch([scenario(k, "A") for k in "abcde"], list("abcde")))
    batched.single_calls = 4
    assert batched.stats() == {"decision_batching": {
        "batch_questions": 3, "requests": 6, "batches": 2, "batched_questions": 5,
        "batch_sizes": {"3": 1, "2": 1}, "single_calls": 4, "fallbacks": []}}
    assert list(batched.stats()["decision_batching"]["batch_sizes"]) == ["3", "2"]   # largest first


def test_batches_of_one_size_are_counted_together():
    batched = target(answers("yes", "no"), answers("no", "yes"), batch_questions=2)
    asyncio.run(batched.prefetch([scenario(k, "A") for k in "abcd"], list("abcd")))
    figures = batched.stats()["decision_batching"]
    assert (figures["batch_sizes"], figures["batches"], figures["batched_questions"]) == ({"2": 2}, 2, 4)


def test_the_round_the_fatal_error_and_closing_are_the_single_targets():
    batched = target()
    batched.repeat = 3
    assert batched.single.repeat == 3 == batched.repeat
    batched.single.model.fatal = error = RuntimeError("down")
    assert batched.fatal is error
    asyncio.run(batched.aclose())
    assert batched.single.model.closed
