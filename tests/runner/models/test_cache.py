"""The response cache: a warm rerun asks nothing; model or decoding changes miss; replay without a server."""

from __future__ import annotations

import json
import socket

import pytest

from auditpacks.runner.models.cache import ResponseCache
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import results, run_file, run_here
from tests.support.tiny_pack import write_pack


def dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_warm_cache_makes_no_request_and_changes_miss(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 8)
    cache = tmp_path / "cache"
    with FakeOpenAI() as server:
        def run(out: str, *extra: str, target: str = "m") -> int:
            server.reset_counts()
            assert run_here(pack, tmp_path / out, server.base_url, "--cache", str(cache), *extra, target=target) == 0
            return server.chat_requests + server.other_requests

        # eight chat requests, the reachability check, the Ollama probe (GET /api/version) and what the server
        # serves (GET /models, for the fingerprint's endpoint and for the replies' cache key), all remembered
        assert run("cold") == 8 + 1 + 1 + 1 + 1
        assert run("warm") == 0
        assert results(tmp_path / "warm") == results(tmp_path / "cold")
        assert run_file(tmp_path / "warm")["cache"] == {"hits": 8, "misses": 0, "writes": 0}
        # transport settings are not part of the key
        assert run("transport", "--timeout", "30", "--max-retries", "5", "--concurrency", "3") == 0
        # the model and every decoding parameter are
        assert run("model", target="m2") == 9 + 1 + 1  # what the server serves as m2: asked once for each use
        assert run("temperature", "--temperature", "0.5") == 9
        assert run("max_tokens", "--max-tokens", "64") == 9
        assert run("seed", "--seed", "3") == 9
        assert run("max_tokens_again", "--max-tokens", "64") == 0
    assert len(list(cache.glob("??/*.json"))) == 8 * 5


def test_cache_only_miss_is_that_scenarios_error(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 4)
    cache = tmp_path / "cache"
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "live", server.base_url, "--cache", str(cache)) == 0
    url = dead_url()  # another base URL is another key: every scenario misses, and no server is asked
    assert run_here(pack, tmp_path / "gone", url, "--cache", str(cache), "--cache-only") == 3  # all ERROR
    missed = results(tmp_path / "gone")
    assert all(r["severity"] == "ERROR" for r in missed)
    assert "no cached reply for this request in cache/ (--cache-only" in missed[0]["judgment"]["error"]


def test_cache_only_replay_of_the_same_endpoint(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 4)
    cache = tmp_path / "cache"
    with FakeOpenAI() as server:
        url = server.base_url
        assert run_here(pack, tmp_path / "live", url, "--cache", str(cache)) == 0
    # the server is gone now; the cache answers everything
    assert run_here(pack, tmp_path / "replay", url, "--cache", str(cache), "--cache-only") == 0
    assert results(tmp_path / "replay") == results(tmp_path / "live")


def test_cache_needs_an_owned_target_and_cache_only_needs_cache(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 1)
    assert run_here(pack, tmp_path / "a", "http://127.0.0.1:9/v1", "--cache-only") == 2
    assert "--cache-only needs --cache DIR" in capsys.readouterr().err
    assert run_here(pack, tmp_path / "b", None, "--provider", "anthropic", "--cache", str(tmp_path / "c")) == 2
    assert "--cache works with OpenAI-compatible providers" in capsys.readouterr().err


def test_lazy_reachability_check_stops_a_cached_run_in_one_line(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 3)
    url = dead_url()
    assert run_here(pack, tmp_path / "out", url, "--cache", str(tmp_path / "cache")) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"auditpacks: error: cannot reach {url}") and "\n" not in err
    assert not (tmp_path / "out" / "m.json").exists()


def test_entries_are_addressed_by_content_and_hold_their_key(tmp_path):
    cache = ResponseCache(tmp_path)
    key = {"model": "m", "messages": [{"role": "user", "content": "q"}], "params": {"temperature": 0}}
    assert cache.get(key) is None
    cache.put(key, {"content": "a"})
    assert cache.get(dict(reversed(list(key.items())))) == {"content": "a"}
    assert cache.get({**key, "params": {"temperature": 0.1}}) is None
    entry = json.loads(cache.path_for(key).read_text())
    assert entry["key"]["model"] == "m" and entry["reply"] == {"content": "a"}
    cache.path_for(key).write_text("{torn")  # a damaged entry is a miss, never an exception
    assert cache.get(key) is None
    assert not list(tmp_path.glob("**/.*.tmp"))


def test_embedded_model_replays_from_the_cache_without_starting(tmp_path, embedded_model, monkeypatch):
    """The embedded model's cache identity is its weights' digest, not its (ever-changing) port."""
    from auditpacks.runner.cli.main import main

    pack = write_pack(tmp_path / "tiny.json", 2)
    cache = str(tmp_path / "cache")
    common = ["run", "--pack", str(pack), "--max-tokens", "8", "--cache", cache, "--quiet"]
    assert main([*common, "--out", str(tmp_path / "live")]) == 0
    monkeypatch.setattr("auditpacks.runner.serving.embedded.EmbeddedModel.start", lambda self: pytest.fail("the model was started"))
    assert main([*common, "--cache-only", "--out", str(tmp_path / "replay")]) == 0
    assert results(tmp_path / "replay", "smollm2") == results(tmp_path / "live", "smollm2")
    assert run_file(tmp_path / "replay", "smollm2")["cache"]["hits"] == 2
