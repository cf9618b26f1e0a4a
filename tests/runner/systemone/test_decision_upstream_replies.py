"""The upstream's requests and odd replies: the body and headers it sends, the labels it caches, HTTP and
transport failures in one line, token counts it cannot trust, and the answer when the sampled text is no label."""

from __future__ import annotations

import math

import httpx
import pytest

from auditpacks.runner.systemone import decision_upstream
from auditpacks.runner.systemone.decision_upstream import (Upstream, UpstreamError, question_messages,
                                                           read_completion, render_state)
from auditpacks.runner.systemone.protocol import ChoiceQuestion
from tests.runner.systemone.test_decision_upstream import QUESTION, completion, serve
from tests.support.stub_http import StubHTTP

LONG = "Certainly, the court granted the application in full."   # over 40 characters


def test_non_ascii_state_text_is_kept_as_written():
    assert render_state(["Høyesterett"]) == '[\n "Høyesterett"\n]'
    assert render_state({"domstol": "Høyesterett", "documents": [{"tekst": "Særmerknad"}, "Dommen."]}) \
        == '{\n "domstol": "Høyesterett"\n}\n\nDocument 1:\n{"tekst": "Særmerknad"}\n\nDocument 2:\nDommen.'


def test_the_answer_hint_names_the_first_and_last_label():
    question = ChoiceQuestion(id="q", instructions="Which?", criteria={"a": "", "b": "", "c": ""})
    assert question_messages("S", question, ["A", "B", "C"])[1]["content"].endswith(
        "Answer with the label of one option (A-C) and nothing else.")


@pytest.mark.parametrize("logprobs, top", [
    ({"token": "A", "logprob": 0.0}, {"A": 0.0}),             # certainty is a log probability too
    ("not an object", {}), ({"content": "not a list"}, {}),   # no usable logprobs: none, not an error
])
def test_logprob_shapes_read(logprobs, top):
    choice = {"message": {"content": "A"}, "logprobs": logprobs if "token" not in logprobs else {"content": [logprobs]}}
    assert read_completion({"choices": [choice]}) == ("A", top)


def test_no_content_reads_as_an_empty_answer():
    assert read_completion(completion(None, {"token": "A", "logprob": -0.1})) == ("", {"A": -0.1})


def test_refusals_quote_at_most_300_characters_of_the_reply_and_40_of_a_token():
    data = {"choices": [], "padding": "x" * 400}
    with pytest.raises(UpstreamError) as err:
        read_completion(data)
    assert str(err.value) == "upstream reply is not a chat completion: " + ('{"choices": [], "padding": "' + "x" * 400)[:300]
    with pytest.raises(UpstreamError, match=f"^upstream gave token '{LONG[:40]}' the logprob nan, "):
        read_completion(completion("A", {"token": LONG, "logprob": math.nan}))


@pytest.mark.parametrize("base_url, root", [("http://h:1/v1/", "http://h:1"), ("http://h:1/relay-X/", "http://h:1/relay-X")])
def test_the_root_is_the_base_url_without_a_trailing_slash_or_v1(base_url, root):
    assert Upstream(base_url, "m").root == root


def test_a_question_is_sent_with_its_messages_logprobs_and_json_header():
    reply = completion("A", {"token": "A", "logprob": -0.1})
    with serve(lambda body: reply) as upstream:
        Upstream(upstream.url, "m").answer("STATE", QUESTION)
        _, _, headers, body = upstream.requests[-1]
    assert body["messages"] == question_messages("STATE", QUESTION, ["A", "B"]) and body["logprobs"] is True
    assert {k.lower(): v for k, v in headers.items()}["content-type"] == "application/json"


@pytest.mark.parametrize("usage, counts", [({"prompt_tokens": 0, "completion_tokens": -3}, (0, 0)),
                                           ({"prompt_tokens": True, "completion_tokens": "5"}, (0, 0)),
                                           ("not an object", (0, 0)), ({"prompt_tokens": 12}, (12, 0))])
def test_token_counts_that_are_no_count_are_zero(usage, counts):
    reply = {**completion("A", {"token": "A", "logprob": -0.1}), "usage": usage}
    with serve(lambda body: reply) as upstream:
        assert Upstream(upstream.url, "m").answer("S", QUESTION)[1:] == counts


def test_an_answer_that_is_no_label_is_read_from_the_labels_among_the_top_tokens():
    """Only B (0.3) is listed beside the sampled text (0.5): A gets the floor, the lower of B's 0.3 and the
    unlisted 0.2, so the two weigh 0.2 and 0.3."""
    reply = completion("Sure", {"token": "Sure", "logprob": math.log(0.5),
                                "top_logprobs": [{"token": "B", "logprob": math.log(0.3)}]})
    with serve(lambda body: reply) as upstream:
        answer = Upstream(upstream.url, "m").answer("S", QUESTION)[0]
    assert (answer["choice"], answer["probabilities"]) == ("dismissed", {"granted": 0.4, "dismissed": 0.6})


def test_a_tie_goes_to_the_sampled_label():
    reply = completion("B", {"token": "B", "logprob": math.log(0.5), "top_logprobs": [{"token": "A", "logprob": math.log(0.5)}]})
    with serve(lambda body: reply) as upstream:
        assert Upstream(upstream.url, "m").answer("S", QUESTION)[0]["choice"] == "dismissed"


def test_the_refusals_of_a_reply_without_logprobs_or_off_the_grammar_in_full():
    with serve(lambda body: completion("A")) as upstream:
        with pytest.raises(UpstreamError) as err:
            Upstream(upstream.url, "m").answer("S", QUESTION)
    assert str(err.value) == ("upstream returned no logprobs for the answer token; serve-decision needs a server "
                              "with logprob support (top_logprobs), such as llama.cpp")
    off = completion(LONG, {"token": "x", "logprob": -0.1})
    with serve(lambda body: off) as upstream:
        with pytest.raises(UpstreamError) as err:
            Upstream(upstream.url, "m").answer("S", QUESTION)
    assert str(err.value) == (f"upstream ignored the label grammar: it answered {LONG[:40]!r} and no option label is "
                              "among its top tokens; serve-decision needs a server that honours a GBNF grammar, such "
                              "as llama.cpp")


def tokenizing(single=lambda label: True, fail_after=None):
    """An upstream whose /tokenize gives one token for the labels ``single`` accepts and fails from call
    ``fail_after`` on; with the labels it was asked about."""
    def post(path, body):
        assert path == "/tokenize"
        calls.append(body["content"])
        if fail_after is not None and len(calls) > fail_after:
            raise UpstreamError("upstream /tokenize returned HTTP 500")
        return {"tokens": [1] if single(body["content"]) else [1, 2]}
    calls, upstream = [], Upstream("http://h:1/v1", "m")
    upstream.post = post
    return upstream, calls


def test_each_label_is_tokenized_once():
    upstream, calls = tokenizing()
    assert upstream.labels(27)[26:] == upstream.labels(27)[26:] == ["AA"]
    assert calls == ["AA"]


def test_after_the_tokenizer_fails_it_is_not_asked_again():
    upstream, calls = tokenizing(fail_after=0)
    assert upstream.labels(28)[26:] == ["AA", "AB"]
    assert calls == ["AA"]


def test_a_label_found_to_be_two_tokens_stays_out_after_the_tokenizer_fails():
    """AA is two tokens; the tokenizer then fails on AB, which is taken as it comes, and AA is not."""
    upstream, calls = tokenizing(single=lambda label: label != "AA", fail_after=1)
    assert upstream.labels(27)[26:] == upstream.labels(27)[26:] == ["AB"]
    assert calls == ["AA", "AB"]


def test_too_few_single_token_labels_is_refused():
    upstream, calls = tokenizing(single=lambda label: label == "AQ")
    with pytest.raises(UpstreamError, match="^the upstream tokenizer has only 27 single-token labels; 28 needed$"):
        upstream.labels(28)
    assert len(calls) == 26 * 26   # every two-letter label asked


@pytest.mark.parametrize("status", [400, 401])
def test_a_client_error_is_an_upstream_error_quoting_300_characters(status):
    with StubHTTP(lambda method, path, headers, body: (status, {"error": "e" * 400})) as upstream:
        with pytest.raises(UpstreamError) as err:
            Upstream(upstream.url, "m").post("/v1/chat/completions", {})
    assert str(err.value) == f"upstream /v1/chat/completions returned HTTP {status}: " + ('{"error": "' + "e" * 400)[:300]


@pytest.mark.parametrize("exc, said", [(httpx.ConnectError(""), "ConnectError"), (OSError("refused\nat port 9"), "refused")])
def test_a_transport_failure_is_one_line(monkeypatch, exc, said):
    """The first line of what went wrong, or its kind when it says nothing."""
    def fail(*args, **kwargs):
        raise exc

    monkeypatch.setattr(decision_upstream.bounded_http, "client", fail)
    with pytest.raises(UpstreamError, match=f"^upstream /tokenize failed: {said}$"):
        Upstream("http://h:1", "m").post("/tokenize", {})
