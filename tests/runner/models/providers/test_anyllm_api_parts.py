"""The any-llm provider's parts in process: counts made counts, the SDK's options, the body, the key, the reply."""

from __future__ import annotations

import asyncio
import contextvars
import json
from types import SimpleNamespace

import pytest

from auditpacks.runner.models import simpleaudit_adapter
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers import anyllm_api
from auditpacks.runner.models.providers.anyllm_api import AnyLLMChatAPI, check_anyllm, checked_usage, sdk_options
from auditpacks.runner.models.providers.checks import PREFLIGHT_TIMEOUT_S, missing_extra
from auditpacks.runner.models.reply import Request

MESSAGES = [{"role": "user", "content": "Is it guilty?"}]


def checked(body: bytes) -> tuple[bytes, bool]:
    """``checked_usage(body)`` and whether it noted unknown counts, in a context of its own."""
    def go():
        return checked_usage(body), anyllm_api._UNKNOWN_USAGE.get()
    return contextvars.copy_context().run(go)


@pytest.mark.parametrize("field", ["usage", "usageMetadata"])
def test_counts_that_are_not_counts_become_0_at_any_depth_and_are_noted(field):
    body = ('{"text": "民法", "%s": {"input_tokens": -5, "output_tokens": 3, "cached": true, '
            '"details": {"cached_tokens": NaN}}}' % field).encode()
    out, noted = checked(body)
    assert noted and json.loads(out) == {"text": "民法", field: {"input_tokens": 0, "output_tokens": 3, "cached": True,
                                                                  "details": {"cached_tokens": 0}}}
    assert "民法".encode() in out   # written as UTF-8, not escaped


def test_a_bad_count_deep_inside_is_noted_after_good_ones():
    out, noted = checked(b'{"usage": {"input_tokens": 7, "details": {"cached_tokens": -1}}}')
    assert noted and json.loads(out) == {"usage": {"input_tokens": 7, "details": {"cached_tokens": 0}}}


@pytest.mark.parametrize("body", [b'["usage"]', b'{"usage": ' * 100_000, b'{"usage": {"input_tokens": 7}}',
                                  b'{"choices": [], "input_tokens": -1}'])
def test_any_other_body_is_handed_on_as_it_is_and_nothing_is_noted(body):
    out, noted = checked(body)
    assert out is body and not noted


class Recorder:
    def __init__(self) -> None:
        self.calls = []

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return "bounded client"


BOUNDED = [(("http://h/v1",), {"timeout": 12.0, "pooled": False, "max_bytes": 4096, "body_filter": checked_usage})]


@pytest.mark.parametrize("provider, expected, clients", [
    ("openai", {"max_retries": 0, "timeout": 12.0}, []),
    ("mistral", {"async_client": "bounded client"}, BOUNDED),
    ("anthropic", {"max_retries": 0, "timeout": 12.0, "http_client": "bounded client"}, BOUNDED),
    ("cohere", None, []),   # a plain any-llm provider: the SDK's defaults
])
def test_the_sdks_options_follow_the_provider_table(monkeypatch, provider, expected, clients):
    made = Recorder()
    monkeypatch.setattr(anyllm_api.bounded_http, "async_client", made)
    assert sdk_options(provider, "http://h/v1", 12.0, pooled=False, max_bytes=4096) == expected
    assert made.calls == clients


def test_the_sdks_client_pools_connections_unless_told_not_to(monkeypatch):
    made = Recorder()
    monkeypatch.setattr(anyllm_api.bounded_http, "async_client", made)
    sdk_options("mistral", "http://h/v1", 12.0)
    assert made.calls[0][1]["pooled"] is True


def test_the_client_is_made_once_with_the_sdk_options_and_closing_forgets_it(monkeypatch):
    made = []
    monkeypatch.setattr(simpleaudit_adapter, "anyllm_client", lambda *args: made.append(args) or object())
    monkeypatch.setattr(anyllm_api, "sdk_options", lambda *args, **kwargs: {"args": args, **kwargs})
    api = AnyLLMChatAPI("mistral", model="m", base_url="http://h/v1", api_key="k", timeout=5.0, max_bytes=99)
    first = api.client
    assert api.client is first and made == [("k", "http://h/v1", "mistral",
                                             {"args": ("mistral", "http://h/v1", 5.0), "max_bytes": 99})]
    asyncio.run(api.aclose())
    assert api.client is not first and len(made) == 2


def test_cache_marks_come_from_the_table_unless_given():
    assert AnyLLMChatAPI("anthropic", model="m", base_url=None, api_key=None).cache_marks is True
    assert AnyLLMChatAPI("mistral", model="m", base_url=None, api_key=None).cache_marks is False
    assert AnyLLMChatAPI("anthropic", model="m", base_url=None, api_key=None, cache_marks=False).cache_marks is False


def test_the_body_leaves_out_what_the_provider_refuses_and_keeps_the_schema_and_the_order_in_the_key():
    api = AnyLLMChatAPI("anthropic", model="claude", base_url=None, api_key="k")
    schema = {"type": "json_schema", "json_schema": {"name": "verdict"}}
    request = Request(messages=MESSAGES, params={"seed": 7, "temperature": 0.0}, response_format=schema,
                      prompt_order="document-first")
    body = api.build(request)
    assert body == {"temperature": 0.0, "model": "claude", "messages": MESSAGES, "stream": False,
                    "response_format": schema}
    assert api.cache_key(body, request)["prompt_order"] == "document-first"
    assert "repeat" not in api.cache_key(body, request) and "response_format" not in api.build(Request(MESSAGES))


def completion(usage, content="guilty"):
    message = SimpleNamespace(content=content)
    return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason="stop")], usage=usage,
                           model="claude-3-5-sonnet-20241022")


class Client:
    def __init__(self, response, bad=False) -> None:
        self.response, self.bad, self.bodies = response, bad, []

    async def acompletion(self, **body):
        self.bodies.append(body)
        if self.bad:
            anyllm_api._UNKNOWN_USAGE.set(True)   # as checked_usage notes it while the SDK reads the reply
        return self.response


def called(client) -> object:
    api = AnyLLMChatAPI("anthropic", model="claude", base_url=None, api_key="k")
    api._client = client
    return asyncio.run(api.call({"model": "claude", "messages": MESSAGES}, Request(MESSAGES)))


def test_a_reply_carries_its_counts_prompt_cache_and_the_served_model():
    usage = {"prompt_tokens": 40, "completion_tokens": 7,
             "prompt_tokens_details": {"cached_tokens": 30, "cache_write_tokens": 5}}
    reply = called(Client(completion(usage)))
    assert (reply.content, reply.input_tokens, reply.output_tokens, reply.finish_reason) == ("guilty", 40, 7, "stop")
    assert (reply.cached_input_tokens, reply.cache_write_tokens, reply.served_model) == \
        (30, 5, "claude-3-5-sonnet-20241022")


@pytest.mark.parametrize("client, content", [(Client(completion(None, content=None)), ""),
                                             (Client(completion({"prompt_tokens": 0}), bad=True), "guilty")])
def test_a_reply_without_usage_or_with_bad_counts_has_unknown_counts_and_no_text_is_empty(client, content):
    reply = called(client)
    assert (reply.content, reply.input_tokens, reply.output_tokens) == (content, None, None)
    assert (reply.cached_input_tokens, reply.cache_write_tokens) == (None, None)


def test_a_reply_object_without_usage_finish_reason_or_model_reads_them_as_unknown():
    bare = SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content="guilty"))])
    reply = called(Client(bare))
    assert (reply.input_tokens, reply.finish_reason, reply.served_model) == (None, None, None)


def test_a_later_call_starts_with_its_counts_known():
    good = Client(completion({"prompt_tokens": 4, "completion_tokens": 1}))

    async def both():
        api = AnyLLMChatAPI("anthropic", model="claude", base_url=None, api_key="k")
        api._client = Client(completion({"prompt_tokens": 0}), bad=True)
        await api.call({"messages": MESSAGES}, Request(MESSAGES))
        api._client = good
        return await api.call({"messages": MESSAGES}, Request(MESSAGES))
    assert asyncio.run(both()).input_tokens == 4


class Listing:
    SUPPORTS_LIST_MODELS = True

    def __init__(self, error=None) -> None:
        self.error, self.listed = error, 0

    def list_models(self):
        self.listed += 1
        if self.error:
            raise self.error


def test_the_check_lists_the_models_once_through_an_unpooled_client(monkeypatch):
    made, listing = [], Listing()
    monkeypatch.setattr(simpleaudit_adapter, "anyllm_client", lambda *args: made.append(args) or listing)
    monkeypatch.setattr(anyllm_api, "sdk_options", lambda *args, **kwargs: (args, kwargs))
    AnyLLMChatAPI("mistral", model="m", base_url="http://h/v1", api_key="key-1").check(who="judge")
    assert listing.listed == 1
    assert made == [("key-1", "http://h/v1", "mistral",
                     (("mistral", "http://h/v1", PREFLIGHT_TIMEOUT_S), {"pooled": False}))]
    monkeypatch.setattr(simpleaudit_adapter, "anyllm_client", lambda *args: object())
    assert check_anyllm("cohere", base_url=None, api_key="k") is None   # no model list to ask


@pytest.mark.parametrize("key, who, shown", [
    ("sk-secret-9", "judge", "judge: provider 'mistral' does not answer the check before the run: "),
    ("abcd", None, "provider 'mistral' does not answer the check before the run: "),   # four characters: hidden
    ("abc", None, None),   # shorter keys are too common a string to hide
])
def test_a_failed_check_is_one_line_without_the_key(monkeypatch, key, who, shown):
    listing = Listing(RuntimeError(f"401 Unauthorized for key {key}"))
    monkeypatch.setattr(simpleaudit_adapter, "anyllm_client", lambda *args: listing)
    with pytest.raises(RunError) as refused:
        check_anyllm("mistral", base_url=None, api_key=key, who=who)
    text = str(refused.value)
    if shown is None:
        assert text.endswith(f"for key {key}")
    else:
        assert text.startswith(shown) and text.endswith("401 Unauthorized for key [api key]")


def test_a_check_of_a_role_names_it_and_a_timed_out_check_says_after_how_long(monkeypatch):
    listing = Listing(TimeoutError())
    monkeypatch.setattr(simpleaudit_adapter, "anyllm_client", lambda *args: listing)
    with pytest.raises(RunError, match=r"^judge: provider 'mistral' does not answer the check before the run: "
                                       r"timed out after 10 s$"):
        AnyLLMChatAPI("mistral", model="m", base_url=None, api_key="k").check(who="judge")
    with pytest.raises(RunError, match=r"timed out after 3 s$"):
        check_anyllm("mistral", base_url=None, api_key="k", timeout=3.0)


def test_a_missing_sdk_names_the_extra_to_install(monkeypatch):
    def missing(*args):
        raise ImportError("No module named 'mistralai'")

    monkeypatch.setattr(simpleaudit_adapter, "anyllm_client", missing)
    with pytest.raises(RunError) as refused:
        check_anyllm("mistral", base_url=None, api_key="k")
    assert str(refused.value) == missing_extra("mistral")
