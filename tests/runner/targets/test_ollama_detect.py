"""The Ollama probe: at most its time-out, whatever the server sends."""

from __future__ import annotations

import time

from auditpacks.runner.targets.ollama_detect import PROBE_TIMEOUT, probe_version
from tests.support.hostile import HostileServer


def test_the_ollama_probe_holds_its_three_seconds_against_a_drip():
    with HostileServer("drip", drip_s=0.05) as server:
        started = time.monotonic()
        assert probe_version(server.base_url) is None
    assert time.monotonic() - started < PROBE_TIMEOUT + 2
