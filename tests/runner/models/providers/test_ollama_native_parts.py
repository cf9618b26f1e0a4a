"""The native Ollama provider in process: ``format``, the model's facts, the request body, its cache key, the
reply, and the clients it opens, on fakes of the ``ollama`` clients and of the context fitting."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import ollama
import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers import ollama_native
from auditpacks.runner.models.providers.ollama_native import OllamaChatAPI, model_facts, ollama_format
from auditpacks.runner.models.reply import Request

DIGEST = "0123456789abcdef" * 4
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}}


@pytest.mark.parametrize("response_format, expected", [
    (None, None), ({}, None), ({"type": "json_object"}, "json"),
    ({"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}}, SCHEMA),
    ({"type": "json_schema", "json_schema": {"name": "a"}}, "json"), ({"type": "json_schema", "json_schema": None}, "json"),
])
def test_a_schema_is_passed_as_ollamas_format_else_plain_json(response_format, expected):
    assert ollama_format(response_format) == expected


def show(modelfile=None, **info):
    return SimpleNamespace(modelfile=modelfile, modelinfo=info)


def listed(*entries):
    return SimpleNamespace(models=[SimpleNamespace(model=m, digest=d) for m, d in entries])


@pytest.mark.parametrize("modelfile", [f"FROM /usr/share/ollama/.ollama/models/blobs/sha256-{DIGEST}\nPARAMETER x 1",
                                       f"FROM sha256:{DIGEST}"])
def test_the_digest_is_the_modelfiles_blob_and_the_length_the_largest_context(modelfile):
    facts = model_facts(show(modelfile, **{"llama.context_length": 4096, "clip.context_length": 8192,
                                          "vision.context_length": "65536", "context_length": 131072}),
                        listed(("m", "sha256:other")), "m")
    assert facts == {"digest": DIGEST, "context_length": 8192}


@pytest.mark.parametrize("modelfile, entries, digest", [
    ("FROM m", [("other", "sha256:aaa"), ("m:latest", "sha256:bbb")], "bbb"),
    (None, [("m", "ccc"), ("m:7b", "sha256:ddd")], "ccc"),
    (f"FROM sha256-{DIGEST.upper()}", [("m", None)], None),
    (None, [("m", "sha256:")], None),
    (None, [], None),
])
def test_without_a_blob_in_the_modelfile_the_digest_comes_from_the_list(modelfile, entries, digest):
    facts = model_facts(show(modelfile, **{"llama.context_length": 2048}), listed(*entries), "m")
    assert facts == {"digest": digest, "context_length": 2048}
    for nothing_listed in (None, SimpleNamespace(), SimpleNamespace(models=None)):
        assert model_facts(show(modelfile, **{"llama.context_length": 2048}), nothing_listed, "m")["digest"] is None


@pytest.mark.parametrize("shown", [show(f"FROM sha256-{DIGEST}"), show(None, context_length=4096),
                                   SimpleNamespace(), show(None, **{"llama.context_length": "4096"})])
def test_no_context_length_is_refused(shown):
    with pytest.raises(RunError, match="^ollama show m: no context length in model_info$"):
        model_facts(shown, None, "m")


@pytest.fixture
def fitting(monkeypatch):
    """The context fitting faked: the estimate is 100 tokens, ``num_ctx`` names what it was chosen from."""
    checked = []
    monkeypatch.setattr(ollama_native.context_fit, "estimate_tokens", lambda messages: 100 + len(messages) - 1)
    monkeypatch.setattr(ollama_native.context_fit, "choose_num_ctx",
                        lambda estimate, budget, length: f"ctx for {estimate}+{budget} of {length}")
    monkeypatch.setattr(ollama_native.context_fit, "check_prompt_tokens",
                        lambda count, **kwargs: checked.append((count, kwargs)))
    return checked


def api(**kwargs) -> OllamaChatAPI:
    made = OllamaChatAPI(**{"model": "m", "host": "http://h:11434/", **kwargs})
    made.facts = {"digest": DIGEST, "context_length": 8192}
    return made


TEXT = [{"role": "user", "content": [{"type": "text", "text": "Is it "}, {"type": "text", "text": "guilty?"}]}]


def test_the_body_carries_flat_messages_the_options_and_a_fitted_context(fitting):
    request = Request(TEXT, params={"temperature": 0, "seed": 7, "max_tokens": 50, "extra_headers": {"x": "1"}},
                      response_format={"type": "json_object"})
    assert api(max_tokens=64).build(request) == ({
        "model": "m", "messages": [{"role": "user", "content": "Is it guilty?"}], "stream": False, "format": "json",
        "options": {"temperature": 0, "seed": 7, "num_predict": 50, "num_ctx": "ctx for 100+50 of 8192"}}, 100)


@pytest.mark.parametrize("max_tokens, options", [
    (64, {"num_predict": 64, "num_ctx": "ctx for 100+64 of 8192"}),
    (None, {"num_ctx": "ctx for 100+None of 8192"}),
])
def test_the_targets_token_cap_applies_when_the_request_sets_none(fitting, max_tokens, options):
    body, _ = api(max_tokens=max_tokens).build(Request([{"role": "user", "content": "q"}]))
    assert body == {"model": "m", "messages": [{"role": "user", "content": "q"}], "options": options, "stream": False}


def test_every_option_ollama_takes_is_passed_on(fitting):
    params = {"temperature": 0.5, "seed": 1, "top_p": 0.9, "top_k": 40, "min_p": 0.05, "stop": ["\n"],
              "repeat_penalty": 1.1, "num_predict": 9}
    body, _ = api().build(Request([{"role": "user", "content": "q"}], params=params))
    assert body["options"] == {**params, "num_ctx": "ctx for 100+9 of 8192"}


def test_other_parameters_are_refused_by_name(fitting):
    with pytest.raises(ValueError, match=r"^ollama target: unsupported parameter\(s\) logprobs, presence_penalty$"):
        api().build(Request([{"role": "user", "content": "q"}], params={"presence_penalty": 1, "logprobs": True,
                                                                        "seed": 1}))


def test_the_cache_key_is_the_digest_and_the_body_not_the_host(fitting):
    request = Request([{"role": "user", "content": "q"}, {"role": "user", "content": "r"}], repeat=2,
                      response_format={"type": "json_object"})
    made = api(host="http://replica-2:11434")
    key = made.cache_key(made.build(request), request)
    assert key == {"api": "ollama-chat", "digest": DIGEST, "model": "m", "messages": request.messages,
                   "options": {"num_ctx": "ctx for 101+None of 8192"}, "format": "json", "repeat": 2}
    ordered = Request(request.messages, prompt_order="documents-last")
    assert made.cache_key(made.build(ordered), ordered)["prompt_order"] == "documents-last"


class Client:
    """``ollama.AsyncClient``'s ``chat``, answering ``response``; the bodies it got in ``bodies``."""

    def __init__(self, response):
        self.response, self.bodies = response, []
        self._client = SimpleNamespace(aclose=self.close)
        self.closed = 0

    async def chat(self, **body):
        self.bodies.append(body)
        return self.response

    async def close(self):
        self.closed += 1


def answer(content, thinking):
    return SimpleNamespace(message=SimpleNamespace(content=content, thinking=thinking), prompt_eval_count=12,
                           eval_count=4, done_reason="length")


@pytest.mark.parametrize("content, thinking, reply", [
    ("guilty", "The record.", ("guilty", "The record.")), (None, "", ("", None)), ("", None, ("", None)),
])
def test_the_reply_keeps_thinking_apart_and_its_prompt_count_is_checked(fitting, content, thinking, reply):
    made = api()
    made._client = Client(answer(content, thinking))
    built = made.build(Request([{"role": "user", "content": "q"}], params={"max_tokens": 5}))
    got = asyncio.run(made.call(built, Request([])))
    assert made._client.bodies == [built[0]]
    assert (got.content, got.reasoning, got.input_tokens, got.output_tokens, got.finish_reason) == (*reply, 12, 4,
                                                                                                    "length")
    assert fitting == [(12, {"estimate": 100, "num_ctx": "ctx for 100+5 of 8192", "output_budget": 5})]
    made._client = Client(answer("x", None))
    asyncio.run(made.call(api().build(Request([{"role": "user", "content": "q"}])), Request([])))
    assert fitting[-1][1]["output_budget"] is None


def made_with(monkeypatch, name, transport):
    """Replace ``ollama.<name>`` and the bounded transport ``transport`` by recorders; the records."""
    made = []

    def client(**kwargs):
        made.append(("client", kwargs))
        return made_with.clients.pop(0)

    def bounded(**kwargs):
        made.append(("transport", kwargs))
        return f"transport {len(made)}"
    monkeypatch.setattr(ollama, name, client)
    monkeypatch.setattr(ollama_native.bounded_http, transport, bounded)
    return made


def test_the_chat_client_is_made_once_with_the_bounded_transport_and_closed(monkeypatch):
    made = made_with(monkeypatch, "AsyncClient", "BoundedAsyncTransport")
    first = Client(None)
    made_with.clients = [first]
    target = OllamaChatAPI(model="m", host="http://h:11434/", timeout=30.0, max_bytes=1000)
    assert (target.host, target.address) == ("http://h:11434", "http://h:11434")
    assert OllamaChatAPI(model="m", host="https://proxy/BOX/").host == "https://proxy/BOX"
    assert target.client is first and target.client is first
    assert made == [("transport", {"deadline": 30.0, "origin": "http://h:11434", "max_bytes": 1000}),
                    ("client", {"host": "http://h:11434", "timeout": 30.0, "transport": "transport 1"})]
    asyncio.run(target.aclose())
    asyncio.run(target.aclose())
    assert first.closed == 1 and target._client is None


class Server:
    """``ollama.Client``'s ``show`` and ``list``."""

    def __init__(self, shown, error=None):
        self.shown, self.error, self.listed = shown, error, 0

    def show(self, model):
        if self.error:
            raise self.error
        return self.shown

    def list(self):
        self.listed += 1
        return listed(("m:latest", "sha256:fff"))


@pytest.mark.parametrize("timeout, capped", [(None, 60.0), (30.0, 30.0), (120.0, 60.0)])
def test_the_facts_are_read_with_a_capped_time_out(monkeypatch, timeout, capped):
    made = made_with(monkeypatch, "Client", "BoundedTransport")
    server = Server(show(f"FROM sha256-{DIGEST}", **{"llama.context_length": 4096}))
    made_with.clients = [server]
    assert OllamaChatAPI(model="m", host="http://h:1/", timeout=timeout).prepare() == \
        {"digest": DIGEST, "context_length": 4096}
    assert made == [("transport", {"deadline": capped, "origin": "http://h:1"}),
                    ("client", {"host": "http://h:1", "timeout": capped, "transport": "transport 1"})]
    assert server.listed == 0


def test_the_list_is_asked_only_when_the_modelfile_names_no_blob(monkeypatch):
    made_with(monkeypatch, "Client", "BoundedTransport")
    server = Server(show(None, **{"llama.context_length": 4096}))
    made_with.clients = [server]
    assert OllamaChatAPI(model="m", host="http://h:1").prepare() == {"digest": "fff", "context_length": 4096}
    assert server.listed == 1


@pytest.mark.parametrize("error, message", [
    (ollama.ResponseError("model 'm' not found", 404), "ollama at http://h:1: m: model 'm' not found (HTTP 404)"),
    (ConnectionRefusedError("refused"), "cannot reach ollama at http://h:1: ConnectionRefusedError: refused"),
])
def test_a_server_that_cannot_tell_the_facts_is_one_line(monkeypatch, error, message):
    made_with(monkeypatch, "Client", "BoundedTransport")
    made_with.clients = [Server(None, error)]
    with pytest.raises(RunError) as caught:
        OllamaChatAPI(model="m", host="http://h:1").prepare()
    assert str(caught.value) == message and caught.value.__suppress_context__
