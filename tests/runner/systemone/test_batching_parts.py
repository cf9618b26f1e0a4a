"""Batched decisions, piece by piece: usage shares, unique ids, batches by state and size, answers handed out."""

from __future__ import annotations

import asyncio

import pytest
from simpleaudit import DecisionTarget

from auditpacks.runner.models.model import Model
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.targets import scenario_log
from auditpacks.runner.systemone.batching import BatchedDecisionTarget, answer_response, compact, share
from auditpacks.runner.systemone.decision import SingleDecisionTarget
from auditpacks.runner.systemone.api import SystemOneAPI
from tests.support.stub_http import StubHTTP


def decision(qid: str = "answer") -> dict:
    return {"id": qid, "instructions": f"Question {qid}?", "criteria": {"yes": "Yes.", "no": "No."}}


def scenario(name: str, state: str, qid: str = "answer") -> dict:
    return {"name": name, "decision": {**decision(qid), "state": {"case": state}}}


def batched(batch_questions: int = 64, max_body_bytes: int | None = None,
            url: str = "http://127.0.0.1:9/v1/systemone") -> BatchedDecisionTarget:
    inner = DecisionTarget(url, "clef", max_body_bytes=max_body_bytes)
    single = SingleDecisionTarget(inner, Model(SystemOneAPI(inner), policy=RetryPolicy(max_retries=0)))
    return BatchedDecisionTarget(single, batch_questions=batch_questions)


def test_usage_is_shared_in_near_equal_parts_the_remainder_first():
    assert [share(10, 3, i) for i in range(3)] == [4, 3, 3]
    assert [share(2, 4, i) for i in range(4)] == [1, 1, 0, 0]
    assert share(None, 3, 0) is None and share("7", 2, 0) is None


def test_a_repeated_question_id_gets_a_suffix_in_the_request():
    target = batched()
    questions = target.questions([scenario(n, "A") for n in "abc"], ["ka", "kb", "kc"])
    body, ids = target.request_body(questions)
    assert ids == ["answer", "answer~2", "answer~3"]
    assert list(body["questions"]) == ids and body["state"] == {"case": "A"} and body["model"] == "clef"


def test_batches_hold_one_state_and_at_most_the_limit():
    target = batched(batch_questions=2)
    questions = target.questions([scenario("a1", "A"), scenario("b1", "B"), scenario("a2", "A"),
                                  scenario("a3", "A")], ["a1", "b1", "a2", "a3"])
    assert [[q.key for q in batch] for batch in target.batches(questions)] == [["a1", "a2"], ["a3"], ["b1"]]


@pytest.mark.parametrize("spare, batches", [(-1, [["a"], ["b"]]), (0, [["a", "b"]])])
def test_a_batch_stays_within_the_byte_limit(spare, batches):
    one = batched().questions([scenario("a", "A")], ["a"])
    two = batched().questions([scenario("a", "A"), scenario("b", "A")], ["a", "b"])
    limit = len(compact(BatchedDecisionTarget.request_body(two)[0])) + spare  # -1: two questions a byte too many
    target = batched(max_body_bytes=limit)
    assert len(compact(one[0].body)) <= limit
    assert [[q.key for q in b] for b in target.batches(target.questions(
        [scenario("a", "A"), scenario("b", "A")], ["a", "b"]))] == batches


def test_a_question_whose_own_body_is_exactly_the_byte_limit_is_batched():
    (question,) = batched().questions([scenario("a", "A")], ["a"])
    assert batched(max_body_bytes=len(compact(question.body))).questions([scenario("a", "A")], ["a"]) == [question]


def test_a_questions_documents_go_in_its_state_and_a_batch_of_one_is_its_own_request():
    target = batched()
    (question,) = target.questions([{**scenario("a", "A"), "documents": ["The court ruled."]}], ["ka"])
    assert question.body["state"] == {"case": "A", "documents": ["The court ruled."]}
    assert target.request_body([question]) == (question.body, ["answer"])


def test_an_answer_is_checked_and_carries_its_share_of_the_usage():
    assert answer_response(decision(), None, {}, 2, 0, "clef") is None  # missing: asked again alone
    response = answer_response(decision(), {"choice": "no", "confidence": 0.5}, {"input_tokens": 9}, 2, 0, "clef")
    assert (response.content, response.input_tokens, response.output_tokens) == ("no: No.", 5, None)
    assert response.decision == {"choice": "no", "confidence": 0.5}
    assert response.raw == {"model": "clef", "answers": {"answer": {"choice": "no", "confidence": 0.5}},
                            "usage": {"input_tokens": 5, "output_tokens": None}, "batch_questions": 2}
    with pytest.raises(RuntimeError, match="not one of the options"):
        answer_response(decision(), {"choice": "maybe"}, {}, 2, 1, "clef")


def test_prefetched_answers_are_handed_to_their_own_scenarios():
    reply = {"model": "clef", "usage": {"input_tokens": 4, "output_tokens": 2},
             "answers": {"answer": {"choice": "yes", "confidence": 0.9}, "answer~2": {"choice": "no", "confidence": 0.6}}}
    with StubHTTP(lambda method, path, headers, body: (200, reply)) as server:
        target = batched(url=server.url + "/v1/systemone")
        answers = asyncio.run(prefetch_and_ask(target))
        sent = [body for _, _, _, body in server.requests]
    assert len(sent) == 1 and (answers["ka"].content, answers["kb"].content) == ("yes: Yes.", "no: No.")
    assert (answers["ka"].input_tokens, answers["kb"].input_tokens) == (2, 2)
    assert target.stats()["decision_batching"]["batch_sizes"] == {"2": 1}
    assert target.single_calls == 0


async def prefetch_and_ask(target: BatchedDecisionTarget) -> dict:
    """Two questions on one state pre-fetched, then each asked from its own scenario (keys ``ka``, ``kb``)."""
    await target.prefetch([scenario("a", "A"), scenario("b", "A")], ["ka", "kb"])

    async def ask(key):  # in its own task, so in its own scenario log
        scenario_log.begin(key=key)
        return await target.send(user="q")
    try:
        return {key: await asyncio.create_task(ask(key)) for key in ("kb", "ka")}
    finally:
        await target.aclose()
