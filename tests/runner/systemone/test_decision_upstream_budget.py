"""serve-decision's upstream: one total deadline per call however slowly it drips, and a byte cap."""

from __future__ import annotations

import time

import pytest

from auditpacks.runner.systemone import decision_upstream
from auditpacks.runner.systemone.decision_upstream import Upstream, UpstreamError
from tests.support.hostile import HostileServer


def test_a_dripping_upstream_is_cut_at_the_upstream_timeout():
    with HostileServer("drip", drip_s=0.05) as server:
        started = time.monotonic()
        with pytest.raises(UpstreamError, match="1 s deadline"):
            Upstream(server.base_url, "m", timeout=1.0).post("/v1/chat/completions", {})
    assert time.monotonic() - started < 4


def test_an_endless_upstream_reply_stops_at_its_cap(monkeypatch):
    monkeypatch.setattr(decision_upstream, "MAX_REPLY_BYTES", 2**20)
    with HostileServer("endless") as server:
        with pytest.raises(UpstreamError, match="1 MiB cap"):
            Upstream(server.base_url, "m", timeout=30).post("/v1/chat/completions", {})
