"""The cheap request before a run, on a scripted transport: any HTTP answer proves a server is there, a refused key
is an error naming the server (never its credentials) and the setting to check, a connection failure or time-out
fails at once in one redacted line, and what a ``/models`` listing says is served under a model's name."""

from __future__ import annotations

import httpx
import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers import checks
from tests.support.scripted_http import ScriptedHTTP


@pytest.fixture()
def server(monkeypatch):
    """Each request seen as (origin, time-out, URL, Authorization header)."""
    scripted = ScriptedHTTP(httpx.Response(200, json={"data": []}),
                            lambda origin, timeout, request: (origin, timeout, str(request.url),
                                                              request.headers.get("authorization")))
    monkeypatch.setattr(checks.bounded_http, "client", scripted.client)
    return scripted


@pytest.mark.parametrize("status", [200, 401, 404, 500])
def test_any_http_answer_means_reachable(server, status):
    server.answer = httpx.Response(status)
    checks.check_reachable("http://h:1/v1/")
    checks.check_reachable("http://h:1/health", suffix="", timeout=2.5)
    assert server.seen == [("http://h:1/v1/models", 10.0, "http://h:1/v1/models", None),
                           ("http://h:1/health", 2.5, "http://h:1/health", None)]


def test_another_suffix_is_added_to_the_address_and_without_one_the_address_is_asked_as_given(server):
    checks.check_reachable("http://h:1", suffix="/props")
    checks.check_reachable("http://h:1/proxyX", suffix="/props")
    checks.check_reachable("http://h:1/health/", suffix="")
    assert [s[2] for s in server.seen] == ["http://h:1/props", "http://h:1/proxyX/props", "http://h:1/health/"]


@pytest.mark.parametrize("error, message", [
    (httpx.ConnectError("[Errno 111] Connection refused\nsecond line"),
     "judge: cannot reach http://h:1/v1: [Errno 111] Connection refused"),
    (httpx.ConnectError(""), "judge: cannot reach http://h:1/v1: ConnectError"),
    (httpx.ReadTimeout("slow"), "judge: cannot reach http://h:1/v1: no answer within 2.5 s"),
    (httpx.RemoteProtocolError("peer closed\nmore"),
     "judge: cannot reach http://h:1/v1: RemoteProtocolError: peer closed"),
])
def test_no_answer_is_one_line_naming_who_and_where(server, error, message):
    server.answer = error
    with pytest.raises(RunError) as failed:
        checks.check_reachable("http://h:1/v1", who="judge", timeout=2.5)
    assert str(failed.value) == message
    assert failed.value.__cause__ is None and failed.value.__suppress_context__


def test_without_who_the_line_starts_with_the_address_and_carries_no_credentials(server, monkeypatch):
    monkeypatch.setenv("AUDITPACKS_TEST_API_KEY", "sk-test-secret-1")
    server.answer = httpx.ConnectError("refused with sk-test-secret-1")
    with pytest.raises(RunError) as failed:
        checks.check_reachable("http://user:pw1234@h:1/v1")
    assert str(failed.value) == "cannot reach http://h:1/v1: refused with [api key]"
    server.answer = httpx.RemoteProtocolError("sk-test-secret-1 sent back")
    with pytest.raises(RunError, match=r"^cannot reach http://h:1/v1: RemoteProtocolError: \[api key\] sent back$"):
        checks.check_reachable("http://h:1/v1")
    server.answer = httpx.ConnectTimeout("")
    with pytest.raises(RunError, match=r"^cannot reach http://h:1/v1: no answer within 10 s$"):
        checks.check_reachable("http://h:1/v1")


def test_the_key_is_sent_as_a_bearer_token_unless_it_is_the_local_placeholder(server):
    for key in ("sk-1", "local", None, ""):
        checks.check_openai("http://h:1/v1/", key, timeout=3.0)
    assert [(s[1], s[2], s[3]) for s in server.seen] == [(3.0, "http://h:1/v1/models", "Bearer sk-1"),
                                                        (3.0, "http://h:1/v1/models", None),
                                                        (3.0, "http://h:1/v1/models", None),
                                                        (3.0, "http://h:1/v1/models", None)]
    checks.check_openai("http://h:1/v1", "k")
    checks.check_openai("http://h:1/gatewayX", "k")
    assert [s[1:3] for s in server.seen[-2:]] == [(10.0, "http://h:1/v1/models"), (10.0, "http://h:1/gatewayX/models")]


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_names_the_server_and_what_to_check(server, status):
    server.answer = httpx.Response(status)
    with pytest.raises(RunError) as refused:
        checks.check_openai("http://u:pw1234@h:1/v1", "k", who="target", hint="--api-key")
    assert str(refused.value) == f"target: http://h:1/v1 refuses the key (HTTP {status}): check --api-key"
    with pytest.raises(RunError) as refused:
        checks.check_openai("http://h:1/v1", "k")
    assert str(refused.value) == f"http://h:1/v1 refuses the key (HTTP {status})"


@pytest.mark.parametrize("status", [200, 404, 429, 500])
def test_any_other_answer_takes_the_key(server, status):
    server.answer = httpx.Response(status)
    checks.check_openai("http://h:1/v1", "k")


def test_an_unreachable_openai_server_is_a_run_error_naming_who(server):
    server.answer = httpx.ConnectError("refused")
    with pytest.raises(RunError, match="^judge: cannot reach http://h:1/v1: refused$"):
        checks.check_openai("http://h:1/v1", "k", who="judge")


def test_a_missing_sdk_names_the_package_to_install():
    assert checks.missing_extra("mistral") == "provider 'mistral' needs its SDK: pip install 'any-llm-sdk[mistral]'"


@pytest.mark.parametrize("listing, model, entry", [
    ({"data": [{"id": "a", "created": 1, "root": "r"}, {"id": "b", "digest": "d", "meta": {"n": 1}}]}, "b",
     {"id": "b", "digest": "d", "meta": {"n": 1}}),
    ({"data": [{"id": "only", "parent": "p", "created": 5, "root": None}]}, "asked", {"id": "only", "parent": "p"}),
    ({"data": [{"id": "a"}, {"id": "b"}]}, "c", None),          # several, none by that name: it does not tell
    ({"data": [{"created": 1}]}, "x", None),                     # nothing that names the weights
    ({"data": ["a", {"id": "x"}]}, "y", {"id": "x"}),            # entries that are not objects are skipped
    ({"data": None}, "x", None), ({}, "x", None), ([{"id": "x"}], "x", None), (None, "x", None),
])
def test_the_served_entry_is_the_models_own_or_the_only_one(listing, model, entry):
    assert checks.served_entry(listing, model) == entry


def test_served_model_reads_the_listing_with_the_key_and_none_when_it_cannot(server):
    server.answer = httpx.Response(200, json={"data": [{"id": "other"}, {"id": "m", "root": "w"}]})
    assert checks.served_model("http://h:1/v1/", "sk-2", "m", timeout=4.0) == {"id": "m", "root": "w"}
    assert checks.served_model("http://h:1/gatewayX", "local", "m") == {"id": "m", "root": "w"}
    assert [(s[1], s[2], s[3]) for s in server.seen] == [(4.0, "http://h:1/v1/models", "Bearer sk-2"),
                                                        (10.0, "http://h:1/gatewayX/models", None)]
    server.answer = httpx.Response(404, json={"data": [{"id": "m"}]})
    assert checks.served_model("http://h:1/v1", None, "m") is None
    server.answer = httpx.Response(200, text="not json")
    assert checks.served_model("http://h:1/v1", None, "m") is None
    server.answer = httpx.ConnectError("refused")
    assert checks.served_model("http://h:1/v1", None, "m") is None
