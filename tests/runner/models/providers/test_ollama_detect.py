"""Recognising Ollama behind an OpenAI-style URL: the probe, its memory in the cache, and the warning."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.providers import ollama_detect
from auditpacks.runner.models.providers.ollama_detect import (PROBE_TIMEOUT, ollama_root, ollama_version, probe_version, prompt_estimates,
                                                     truncation_warning, warn)
from tests.support.hostile import HostileServer
from tests.support.stub_http import StubHTTP


def ollama(version: str | None) -> StubHTTP:
    """``GET /api/version`` answers ``version`` (None: 404, as a server that is not Ollama)."""
    def reply(method, path, headers, body):
        found = path == "/api/version" and version is not None
        return (200, {"version": version}) if found else (404, {"error": "no"})
    return StubHTTP(reply)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("base_url, root", [
    ("http://h:11434/v1/", "http://h:11434"), ("http://h:8080", "http://h:8080"),
    ("http://h:8080/proxyX/", "http://h:8080/proxyX"), ("http://h:8080/BOX", "http://h:8080/BOX"),
])
def test_ollama_root_drops_v1(base_url, root):
    assert ollama_root(base_url) == root


def test_the_probe_reads_the_version_and_anything_else_is_not_ollama():
    with ollama("0.6.2") as server:
        assert probe_version(server.url + "/v1") == "0.6.2"
        assert [(method, path) for method, path, _, _ in server.requests] == [("GET", "/api/version")]
    with ollama(None) as server:
        assert probe_version(server.url + "/v1") is None
    assert probe_version(f"http://127.0.0.1:{closed_port()}/v1", timeout=1.0) is None


def test_the_answer_is_remembered_in_the_cache_and_never_asked_with_cache_only(tmp_path):
    with ollama("0.7.0") as server:
        cache = ResponseCache(tmp_path)
        assert ollama_version(server.url + "/v1", cache) == "0.7.0"
        assert ollama_version(server.url + "/v1", cache) == "0.7.0"
        assert len(server.requests) == 1  # the second answer came from the cache
        assert ollama_version(server.url + "/v1", ResponseCache(tmp_path / "empty", only=True)) is None
        assert len(server.requests) == 1


def test_longer_prompts_are_estimated_larger():
    short, long = prompt_estimates([{"test_prompt": "Guilty?"},
                                    {"test_prompt": "Guilty?", "documents": ["word " * 3000]}], system=None)
    assert short < 2048 < long


def test_the_warning_counts_the_prompts_over_the_default_context():
    message = truncation_warning("http://h:11434/v1", "0.6.2", [100, 3000, 5000])
    assert "2 of 3 prompts are estimated above 2,048 tokens (largest about 5,000)" in message
    assert "Ollama server (0.6.2)" in message and "--provider ollama" in message
    assert "none of the 2 prompts is estimated above 2,048 tokens" in truncation_warning("u", "v", [10, 2048])


def test_the_ollama_probe_holds_its_three_seconds_against_a_drip():
    with HostileServer("drip", drip_s=0.05) as server:
        started = time.monotonic()
        assert probe_version(server.base_url) is None
    assert time.monotonic() - started < PROBE_TIMEOUT + 2


class Answers:
    """Stands in for ``bounded_http.client``: each request is answered with ``answer`` and kept in ``seen``
    with the client's options."""

    def __init__(self, monkeypatch, answer: httpx.Response) -> None:
        self.answer, self.seen = answer, []
        monkeypatch.setattr(ollama_detect.bounded_http, "client", self.client)

    def client(self, origin, **options) -> httpx.Client:
        def handle(request):
            self.seen.append((origin, options, str(request.url)))
            return self.answer
        return httpx.Client(transport=httpx.MockTransport(handle))


def test_the_probe_asks_the_root_within_three_seconds_and_64_kib(monkeypatch):
    answers = Answers(monkeypatch, httpx.Response(200, json={"version": "0.6.2"}))
    assert probe_version("http://h:11434/v1") == "0.6.2"
    assert answers.seen == [("http://h:11434/v1", {"timeout": 3.0, "max_bytes": 65536}, "http://h:11434/api/version")]


@pytest.mark.parametrize("answer", [
    httpx.Response(404, json={"version": "0.6.2"}), httpx.Response(200, json={"version": ""}),
    httpx.Response(200, json={"version": 6}), httpx.Response(200, json=["0.6.2"]),
    httpx.Response(200, text="ollama"),
])
def test_anything_but_a_version_string_in_a_200_is_not_ollama(monkeypatch, answer):
    Answers(monkeypatch, answer)
    assert probe_version("http://h:11434/v1") is None


def test_the_version_is_remembered_per_server(monkeypatch, tmp_path):
    answers = Answers(monkeypatch, httpx.Response(200, json={"version": "0.6.2"}))
    cache = ResponseCache(tmp_path)
    assert ollama_version("http://a:11434/v1", cache) == "0.6.2"
    answers.answer = httpx.Response(404)
    assert ollama_version("http://a:11434/", cache) == "0.6.2"     # the same server, from the cache
    assert ollama_version("http://b:11434/v1", cache) is None      # another server is asked
    assert [url for _, _, url in answers.seen] == ["http://a:11434/api/version", "http://b:11434/api/version"]


# Each estimate by hand: 64 for the template, 8 per message, 0.6 per ASCII letter and 1 per other
# non-space character; int() of the sum, plus 1. "Guilty?": 6 letters and "?" (4.6): 64 + 8 + 4.6 -> 77;
# no text at all: 64 + 8 -> 73; the system message "Judge." adds 8 + 3 + 1 = 12 and "Be brief." 8 + 4.2 + 1.
@pytest.mark.parametrize("scenario, system, estimate", [
    ({}, None, 73),
    ({"test_prompt": "Guilty?"}, None, 77),
    ({"description": "Guilty?"}, None, 77),
    ({"test_prompt": "", "description": "Guilty?"}, None, 77),
    ({"test_prompt": "Guilty?", "description": "No"}, None, 77),
    ({}, "Judge.", 85),
    ({"metadata": {"system_prompt": "Be brief."}}, "Judge.", 86),
    ({"metadata": {"system_prompt": "Be brief."}}, None, 86),
    ({"metadata": {}}, "Judge.", 85),
])
def test_the_estimate_counts_the_prompt_the_target_would_send(scenario, system, estimate):
    assert prompt_estimates([scenario], system) == [estimate]


def test_the_warning_says_how_to_send_num_ctx():
    assert truncation_warning("http://h:11434/v1", "0.6.2", [4096]) == (
        "http://h:11434/v1 is an Ollama server (0.6.2) and --provider openai sends no num_ctx, so Ollama may "
        "cut the start of prompts longer than its default context: 1 of 1 prompts are estimated above 2,048 "
        "tokens (largest about 4,096); leave out --provider (or use --provider ollama) to send num_ctx fitted "
        "to each prompt")


def test_a_warning_goes_to_stderr_under_the_tools_name(capsys):
    warn("something to know")
    assert capsys.readouterr() == ("", "auditpacks: warning: something to know\n")
