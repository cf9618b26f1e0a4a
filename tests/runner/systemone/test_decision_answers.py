"""Decision answers checked where they are read: an invalid one is that scenario's recorded error."""

from __future__ import annotations

import json
import math

import pytest

from auditpacks.runner.systemone.batching import answer_response, share
from auditpacks.runner.systemone.api import check_answer, decision_reply
from tests.support.runs import results, run_here
from tests.support.stub_http import StubHTTP
from tests.support.tiny_pack import OPTIONS, write_pack

DECISION = {"id": "outcome", "instructions": "What did the court decide?", "criteria": dict(OPTIONS)}
GOOD = {"type": "choice", "choice": "guilty", "confidence": 0.7,
        "probabilities": {"guilty": 0.7, "acquitted": 0.2, "dismissed": 0.1}}


@pytest.mark.parametrize("change, field", [
    ({"confidence": 7.5}, "confidence"),
    ({"confidence": math.nan}, "confidence"),
    ({"confidence": "high"}, "confidence"),
    ({"choice": "maybe"}, "choice"),
    ({"choice": ["guilty"]}, "choice"),
    ({"probabilities": {"guilty": 1.2, "acquitted": -0.2, "dismissed": 0.0}}, "probabilities"),
    ({"probabilities": {"guilty": 0.9, "acquitted": 0.9, "dismissed": 0.9}}, "probabilities"),
    ({"probabilities": {"guilty": math.nan, "acquitted": 0.5, "dismissed": 0.5}}, "probabilities"),
    ({"probabilities": {"other": 1.0}}, "probabilities"),
])
def test_an_invalid_answer_is_an_error_naming_the_field(change, field):
    with pytest.raises(RuntimeError) as err:
        check_answer(DECISION, {**GOOD, **change})
    assert f"answer 'outcome' field {field}" in str(err.value)


def test_a_valid_answer_passes_and_bad_token_counts_become_unknown():
    check_answer(DECISION, GOOD)
    reply = decision_reply(DECISION, {"answers": {"outcome": GOOD}, "usage": {"input_tokens": math.nan,
                                                                               "output_tokens": -5}})
    assert reply.content.startswith("guilty") and reply.input_tokens is None and reply.output_tokens is None


def test_a_batched_answer_is_checked_and_its_token_share_is_unknown_for_bad_totals():
    with pytest.raises(RuntimeError, match="confidence"):
        answer_response(DECISION, {**GOOD, "confidence": 2}, {}, 2, 0, "m")
    assert share(math.nan, 2, 0) is None and share(10**30, 2, 0) is None and share(7, 2, 0) == 4


@pytest.mark.parametrize("batch", ["1", "64"])  # one question per request, and batched
def test_a_decision_run_records_an_out_of_range_confidence_as_that_scenarios_error(tmp_path, batch):
    def reply(method, path, headers, body):
        if method != "POST":  # the check before the run: any HTTP answer will do
            return 405, {"error": "POST only"}
        answers = {qid: {**GOOD, "confidence": 7.5} for qid in body["questions"]}
        return 200, {"model": "m", "answers": answers, "usage": {"input_tokens": "NaN", "output_tokens": 1}}

    pack = write_pack(tmp_path / "tiny.json", 2)
    with StubHTTP(reply) as stub:
        code = run_here(pack, tmp_path / "out", None, "--decision-url", stub.url + "/v1/systemone", "--no-probe",
                        "--batch-questions", batch)
    assert code == 3
    stored = [json.dumps(r) for r in results(tmp_path / "out")]
    assert len(stored) == 2 and all("field confidence: 7.5 is not a probability" in text for text in stored)
