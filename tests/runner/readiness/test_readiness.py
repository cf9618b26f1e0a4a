"""Servers still loading: the readiness gate, late joiners, and the served model as the fingerprint's endpoint."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.readiness.readiness import join_late, probe, served_identity, wait_first
from auditpacks.runner.models.endpoints import EndpointPool
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import journal_entries, run_file, run_here
from tests.support.tiny_pack import write_pack


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def later(seconds: float, action) -> None:
    threading.Timer(seconds, action).start()


def test_probe_tells_ready_loading_and_absent_servers_apart():
    with FakeOpenAI() as server:
        reason, listing = probe(server.base_url)
        assert reason is None and listing["data"][0]["id"] == "fake"
        server.loading = True
        assert probe(server.base_url) == ("/models answers HTTP 503", None)
    reason, _ = probe(closed_port_url())
    assert reason is not None


def test_the_gate_waits_for_a_server_that_finishes_loading():
    with FakeOpenAI() as server:
        server.loading = True
        later(0.5, lambda: setattr(server, "loading", False))
        started = time.monotonic()
        assert wait_first([closed_port_url(), server.base_url], 10, interval=0.1) == [server.base_url]
        assert 0.4 < time.monotonic() - started < 5


def test_the_gate_gives_up_after_its_time_out_naming_each_endpoint():
    with FakeOpenAI() as server:
        server.loading = True
        with pytest.raises(RunError, match=r"no endpoint ready within 0.3 s .*HTTP 503") as caught:
            wait_first([server.base_url], 0.3, interval=0.1)
    assert "\n" not in str(caught.value)


def test_an_endpoint_that_comes_up_late_joins_the_pool():
    with FakeOpenAI() as ready, FakeOpenAI() as loading:
        loading.loading = True
        pool = EndpointPool([(ready.base_url, object()), (loading.base_url, object())])
        watcher = join_late(pool, 10, interval=0.1)
        assert [e.url for e in pool.live] == [ready.base_url]
        loading.loading = False
        watcher.join(5)
        assert [e.url for e in pool.live] == [ready.base_url, loading.base_url] and not watcher.is_alive()


def test_a_run_waits_for_its_server_with_wait_ready(tmp_path):
    pack = write_pack(tmp_path / "p.json", 4)
    with FakeOpenAI() as server:
        server.loading = True
        assert run_here(pack, tmp_path / "no-wait", server.base_url, "--max-retries", "0") != 0
        later(0.5, lambda: setattr(server, "loading", False))
        assert run_here(pack, tmp_path / "waited", server.base_url, "--wait-ready", "10") == 0
    assert run_file(tmp_path / "waited")["summary"]["completed"] == 4


def test_the_served_model_not_the_url_identifies_the_endpoint(tmp_path):
    pack = write_pack(tmp_path / "p.json", 6)
    out = tmp_path / "run"
    with FakeOpenAI() as first:
        assert run_here(pack, out, first.base_url, "--limit", "3") == 0
        fingerprint = run_file(out)["fingerprint"]
    with FakeOpenAI() as restarted:  # the same model, served from another address
        assert served_identity([restarted.base_url], "m") == {"id": "fake", "meta": {"n_params": 1000, "size": 10}}
        assert run_here(pack, out, restarted.base_url, "--limit", "3") == 0
        assert restarted.chat_requests == 0  # every scenario resumed from the journal
        assert run_file(out)["fingerprint"] == fingerprint
    assert len(journal_entries(out)) == 3
    with FakeOpenAI() as other:
        other.served = {"id": "fake", "object": "model", "meta": {"n_params": 2000, "size": 20}}  # other weights
        assert run_here(pack, out, other.base_url, "--limit", "3") == 2


def test_a_cache_only_replay_keeps_the_served_identity(tmp_path):
    pack = write_pack(tmp_path / "p.json", 3)
    cache = tmp_path / "cache"
    with FakeOpenAI() as server:
        url = server.base_url
        assert run_here(pack, tmp_path / "live", url, "--cache", str(cache)) == 0
    assert run_here(pack, tmp_path / "replay", url, "--cache", str(cache), "--cache-only") == 0  # server gone
    assert run_file(tmp_path / "replay")["fingerprint"] == run_file(tmp_path / "live")["fingerprint"]


def test_a_replica_that_finishes_loading_mid_run_takes_documents(tmp_path):
    from tests.support.fake_openai import default_answer

    def slow(model, messages):
        time.sleep(0.25)
        return default_answer(model, messages)

    pack = write_pack(tmp_path / "p.json", 40, per_document=1)  # 40 documents, a quarter second each
    with FakeOpenAI(answer=slow) as up, FakeOpenAI(answer=slow) as late:
        late.loading = True
        later(3.0, lambda: setattr(late, "loading", False))  # while the run has started
        assert run_here(pack, tmp_path / "run", up.base_url, "--base-url", late.base_url,
                        "--wait-ready", "30", "--concurrency", "2", "--max-retries", "0") == 0
    endpoints = {e["base_url"]: e for e in run_file(tmp_path / "run")["performance"]["endpoints"]}
    assert endpoints[late.base_url]["failed"] is None and endpoints[late.base_url]["documents"] > 0
    assert endpoints[up.base_url]["documents"] + endpoints[late.base_url]["documents"] == 40
