"""The chat server behind serve-decision: state and question as prompt text, labels, and logprobs read
into option probabilities; every other reply shape is an UpstreamError, never a made-up choice."""

import math

import pytest

from auditpacks.runner.systemone.decision_upstream import (
    SYSTEM_PROMPT,
    Upstream,
    UpstreamError,
    question_messages,
    read_completion,
    render_state,
)
from auditpacks.runner.systemone.protocol import ChoiceQuestion
from tests.support.stub_http import StubHTTP

QUESTION = ChoiceQuestion(id="q1", instructions="  What did the court do?  ",
                          criteria={"granted": "", "dismissed": "the claim fails"})


def completion(content="A", logprobs=None, usage=None):
    choice = {"message": {"content": content}}
    if logprobs is not None:
        choice["logprobs"] = {"content": [logprobs]}
    return {"choices": [choice], **({"usage": usage} if usage else {})}


def test_render_state_fields_then_each_document():
    assert render_state("plain text") == "plain text"
    assert render_state([1, "x"]) == '[\n 1,\n "x"\n]'
    assert render_state({}) == "(empty)"
    assert render_state({"court": "X", "documents": ["Doc one.", {"k": "v"}]}) == (
        '{\n "court": "X"\n}\n\nDocument 1:\nDoc one.\n\nDocument 2:\n{"k": "v"}')
    assert render_state({"documents": "only"}) == "Document 1:\nonly"


def test_question_messages_list_the_labelled_options():
    system, user = question_messages("STATE", QUESTION, ["A", "B"])
    assert system == {"role": "system", "content": SYSTEM_PROMPT}
    assert user == {"role": "user", "content": (
        "State:\nSTATE\n\nQuestion: What did the court do?\n\nOptions:\nA) granted\nB) dismissed: the claim fails"
        "\n\nAnswer with the label of one option (A-B) and nothing else.")}


def test_read_completion_takes_the_sampled_token_and_valid_alternatives():
    data = completion(" A ", {"token": "A", "logprob": -0.1, "top_logprobs": [
        {"token": "A", "logprob": -9.0},      # the sampled token's own value is kept
        {"token": "B", "logprob": -2.5},
        {"token": "C", "logprob": 0.5},       # above 0: not a log probability
        {"token": "E", "logprob": True},
        {"token": 5, "logprob": -1.0}]})
    assert read_completion(data) == ("A", {"A": -0.1, "B": -2.5})
    assert read_completion(completion("B")) == ("B", {})


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_nan_or_infinite_logprob_is_refused_never_taken_for_an_even_share(bad):
    data = completion("A", {"token": "A", "logprob": bad, "top_logprobs": [{"token": "x", "logprob": -0.1}]})
    with pytest.raises(UpstreamError, match=rf"^upstream gave token 'A' the logprob {bad}, which is not a log "
                                            "probability$"):
        read_completion(data)


@pytest.mark.parametrize("data", [{}, {"choices": []}, {"choices": [{}]}, {"choices": [{"message": {"content": 3}}]},
                                  [1, 2]])
def test_read_completion_refuses_other_shapes(data):
    with pytest.raises(UpstreamError) as err:
        read_completion(data)
    assert str(err.value).startswith("upstream reply is not a chat completion: ")


def serve(reply):
    def answer(method, path, headers, body):
        if path == "/tokenize":
            return 404, {"error": "no tokenizer"}
        return 200, reply(body)
    return StubHTTP(answer)


def test_answer_turns_logprobs_into_probabilities_and_counts_tokens():
    reply = completion("A", {"token": "A", "logprob": math.log(0.75), "top_logprobs": [
        {"token": "B", "logprob": math.log(0.25)}]}, usage={"prompt_tokens": 40, "completion_tokens": 1})
    with serve(lambda body: reply) as upstream:
        answer, tokens_in, tokens_out = Upstream(upstream.url + "/v1", "m").answer("STATE", QUESTION)
        body = upstream.requests[-1][3]
    assert answer == {"type": "choice", "choice": "granted", "confidence": 0.75,
                      "probabilities": {"granted": 0.75, "dismissed": 0.25}}
    assert (tokens_in, tokens_out) == (40, 1)
    assert upstream.requests[-1][1] == "/v1/chat/completions"
    assert (body["model"], body["temperature"], body["max_tokens"], body["top_logprobs"]) == ("m", 0, 1, 20)
    assert body["grammar"] == 'root ::= "A" | "B"'


def test_answer_without_logprobs_or_ignoring_the_grammar_is_an_upstream_error():
    with serve(lambda body: completion("A")) as upstream:
        with pytest.raises(UpstreamError, match="no logprobs for the answer token"):
            Upstream(upstream.url, "m").answer("S", QUESTION)
    off = completion("Sure", {"token": "Sure", "logprob": -0.1, "top_logprobs": [{"token": "I", "logprob": -3}]})
    with serve(lambda body: off) as upstream:
        with pytest.raises(UpstreamError, match="ignored the label grammar: it answered 'Sure'"):
            Upstream(upstream.url, "m").answer("S", QUESTION)


def test_an_http_error_names_the_path_and_status():
    with StubHTTP(lambda method, path, headers, body: (503, {"error": "busy"})) as upstream:
        with pytest.raises(UpstreamError) as err:
            Upstream(upstream.url, "m").post("/v1/chat/completions", {})
    assert str(err.value) == 'upstream /v1/chat/completions returned HTTP 503: {"error": "busy"}'


def test_labels_beyond_z_are_the_two_letter_ones_the_tokenizer_keeps_whole():
    def tokenize(method, path, headers, body):
        return 200, {"tokens": [1] if body["content"] in ("AB", "AD") else [1, 2]}  # AA and AC are two tokens

    with StubHTTP(tokenize) as upstream:
        labels = Upstream(upstream.url, "m").labels(28)
    assert labels[:26] == [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    assert labels[26:] == ["AB", "AD"]


def test_without_a_tokenizer_labels_are_taken_as_they_come():
    with StubHTTP(lambda method, path, headers, body: (404, {})) as upstream:
        assert Upstream(upstream.url, "m").labels(27)[26:] == ["AA"]
        assert Upstream(upstream.url, "m").labels(2) == ["A", "B"]
