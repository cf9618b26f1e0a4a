"""The probe client keeps to its request budget and reports transport failures as replies."""

from __future__ import annotations

import time

import httpx
import pytest

from auditpacks.core.bounded import http as bounded_http
from auditpacks.runner.models import waits
from auditpacks.runner.systemone import probe_client
from auditpacks.runner.systemone.probe_client import BudgetSpent, ProbeClient, Reply
from tests.support.scripted_http import ScriptedHTTP
from tests.support.faulty_systemone import FaultySystemOne
from tests.support.sparrow import free_port


def test_the_request_budget_is_kept():
    with FaultySystemOne() as server, ProbeClient(server.url, max_requests=2) as client:
        body = {"model": "m", "state": "s", "questions": {"q": {"type": "choice", "instructions": "i",
                                                               "criteria": {"a": "", "b": ""}}}}
        assert client.post(body).ok and client.post(body).ok
        with pytest.raises(BudgetSpent):
            client.post(body)
    assert server.requests == 2


def test_nothing_listening_is_a_reply_with_status_0():
    with ProbeClient(f"http://127.0.0.1:{free_port()}/v1/systemone", timeout=2) as client:
        reply = client.post({"model": "m"})
    assert reply.status == 0 and not reply.ok and reply.why().startswith("Connect")


URL = "http://probe.test/v1/systemone"


class Clock:
    """A ``time`` stand-in whose ``monotonic`` moves only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(probe_client, "time", fake)
    return fake


def scripted(monkeypatch, answer, during=None) -> ScriptedHTTP:
    """Replaces the bounded client with one that answers ``answer``; ``during(request)`` runs while it is sent."""
    def note(origin, timeout, request):
        return origin, timeout, request, during(request) if during else None
    fake = ScriptedHTTP(answer, note)
    monkeypatch.setattr(bounded_http, "client", fake.client)
    return fake


def test_the_body_is_compact_utf8_json_with_the_callers_headers(monkeypatch, clock):
    fake = scripted(monkeypatch, httpx.Response(200, json={"answers": {}}))
    with ProbeClient(URL, headers={"Authorization": "Bearer t"}, timeout=7.5) as client:
        reply = client.post({"model": "m", "state": "Ålesund é"})
    origin, timeout, request, _ = fake.seen[0]
    expected = '{"model":"m","state":"Ålesund é"}'.encode("utf-8")
    assert (origin, timeout, request.url) == (URL, 7.5, URL)
    assert request.content == expected and reply.request_bytes == len(expected)
    assert request.headers["content-type"] == "application/json"
    assert request.headers["authorization"] == "Bearer t"
    assert reply == Reply(200, {"answers": {}}, 0.0, None, len(expected)) and reply.ok


def test_an_answer_that_is_not_json_is_kept_as_its_first_300_characters(monkeypatch, clock):
    scripted(monkeypatch, httpx.Response(502, text="x" * 299 + "yz"))
    with ProbeClient(URL) as client:
        reply = client.post({})
    assert reply.data == "x" * 299 + "y" and not reply.ok


def test_the_seconds_are_those_the_request_took_and_the_wait_is_noted_meanwhile(monkeypatch, clock):
    def during(request):
        clock.now += 2.5
        return waits.longest()
    fake = scripted(monkeypatch, httpx.Response(200, json={}), during)
    before = waits.longest()[1]
    with ProbeClient(URL, timeout=40.0) as client:
        reply = client.post({})
    wait, count = fake.seen[0][3]
    assert reply.seconds == 2.5 and count == before + 1
    assert (wait.attempt, wait.attempts, wait.since) == (1, 1, 1000.0)
    assert 35.0 < wait.deadline - time.monotonic() <= 40.0
    assert waits.longest()[1] == before


def test_a_request_in_flight_stays_noted_while_another_ends(monkeypatch, clock):
    def during(request):
        if request.content == b'{"outer":1}':
            inner.post({})
        return None, waits.longest()[1]
    fake = scripted(monkeypatch, httpx.Response(200, json={}), during)
    before = waits.longest()[1]
    with ProbeClient(URL) as outer, ProbeClient(URL) as inner:
        outer.post({"outer": 1})
    assert [seen[3][1] for seen in fake.seen] == [before + 2, before + 1]


@pytest.mark.parametrize("message, line", [
    ("All connection attempts failed\nsecond line", "ConnectError: All connection attempts failed"),
    ("", "ConnectError"),
    ("no route to PROXY-BOX", "ConnectError: no route to PROXY-BOX"),
])
def test_a_transport_failure_is_a_reply_with_its_first_line(monkeypatch, clock, message, line):
    def during(request):
        clock.now += 1.25
    scripted(monkeypatch, httpx.ConnectError(message), during)
    with ProbeClient(URL) as client:
        reply = client.post({"a": 1})
    assert reply == Reply(0, None, 1.25, line, len(b'{"a":1}'))
    assert reply.why() == line


def test_by_default_60_requests_of_30_seconds_each(monkeypatch, clock):
    fake = scripted(monkeypatch, httpx.Response(200, json={}))
    with ProbeClient(URL) as client:
        for _ in range(60):
            client.post({})
        with pytest.raises(BudgetSpent, match="^the probe's budget of 60 requests is spent$"):
            client.post({})
    assert client.requests == 60 and fake.seen[0][1] == 30.0


@pytest.mark.parametrize("seconds, kwargs", [(180.0, {}), (12.0, {"seconds": 12.0})])
def test_no_request_starts_once_the_time_budget_is_spent(monkeypatch, clock, seconds, kwargs):
    fake = scripted(monkeypatch, httpx.Response(200, json={}))
    with ProbeClient(URL, **kwargs) as client:
        clock.now += seconds - 0.001
        client.post({})
        clock.now += 0.001
        with pytest.raises(BudgetSpent, match="^the probe's time budget is spent$"):
            client.post({})
    assert len(fake.seen) == 1 and client.requests == 1


@pytest.mark.parametrize("reply, why", [
    (Reply(0, None, 0.0, "ConnectError: refused"), "ConnectError: refused"),
    (Reply(500, {"error": "model not loaded"}, 0.0), "HTTP 500: model not loaded"),
    (Reply(502, "Bad Gateway", 0.0), "HTTP 502: Bad Gateway"),
    (Reply(400, "e" * 199 + "fg", 0.0), "HTTP 400: " + "e" * 199 + "f"),
    (Reply(503, None, 0.0), "HTTP 503: None"),
])
def test_why_says_what_went_wrong_in_one_line(reply, why):
    assert reply.why() == why
