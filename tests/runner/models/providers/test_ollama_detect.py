"""Recognising Ollama behind an OpenAI-style URL: the probe, its memory in the cache, and the warning."""

from __future__ import annotations

import socket
import time

from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.providers.ollama_detect import (PROBE_TIMEOUT, ollama_root, ollama_version, probe_version, prompt_estimates,
                                                     truncation_warning)
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


def test_ollama_root_drops_v1():
    assert ollama_root("http://h:11434/v1/") == "http://h:11434"
    assert ollama_root("http://h:8080") == "http://h:8080"


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
