"""The probe client keeps to its request budget and reports transport failures as replies."""

from __future__ import annotations

import pytest

from auditpacks.runner.systemone.probe_client import BudgetSpent, ProbeClient
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
