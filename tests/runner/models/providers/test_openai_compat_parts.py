"""The OpenAI-compatible provider's parts in process, on fake completions and a fake client: the reply read
from a completion, tool calls, the cache address with and without the served model, the deferred check, slot
pinning, the server's timings, and the client it builds."""

from __future__ import annotations

import asyncio
import hashlib
import json
from types import SimpleNamespace as NS

import pytest

from auditpacks.runner.models.providers import checks, slots
from auditpacks.runner.models.providers.openai_compat import (
    MAX_TOOL_ARGUMENT_CHARS, USER_AGENT, ErrorReply, OpenAIChatAPI, cache_key_of, reply_from_completion, tool_call)
from auditpacks.runner.models.reply import Request

MESSAGES = [{"role": "user", "content": "q"}]


def completion(content="yes", *, usage=None, extra=None, calls=None, finish="stop", model="m-q4", timings=None):
    message = NS(content=content, model_extra=extra, tool_calls=calls)
    return NS(choices=[NS(message=message, finish_reason=finish)], usage=usage, model=model,
              model_extra={"timings": timings} if timings is not None else None)


def test_a_completion_gives_its_text_tokens_finish_reason_and_served_model():
    usage = NS(prompt_tokens=120, completion_tokens=9,
               prompt_tokens_details=NS(cached_tokens=64, cache_write_tokens=16))
    reply = reply_from_completion(completion("guilty", usage=usage, finish="length"))
    assert (reply.content, reply.input_tokens, reply.output_tokens, reply.finish_reason, reply.served_model) == \
        ("guilty", 120, 9, "length", "m-q4")
    assert (reply.cached_input_tokens, reply.cache_write_tokens, reply.reasoning, reply.tool_calls) == \
        (64, 16, None, None)


def test_a_completion_without_counts_or_text_gives_none_and_empty_text():
    reply = reply_from_completion(completion(None))
    assert (reply.content, reply.input_tokens, reply.output_tokens) == ("", None, None)
    assert (reply.cached_input_tokens, reply.cache_write_tokens) == (None, None)


@pytest.mark.parametrize("extra, reasoning", [
    ({"reasoning_content": "Because."}, "Because."), ({"reasoning": "So."}, "So."),
    ({"reasoning_content": "", "reasoning": "So."}, "So."), ({"reasoning": ["not", "text"]}, None), (None, None),
])
def test_reasoning_is_read_from_either_field_and_only_as_text(extra, reasoning):
    assert reply_from_completion(completion(extra=extra)).reasoning == reasoning


@pytest.mark.parametrize("extra, message", [
    ({"error": {"message": "overloaded\nsecond line"}}, "HTTP 200 without a reply: the server says 'overloaded'"),
    ({"error": "quota"}, "HTTP 200 without a reply: the server says 'quota'"),
    ({"error": {"message": "  "}}, "HTTP 200 without a reply: no choices and no error message"),
    ({"error": {"code": 5}}, "HTTP 200 without a reply: no choices and no error message"),
    (None, "HTTP 200 without a reply: no choices and no error message"),
])
def test_a_body_without_choices_is_an_error_with_the_servers_message(extra, message):
    with pytest.raises(ErrorReply) as caught:
        reply_from_completion(NS(choices=[], model_extra=extra))
    assert str(caught.value) == message


def test_a_long_error_message_is_cut_to_300_characters():
    with pytest.raises(ErrorReply) as caught:
        reply_from_completion(NS(choices=None, model_extra={"error": "x" * 400}))
    assert str(caught.value) == f"HTTP 200 without a reply: the server says '{'x' * 300}'"


def call_of(name="search", arguments='{"q": "x"}', id="c1"):
    return NS(id=id, function=NS(name=name, arguments=arguments))


def test_the_tool_calls_of_a_reply_are_kept_in_order():
    reply = reply_from_completion(completion("", calls=[call_of(), call_of("fetch", "{}", None)]))
    assert reply.tool_calls == [{"id": "c1", "name": "search", "arguments": '{"q": "x"}'},
                                {"id": "call_1", "name": "fetch", "arguments": "{}"}]


@pytest.mark.parametrize("call, kept", [
    (NS(id=None), {"id": "call_3", "name": None, "arguments": ""}),
    (call_of(name=7, arguments=None), {"id": "c1", "name": None, "arguments": ""}),
    (call_of(arguments={"q": "é"}), {"id": "c1", "name": "search", "arguments": '{"q": "é"}'}),
    (call_of(arguments={1j}), {"id": "c1", "name": "search", "arguments": "{1j}"}),
    (call_of(name="n" * 250, id="i" * 150), {"id": "i" * 100, "name": "n" * 200, "arguments": '{"q": "x"}'}),
])
def test_a_tool_call_is_kept_whatever_the_server_sent(call, kept):
    assert tool_call(call, 3) == kept


@pytest.mark.parametrize("size, cut", [(MAX_TOOL_ARGUMENT_CHARS, False), (MAX_TOOL_ARGUMENT_CHARS + 1, True)])
def test_long_tool_arguments_are_cut_with_their_true_length_beside_them(size, cut):
    kept = tool_call(call_of(arguments="a" * size), 0)
    assert MAX_TOOL_ARGUMENT_CHARS == 16_000 and kept["arguments"] == "a" * min(size, 16_000)
    assert kept.get("arguments_chars") == (size if cut else None)


def test_unserialisable_long_arguments_are_cut_too():
    kept = tool_call(call_of(arguments={"x" * 20_000}), 0)
    assert len(kept["arguments"]) == 16_000 and kept["arguments_chars"] == 16_001


def test_a_documents_prompt_cache_key_is_a_short_hash_of_its_key():
    assert cache_key_of("verdict_id:A") == "doc-" + hashlib.sha256(b"verdict_id:A").hexdigest()[:24]
    assert len(cache_key_of("x")) == 28


def api(**options) -> OpenAIChatAPI:
    return OpenAIChatAPI(**{"model": "m", "base_url": "http://h/v1/", "api_key": "sk-key", **options})


def test_a_provider_without_an_identity_is_known_by_the_model_it_serves():
    plain, named = api(), api(identity={"endpoint": "gw"})
    assert (plain.needs_facts, plain.facts_optional, plain.address, plain.identity, plain.secret) == \
        (True, True, "http://h/v1", {"base_url": "http://h/v1"}, "sk-key")
    assert (named.needs_facts, named.identity) == (False, {"endpoint": "gw"})
    assert plain.stats() == {"server_prompt_tokens": None} and plain.fatal is None


def test_the_body_drops_what_the_client_sends_itself():
    request = Request(messages=MESSAGES, params={"model": "x", "messages": [], "stream": True, "extra_headers": {},
                                                 "temperature": 0.5, "max_tokens": 9})
    assert api().build(request) == {"model": "m", "messages": MESSAGES, "temperature": 0.5, "max_tokens": 9}
    assert api(prompt_cache_key=True).build(request) == api().build(request)   # no group: no key


def keys(provider: OpenAIChatAPI, request: Request) -> tuple[dict, dict | None]:
    body = provider.build(request)
    return provider.cache_key(body, request), provider.old_cache_key(body, request)


def test_a_served_model_names_the_reply_and_the_url_is_the_earlier_address():
    provider, request = api(prompt_cache_key=True), Request(messages=MESSAGES, params={"seed": 1}, group="g")
    provider.facts = {"served_model": {"id": "m", "meta": {"size": 1}}}
    new, old = keys(provider, request)
    base = {"api": "openai-chat", "model": "m", "messages": MESSAGES, "params": {"seed": 1}, "repeat": 0}
    assert new == {**base, "served_model": {"id": "m", "meta": {"size": 1}}}
    assert old == {**base, "base_url": "http://h/v1"}


@pytest.mark.parametrize("facts, identity", [(None, None), ({}, None), ({"served_model": {"id": "m"}}, {"x": 1})])
def test_without_a_served_model_the_endpoint_names_the_reply(facts, identity):
    provider = api(identity=identity)
    provider.facts = facts
    new, old = keys(provider, Request(messages=MESSAGES))
    assert new["base_url" if identity is None else "x"] and "served_model" not in new and old is None


def test_the_deferred_check_runs_once_and_its_failure_is_fatal():
    ran = []

    def preflight():
        ran.append(1)
        raise RuntimeError("down")

    provider = api(preflight=preflight)

    async def go():
        for _ in range(2):
            with pytest.raises(RuntimeError, match="down"):
                await provider.before_call()

    asyncio.run(go())
    assert ran == [1] and isinstance(provider.fatal, RuntimeError)
    passing = api(preflight=lambda: None)
    asyncio.run(passing.before_call())
    assert passing.fatal is None
    asyncio.run(api().before_call())   # no check: nothing to run


@pytest.mark.parametrize("pinning, lane, slot", [(True, 5, {"id_slot": 1}), (True, None, None), (False, 5, None)])
def test_a_pinned_lane_names_its_slot_the_server_count_read_once(monkeypatch, pinning, lane, slot):
    asked = []
    monkeypatch.setattr(slots, "server_slots", lambda base_url: asked.append(base_url) or 4)
    provider = api(slot_pinning=pinning)

    async def go():
        return [await provider._slot_body(lane) for _ in range(2)]

    assert asyncio.run(go()) == [slot, slot] and asked == (["http://h/v1"] if slot else [])


class Completions:
    """A fake ``client.chat.completions``: answers ``reply``, keeps what it was sent."""

    def __init__(self, reply) -> None:
        self.reply, self.sent = reply, []

    async def create(self, **kwargs):
        self.sent.append(kwargs)
        return self.reply


class Client:
    def __init__(self, reply) -> None:
        self.chat, self.closed = NS(completions=Completions(reply)), False

    async def close(self) -> None:
        self.closed = True


def sent_through(provider: OpenAIChatAPI, reply, request: Request):
    client = provider._client = Client(reply)
    answer = asyncio.run(provider.call(provider.build(request), request))
    return answer, client.chat.completions.sent[0]


def test_a_call_sends_the_body_with_headers_and_returns_the_reply():
    request = Request(messages=MESSAGES, params={"temperature": 0.0}, headers={"traceparent": "00-ab"})
    reply, sent = sent_through(api(), completion("yes"), request)
    assert reply.content == "yes" and sent == {"model": "m", "messages": MESSAGES, "temperature": 0.0,
                                               "stream": False, "extra_headers": {"traceparent": "00-ab"},
                                               "extra_body": None}
    _, bare = sent_through(api(), completion(), Request(messages=MESSAGES))
    assert bare["extra_headers"] is None


@pytest.mark.parametrize("timings, counted", [
    ({"prompt_n": 100, "cache_n": 60}, {"requests": 2, "prompt_n": 200, "cache_n": 120}),
    ({"prompt_n": 100}, {"requests": 2, "prompt_n": 200, "cache_n": 0}),
    ({"prompt_n": "x", "cache_n": 5}, None), ({"cache_n": 5}, None), ("100", None),
])
def test_the_servers_timings_are_added_up_over_the_requests_sent(timings, counted):
    provider = api()
    for _ in range(2):
        sent_through(provider, completion(timings=timings), Request(messages=MESSAGES))
    assert provider.stats() == {"server_prompt_tokens": counted}


def test_closing_closes_the_client_once():
    provider = api()
    client = provider._client = Client(None)
    asyncio.run(provider.aclose())
    assert client.closed and provider._client is None
    asyncio.run(provider.aclose())   # nothing left to close


def test_the_client_has_no_retries_of_its_own_and_says_who_calls():
    provider = api(timeout=7.0)
    client = provider.client
    assert provider.client is client and str(client.base_url) == "http://h/v1/"
    assert (client.max_retries, client.timeout, client.api_key) == (0, 7.0, "sk-key")
    assert client.default_headers["User-Agent"] == USER_AGENT and USER_AGENT.startswith("auditpacks simpleaudit/")
    asyncio.run(provider.aclose())


@pytest.mark.parametrize("timeout, asked", [(None, 10.0), (3.0, 3.0), (30.0, 10.0)])
def test_the_served_model_is_read_from_the_model_list(monkeypatch, timeout, asked):
    seen = []
    monkeypatch.setattr(checks, "served_model", lambda *a, timeout: seen.append((*a, timeout)) or {"id": "m"})
    assert api(timeout=timeout).prepare() == {"served_model": {"id": "m"}}
    assert seen == [("http://h/v1", "sk-key", "m", asked)]
    monkeypatch.setattr(checks, "served_model", lambda *a, timeout: None)
    assert api().prepare() == {}


def test_the_check_asks_the_model_list_with_the_key(monkeypatch):
    seen = []
    monkeypatch.setattr(checks, "check_openai", lambda *a, **kw: seen.append((a, kw)))
    api().check(who="target", hint="--api-key")
    assert seen == [(("http://h/v1", "sk-key"), {"who": "target", "hint": "--api-key"})]


def test_fields_the_server_left_out_are_read_as_absent():
    """The SDK builds a reply without validating it: a field the server did not send is missing, not None."""
    with pytest.raises(ErrorReply, match="no choices and no error message"):
        reply_from_completion(NS())
    reply = reply_from_completion(NS(choices=[NS(message=NS(content="yes"), finish_reason="stop")]))
    assert (reply.content, reply.input_tokens, reply.tool_calls, reply.served_model) == ("yes", None, None, None)
    assert tool_call(NS(function=NS(name="f", arguments="{}")), 2)["id"] == "call_2"
    provider = api()
    provider._client = Client(NS(choices=[NS(message=NS(content="ok"), finish_reason="stop")]))
    assert asyncio.run(provider.call({"model": "m", "messages": MESSAGES}, Request(messages=MESSAGES))).content == "ok"


def test_a_plain_provider_pins_no_slot_and_strips_only_slashes_from_its_url():
    plain = OpenAIChatAPI(model="m", base_url="http://h/proxy/MAX//", api_key="k")
    assert (plain.base_url, plain.slot_pinning, plain.prompt_cache_key, plain.token_param, plain.timeout) == \
        ("http://h/proxy/MAX", False, False, "max_tokens", None)


def test_without_max_tokens_the_official_endpoint_gets_no_token_limit():
    official = api(token_param="max_completion_tokens")
    assert official.build(Request(messages=MESSAGES)) == {"model": "m", "messages": MESSAGES}


def test_the_check_passes_no_hint_unless_given(monkeypatch):
    seen = []
    monkeypatch.setattr(checks, "check_openai", lambda *a, **kw: seen.append(kw))
    api().check()
    assert seen == [{"who": None, "hint": ""}]
