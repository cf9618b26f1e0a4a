"""The limit probes: option and request-size limits found by bounded search, and the state window."""

from __future__ import annotations

import pytest

from auditpacks.runner.systemone.probe_checks import canary_state
from auditpacks.runner.systemone.probe_limits import option_limit, request_size_limit, search, state_window
from auditpacks.runner.systemone.probe_client import ProbeClient
from tests.support.faulty_systemone import FaultySystemOne, state_text


@pytest.mark.parametrize("limit", [2, 3, 26, 27, 100, 255, 999])
def test_search_finds_the_exact_limit_within_a_bounded_number_of_tries(limit):
    tried = []

    def accepts(n):
        tried.append(n)
        return n <= limit

    low, high = search(accepts, 2, (26, 27, 64, 65, 255, 256, 1000), steps=12)
    assert (low, high) == ((limit, limit + 1) if limit < 1000 else (1000, None))
    assert len(tried) <= 7 + 12


def test_search_stops_after_its_steps():
    # 1000 refused; then 501 (refused) and 251 (accepted): two halvings leave the gap 251..501
    assert search(lambda n: n <= 500, 2, (1000,), steps=2) == (251, 501)


def visible(pad: int, tokens: int) -> bool:
    """Whether the fake that reads ``tokens`` whitespace tokens sees the canary word after ``pad`` characters."""
    return "red." in state_text(canary_state("red", pad)).split()[:tokens]


def test_a_server_that_reads_only_the_first_300_tokens_is_flagged_with_the_size():
    with FaultySystemOne(truncate_tokens=300) as server, ProbeClient(server.url) as client:
        found = state_window(client, "m")
    assert found["status"] == "failed" and "ignores the end of long inputs" in found["detail"]
    low, high = found["reads_canary_after_chars"], found["ignores_canary_after_chars"]
    assert visible(low, 300) and not visible(high, 300)
    assert high - low <= max(64, low // 20) * 2
    assert found["requests"] <= 2 + 2 * (3 + 6)


def test_a_server_that_reads_everything_passes_up_to_the_bound():
    with FaultySystemOne() as server, ProbeClient(server.url) as client:
        found = state_window(client, "m", bound=20_000)
    assert found["status"] == "ok" and found["reads_canary_after_chars"] == 20_000
    assert found["ignores_canary_after_chars"] is None


def test_a_server_blind_to_the_canary_is_inconclusive():
    with FaultySystemOne(truncate_tokens=3) as server, ProbeClient(server.url) as client:
        found = state_window(client, "m", bound=4096)
    assert found["status"] == "inconclusive" and found["requests"] == 2


def test_option_and_body_limits_that_the_server_enforces():
    with FaultySystemOne(max_options=26, max_body_bytes=64 * 1024) as server, ProbeClient(server.url) as client:
        options = option_limit(client, "m")
        size = request_size_limit(client, "m", bound=1024 * 1024)
    assert (options["accepted"], options["refused"]) == (26, 27) and "HTTP 400" in options["detail"]
    assert size["accepted_bytes"] <= 64 * 1024 < size["refused_bytes"]
    assert size["refused_bytes"] - size["accepted_bytes"] <= max(1024, size["accepted_bytes"] // 50)
    assert "HTTP 413" in size["detail"] and options["requests"] + size["requests"] <= 2 * (1 + 7 + 8)


def test_sparrow_decider_limits_and_window(sparrow_decider):
    with ProbeClient(sparrow_decider.url, max_requests=60) as client:
        options = option_limit(client, "m", bound=300)
        size = request_size_limit(client, "m", bound=256 * 1024)
        window = state_window(client, "m", bound=16 * 1024)
    assert options["status"] == "ok" and options["accepted"] == 300 and options["refused"] is None  # no limit
    assert size["status"] == "ok" and size["accepted_bytes"] == 256 * 1024
    # sparrow-decider reads 512 word pieces of the state: the canary stops counting after a few thousand characters
    assert window["status"] == "failed" and 1000 < window["ignores_canary_after_chars"] < 4096
