"""The readiness helpers in process: the probe on a mock transport, the gate and late joiners on a fake clock,
and the fingerprint's endpoint on fake configurations and caches."""

from __future__ import annotations

from types import SimpleNamespace

import httpx
import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.readiness import readiness


def answering(monkeypatch, handler) -> list:
    """Route the probe's client through ``handler``; the list collects (origin, timeout, URL) of each request."""
    asked = []

    def client(origin, *, timeout):
        def record(request):
            asked.append((origin, timeout, str(request.url)))
            return handler(request)
        return httpx.Client(transport=httpx.MockTransport(record))
    monkeypatch.setattr(readiness.bounded_http, "client", client)
    return asked


@pytest.mark.parametrize("models, health, found", [
    (httpx.Response(200, json={"data": [{"id": "m"}]}), None, (None, {"data": [{"id": "m"}]})),
    (httpx.Response(200, json=[{"id": "m"}]), None, (None, None)),
    (httpx.Response(200, text="ready"), None, (None, None)),
    (httpx.Response(503), None, ("/models answers HTTP 503", None)),
    (httpx.Response(404), httpx.Response(200), (None, None)),
    (httpx.Response(404), httpx.Response(500), ("/health answers HTTP 500", None)),
])
def test_ready_is_models_200_else_health_200_where_models_is_missing(monkeypatch, models, health, found):
    asked = answering(monkeypatch, lambda request: models if request.url.path.endswith("/models") else health)
    assert readiness.probe("http://h:8/v1/") == found
    urls = ["http://h:8/v1/models"] + (["http://h:8/health"] if health is not None else [])
    assert asked == [("http://h:8/v1/", 5.0, url) for url in urls]
    asked.clear()                                   # a path of the server's own is kept as it is
    assert readiness.probe("http://h:8/BOX", timeout=1) == found
    urls = ["http://h:8/BOX/models"] + (["http://h:8/BOX/health"] if health is not None else [])
    assert asked == [("http://h:8/BOX", 1, url) for url in urls]


def raising(error):
    def handler(request):
        raise error
    return handler


@pytest.mark.parametrize("error, reason", [
    (httpx.ReadTimeout("slow"), "no answer within 2.5 s"),
    (httpx.ConnectError("refused\nmore detail"), "refused"),
    (httpx.ConnectError(""), "ConnectError"),
])
def test_an_unanswered_probe_says_why_in_one_line(monkeypatch, error, reason):
    answering(monkeypatch, raising(error))
    assert readiness.probe("http://h:8/v1", timeout=2.5) == (reason, None)


class Clock:
    """``time`` for the module: sleeping moves the clock on."""

    def __init__(self):
        self.now, self.slept = 0.0, []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    made = Clock()
    monkeypatch.setattr(readiness, "time", made)
    return made


def probing(monkeypatch, answers: dict) -> list:
    """``probe`` answering from ``answers`` (URL → reasons, one per probe; the last repeats); the URLs probed."""
    probed = []

    def probe(url):
        probed.append(url)
        assert len(probed) < 50, "probing without end"
        reasons = answers[url]
        return reasons[min(probed.count(url) - 1, len(reasons) - 1)], {"url": url}
    monkeypatch.setattr(readiness, "probe", probe)
    return probed


def test_the_gate_returns_the_ready_endpoints_at_once_in_order(monkeypatch, clock, capsys):
    probing(monkeypatch, {"u1": [None], "u2": ["loading"], "u3": [None]})
    assert readiness.wait_first(["u3", "u2", "u1"], 10) == ["u3", "u1"]
    assert clock.slept == [] and capsys.readouterr().err == ""


def test_the_gate_says_once_that_it_waits_then_polls_each_interval(monkeypatch, clock, capsys):
    probed = probing(monkeypatch, {"u1": ["loading", "loading", None], "u2": ["down"]})
    assert readiness.wait_first(["u1", "u2"], 7.5) == ["u1"]
    assert clock.slept == [2.0, 2.0] and probed == ["u1", "u2"] * 3
    assert capsys.readouterr().err == "auditpacks: waiting up to 7.5 s for u1 u2 to be ready\n"


def test_the_gate_gives_up_at_its_deadline_naming_each_endpoint_and_why(monkeypatch, clock):
    probing(monkeypatch, {"u1": ["loading"], "u2": ["down"]})
    with pytest.raises(RunError) as caught:
        readiness.wait_first(["u1", "u2"], 2.5, interval=2)
    assert str(caught.value) == "no endpoint ready within 2.5 s (--wait-ready): u1: loading; u2: down"
    assert clock.slept == [2, 0.5]                 # the last wait ends at the deadline


class Pool:
    def __init__(self, *urls):
        self.live = [SimpleNamespace(url=url, failed="earlier error") for url in urls]
        self.out = []

    def take_out(self, endpoint, why):
        self.out.append((endpoint.url, why))


class Thread:
    """Records the watcher instead of starting a thread; ``run()`` runs it here."""

    def __init__(self, *, target, name, daemon):
        self.target, self.name, self.daemon, self.started = target, name, daemon, False

    def start(self):
        self.started = True

    def run(self):
        self.target()


def test_every_endpoint_ready_starts_no_watcher(monkeypatch, clock):
    probing(monkeypatch, {"u1": [None], "u2": [None]})
    pool = Pool("u1", "u2")
    assert readiness.join_late(pool, 10) is None and pool.out == []


def test_a_late_endpoint_is_taken_out_then_joins_once_ready(monkeypatch, clock, capsys):
    monkeypatch.setattr(readiness.threading, "Thread", Thread)
    probing(monkeypatch, {"u1": [None], "u2": ["loading", "loading", None], "u3": ["down"]})
    pool = Pool("u1", "u2", "u3")
    watcher = readiness.join_late(pool, 6, interval=1.5)
    assert pool.out == [("u2", "not ready: loading; it joins when ready"), ("u3", "not ready: down; it joins when ready")]
    assert (watcher.name, watcher.daemon, watcher.started) == ("auditpacks-join-late", True, True)
    watcher.run()
    assert clock.slept == [1.5, 1.5, 1.5, 1.5]     # the last probe at the deadline
    assert [e.failed for e in pool.live] == ["earlier error", None, "earlier error"]
    assert capsys.readouterr().err == "auditpacks: endpoint u2 is ready and joins the pool\n"


def test_the_watcher_stops_once_every_endpoint_joined(monkeypatch, clock):
    monkeypatch.setattr(readiness.threading, "Thread", Thread)
    probing(monkeypatch, {"u1": ["loading", None]})
    readiness.join_late(Pool("u1"), 60, interval=1).run()
    assert clock.slept == [1]


def test_the_served_identity_is_the_first_servers_that_names_the_model(monkeypatch):
    listings = {"u1": None, "u2": {"data": [{"id": "other"}, {"id": "x"}]}, "u3": {"data": [{"id": "n"}, {"id": "m", "root": "r"}]},
                "u4": {"data": [{"id": "m", "root": "s"}]}}
    asked = []
    monkeypatch.setattr(readiness, "probe", lambda url: asked.append(url) or (None, listings[url]))
    assert readiness.served_identity(["u1", "u2", "u3", "u4"], "m") == {"id": "m", "root": "r"}
    assert asked == ["u1", "u2", "u3"]
    assert readiness.served_identity(["u1", "u2"], "m") is None


def config(*, base_url="http://a/v1", more=(), wait_ready=30.0, cache_only=False, embedded=False, decision=False):
    return SimpleNamespace(target=SimpleNamespace(base_url=base_url, more_base_urls=list(more), embedded=embedded,
                                                  decision=decision),
                           execution=SimpleNamespace(wait_ready=wait_ready, cache_only=cache_only))


@pytest.mark.parametrize("made, waits", [
    (config(more=["http://b/v1"]), True), (config(wait_ready=None), False), (config(wait_ready=0), False),
    (config(base_url=None), False), (config(cache_only=True), False),
])
def test_the_gate_waits_only_when_asked_for_a_server_it_will_ask(monkeypatch, made, waits):
    called = []
    monkeypatch.setattr(readiness, "wait_first", lambda urls, seconds: called.append((urls, seconds)))
    readiness.gate(made)
    assert called == ([(["http://a/v1", "http://b/v1"], 30.0)] if waits else [])


class Cache:
    def __init__(self, known=None):
        self.known, self.remembered, self.asked = known, [], []

    def recall_model(self, url, key):
        self.asked.append((url, key))
        return self.known

    def remember_model(self, url, key, value):
        self.remembered.append((url, key, value))


@pytest.fixture
def served(monkeypatch):
    """``served_identity`` answering ``{"id": model, "root": "r"}``; the calls in ``served.calls``."""
    calls = []
    monkeypatch.setattr(readiness, "served_identity", lambda urls, model: calls.append((urls, model))
                        or ({"id": model, "root": "r"} if model != "silent" else None))
    return SimpleNamespace(calls=calls)


@pytest.mark.parametrize("made", [config(embedded=True), config(decision=True), config(base_url=None),
                                  config(base_url="")])
def test_no_endpoint_identity_where_no_server_is_asked(served, made):
    assert readiness.endpoint_identity(made, "m", "sha256:1", Cache({"served": {"id": "m"}})) is None
    assert served.calls == []


def test_a_digest_identifies_the_endpoint_without_asking(served):
    assert readiness.endpoint_identity(config(), "m", "sha256:1", Cache()) == {"id": "m", "digest": "sha256:1"}
    assert served.calls == []


def test_the_served_model_is_asked_once_then_remembered_in_the_cache(served):
    cache = Cache()
    made = config(more=["http://b/v1"])
    assert readiness.endpoint_identity(made, "m", None, cache) == {"id": "m", "root": "r"}
    assert served.calls == [(["http://a/v1", "http://b/v1"], "m")]
    assert cache.asked == [("http://a/v1", "m\n/models")]
    assert cache.remembered == [("http://a/v1", "m\n/models", {"served": {"id": "m", "root": "r"}})]
    warm = Cache({"served": {"id": "m", "root": "r"}})
    assert readiness.endpoint_identity(made, "m", None, warm) == {"id": "m", "root": "r"}
    assert len(served.calls) == 1 and warm.remembered == []


def test_without_a_cache_or_an_answer_nothing_is_remembered(served):
    assert readiness.endpoint_identity(config(), "m", None) == {"id": "m", "root": "r"}
    cache = Cache({"other": 1})
    assert readiness.endpoint_identity(config(), "silent", None, cache) is None and cache.remembered == []


def test_a_cache_only_replay_asks_no_server(served):
    assert readiness.endpoint_identity(config(cache_only=True), "m", None, Cache()) is None
    assert readiness.endpoint_identity(config(cache_only=True), "m", None) is None
    assert served.calls == []


class Stream:
    """stderr that keeps what was written and whether it was flushed after."""

    def __init__(self):
        self.text, self.flushed = "", []

    def write(self, text):
        self.text += text

    def flush(self):
        self.flushed.append(self.text)


def test_the_waiting_and_joining_lines_are_flushed_at_once(monkeypatch, clock):
    stream = Stream()
    monkeypatch.setattr("sys.stderr", stream)
    monkeypatch.setattr(readiness.threading, "Thread", Thread)
    probing(monkeypatch, {"u1": ["loading", None], "u2": ["loading", None]})
    readiness.wait_first(["u1"], 5)
    waited = "auditpacks: waiting up to 5 s for u1 to be ready\n"
    assert stream.flushed == [waited]
    readiness.join_late(Pool("u2"), 5).run()
    assert stream.flushed[-1] == stream.text == waited + "auditpacks: endpoint u2 is ready and joins the pool\n"
