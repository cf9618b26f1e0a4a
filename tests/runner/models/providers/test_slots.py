"""llama.cpp slot pinning: the server's root from an OpenAI base URL, its slot count read once from ``/props``
(1 when it does not say, answers nonsense or cannot be reached), and the slot each executor lane pins."""

from __future__ import annotations

import httpx
import pytest

from auditpacks.runner.models.providers import slots
from tests.support.scripted_http import ScriptedHTTP


@pytest.mark.parametrize("base_url, root", [
    ("http://h:8080/v1", "http://h:8080"), ("http://h:8080/v1/", "http://h:8080"), ("http://h:8080", "http://h:8080"),
    ("http://h:8080/proxy/v1", "http://h:8080/proxy"), ("http://h:8080/v10", "http://h:8080/v10"),
    ("http://h:8080/proxyX", "http://h:8080/proxyX"),
])
def test_the_server_root_is_the_base_url_less_v1(base_url, root):
    assert slots.server_root(base_url) == root


@pytest.fixture()
def props(monkeypatch):
    """``/props`` answered with ``props.answer`` (4 slots unless a test says otherwise); each request seen as
    (origin, time-out, URL)."""
    scripted = ScriptedHTTP(httpx.Response(200, json={"total_slots": 4}),
                            lambda origin, timeout, request: (origin, timeout, str(request.url)))
    monkeypatch.setattr(slots.bounded_http, "client", scripted.client)
    return scripted


def test_the_slot_count_is_read_from_props(props):
    assert slots.server_slots("http://h:1/v1/") == 4
    assert slots.server_slots("http://h:1/v1", timeout=2.0) == 4
    assert props.seen == [("http://h:1/v1/", 10.0, "http://h:1/props"), ("http://h:1/v1", 2.0, "http://h:1/props")]


@pytest.mark.parametrize("answer", [
    httpx.Response(200, json={"total_slots": 0}), httpx.Response(200, json={"total_slots": -2}),
    httpx.Response(200, json={"total_slots": "4"}), httpx.Response(200, json={"total_slots": 2.0}),
    httpx.Response(200, json={}), httpx.Response(200, json=[4]), httpx.Response(200, text="not json"),
    httpx.Response(404, json={"error": "no props"}), httpx.ConnectError("refused"), httpx.ReadTimeout("slow"),
    OSError("no route"),
])
def test_a_server_that_does_not_say_has_one_slot(props, answer):
    props.answer = answer
    assert slots.server_slots("http://h:1/v1") == 1


def test_one_slot_is_a_count_too(props):
    props.answer = httpx.Response(200, json={"total_slots": 1})
    assert slots.server_slots("http://h:1/v1") == 1
    props.answer = httpx.Response(200, json={"total_slots": 7, "other": 1})
    assert slots.server_slots("http://h:1/v1") == 7


@pytest.mark.parametrize("lane, count, slot", [
    (None, 4, None), (0, 4, 0), (3, 4, 3), (4, 4, 0), (9, 4, 1), (5, 1, 0), (5, 0, 0), (5, -3, 0),
])
def test_lane_n_pins_slot_n_mod_the_slot_count(lane, count, slot):
    assert slots.slot_for(lane, count) == slot
