"""The request-level probes: schema, option order, determinism."""

from __future__ import annotations

from auditpacks.runner.systemone.probe_checks import change, determinism, differs, option_order, schema
from auditpacks.runner.systemone.probe_client import ProbeClient
from tests.support.faulty_systemone import FaultySystemOne


def test_change_and_differs_by_hand():
    a = {"choice": "x", "probabilities": {"x": 0.6, "y": 0.4}}
    b = {"choice": "x", "probabilities": {"x": 0.55, "y": 0.45}}
    assert abs(change(a, b) - 0.05) < 1e-12 and differs(a, b) and not differs(a, b, tolerance=0.06)
    assert differs(a, {"choice": "y", "probabilities": {"x": 0.6, "y": 0.4}}, tolerance=1)
    assert change({"choice": "x"}, {"choice": "y"}) == 1.0 and change({"choice": "x"}, {"choice": "x"}) == 0.0


def test_an_order_sensitive_server_is_flagged():
    with FaultySystemOne(order_sensitive=True) as server, ProbeClient(server.url) as client:
        found = option_order(client, "m")
    # the first listed option wins: red, yellow, blue for the three orders
    assert found["status"] == "failed" and found["choices"] == ["red", "yellow", "blue"]
    assert "depends on the order of the options" in found["detail"] and server.requests == 3


def test_an_order_invariant_deterministic_server_passes():
    with FaultySystemOne() as server, ProbeClient(server.url) as client:
        order, repeats = option_order(client, "m"), determinism(client, "m")
    assert order["status"] == "ok" and order["choices"] == ["green"] * 3 and order["max_probability_change"] == 0
    assert repeats["status"] == "ok" and repeats["choices"] == ["blue"] * 3


def test_missing_answers_fail_the_schema():
    with FaultySystemOne(drop_answers=True) as server, ProbeClient(server.url) as client:
        found = schema(client, "m")
    assert found["status"] == "failed" and "missing" in found["detail"]


def test_sparrow_decider_passes_the_schema_order_and_determinism(sparrow_decider):
    with ProbeClient(sparrow_decider.url) as client:
        found = schema(client, "m"), option_order(client, "m"), determinism(client, "m")
    assert [f["status"] for f in found] == ["ok", "ok", "ok"]
    assert found[0]["usage"] == {"input_tokens": 0, "output_tokens": 0} and found[0]["latency_ms"] >= 0
    notes = " ".join(found[0]["notes"])
    assert "does not count tokens" in notes and "not the chosen option's probability" in notes
    assert found[2]["max_probability_change"] == 0  # a deterministic model
