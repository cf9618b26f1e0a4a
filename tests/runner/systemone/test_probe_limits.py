"""The limit probes: option and request-size limits found by bounded search, and the state window; against test
servers, then in process over a stand-in endpoint (each finding, its requests and its line)."""

from __future__ import annotations

import json

import pytest

from auditpacks.runner.systemone.probe_checks import COLOURS, canary_state
from auditpacks.runner.systemone.probe_client import Reply
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


# In process: a stand-in endpoint that enforces the limits it is given and reads the state up to a point.

class Endpoint:
    """Refuses more than ``max_options`` options (HTTP 400) and bodies over ``max_bytes`` (HTTP 413), fails states
    whose canary comes after ``fails_from`` characters (HTTP 500), and names the canary's colour only when it comes
    before ``reads`` characters (else the first colour, its probability wobbling by ``wobble`` with the canary)."""

    def __init__(self, *, max_options=None, max_bytes=None, reads=10**9, fails_from=None, wobble=0.0):
        self.max_options, self.max_bytes, self.reads, self.fails_from = max_options, max_bytes, reads, fails_from
        self.wobble, self.requests, self.sent = wobble, 100, []   # a hundred requests sent by other probes

    def post(self, body):
        self.requests += 1
        size = len(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        self.sent.append((body, size))
        [document] = body["state"]["documents"]
        colour = document.rsplit(" ", 1)[-1].rstrip(".")
        pad = len(document) - len(f"Note: the colour is {colour}.")
        [question] = body["questions"].values()
        if self.max_options is not None and len(question["criteria"]) > self.max_options:
            return Reply(400, {"error": "too many options"}, 0.0)
        if self.max_bytes is not None and size > self.max_bytes:
            return Reply(413, {"error": "too large"}, 0.0)
        if self.fails_from is not None and pad >= self.fails_from:
            return Reply(500, {"error": "overloaded"}, 0.0)
        if question["instructions"] != "Which colour does the note at the end of the document name?":
            return Reply(200, {"answers": {"q": {"choice": next(iter(question["criteria"])), "confidence": 1.0}}}, 0.0)
        if pad < self.reads:
            return Reply(200, {"answers": {"q": {"choice": colour, "confidence": 1.0}}}, 0.0)
        first = 0.5 + (self.wobble if colour == "red" else 0.0)
        probabilities = {COLOURS[0]: first, COLOURS[1]: 1.0 - first}
        return Reply(200, {"answers": {"q": {"choice": COLOURS[0], "confidence": 0.5,
                                             "probabilities": probabilities}}}, 0.0)


@pytest.mark.parametrize("bound, tried", [(256, [2, 26, 27, 64, 65, 255, 256]), (255, [2, 26, 27, 64, 65, 255]),
                                          (100, [2, 26, 27, 64, 65, 100]), (2, [2])])
def test_options_accepted_up_to_the_bound_are_the_most_tried(bound, tried):
    client = Endpoint()
    found = option_limit(client, "m", bound=bound)
    assert [len(q["criteria"]) for body, _ in client.sent for q in body["questions"].values()] == tried
    assert found == {"requests": len(tried), "accepted": bound, "refused": None, "bound": bound, "status": "ok",
                     "detail": f"accepts {bound} options, the most tried"}


def test_the_option_limit_is_the_largest_count_answered_with_the_refusal():
    client = Endpoint(max_options=40)
    found = option_limit(client, "m")
    # 26 and 27 answered, 64 refused; then 45 (refused), 36, 40 (answered), 42, 41 (refused)
    assert found == {"requests": 9, "accepted": 40, "refused": 41, "bound": 256, "status": "ok",
                     "detail": "accepts up to 40 options; 41 refused (HTTP 400: too many options)"}
    first, _ = client.sent[0]
    assert first == {"model": "m", "state": canary_state("red"), "questions": {"q": {
        "type": "choice", "instructions": "Which option does the note name?",
        "criteria": {"o1": "option number 1", "o2": "option number 2"}}}}


def test_an_endpoint_taking_two_options_only_refuses_three():
    found = option_limit(Endpoint(max_options=2), "m")
    # 26 refused; then 14, 8, 5, 3 refused
    assert (found["accepted"], found["refused"], found["requests"]) == (2, 3, 6)


def test_an_endpoint_refusing_two_options_fails_at_once():
    assert option_limit(Endpoint(max_options=1), "m") == {
        "status": "failed", "requests": 1, "detail": "a two-option question failed: HTTP 400: too many options"}


def test_request_sizes_are_tried_to_the_byte_and_the_limit_found_to_a_fiftieth():
    client = Endpoint(max_bytes=77_267)
    found = request_size_limit(client, "m")
    # 16, 64 and 65 KiB answered, 256 KiB refused; halving 66560..262144 until the gap is at most 1/50 of the low end
    # (the last gap, 1528 bytes, is within 77256 // 50 = 1545)
    assert [size for _, size in client.sent] == [16384, 65536, 66560, 262144, 164352, 115456, 91008, 78784, 72672,
                                                 75728, 77256]
    assert found == {"requests": 11, "accepted_bytes": 77256, "refused_bytes": 78784, "bound": 4 * 2**20,
                     "status": "ok", "detail": "accepts requests up to about 77,256 bytes; 78,784 refused "
                                               "(HTTP 413: too large)"}


@pytest.mark.parametrize("max_bytes, bound, found", [(65536, 4 * 2**20, (65536, 66560, 3)),
                                                     (17_000, 17_409, (16896, 17409, 3))])
def test_a_request_size_limit_is_found_to_a_kibibyte_at_least(max_bytes, bound, found):
    """A gap of 1024 bytes is close enough; one of 1025 (16384..17409) is halved once more."""
    limit = request_size_limit(Endpoint(max_bytes=max_bytes), "m", bound=bound)
    assert (limit["accepted_bytes"], limit["refused_bytes"], limit["requests"]) == found


def test_requests_up_to_the_default_bound_are_tried_once_each():
    client = Endpoint()
    found = request_size_limit(client, "m")
    assert [size for _, size in client.sent] == [16384, 65536, 66560, 262144, 2**20, 4 * 2**20]
    assert (found["accepted_bytes"], found["refused_bytes"], found["requests"]) == (4 * 2**20, None, 6)


def test_requests_up_to_the_bound_are_the_largest_tried():
    client = Endpoint()
    found = request_size_limit(client, "m", bound=300_000)
    assert [size for _, size in client.sent] == [16384, 65536, 66560, 262144, 300_000]
    assert found == {"requests": 5, "accepted_bytes": 300_000, "refused_bytes": None, "bound": 300_000,
                     "status": "ok", "detail": "accepts requests of 300,000 bytes, the largest tried"}


def test_a_state_window_is_found_in_six_halvings_and_named_in_characters_and_tokens():
    client = Endpoint(reads=5000)
    found = state_window(client, "m")
    pads = [len(body["state"]["documents"][0]) - len("Note: the colour is red.") for body, _ in client.sent[::2]]
    # 1 and 4 KiB read, 16 KiB not; then 10240, 7168, 5632 (not), 4864 (read), 5248, 5056 (not): six halvings
    assert pads == [0, 1024, 4096, 16384, 10240, 7168, 5632, 4864, 5248, 5056]
    assert {body["model"] for body, _ in client.sent} == {"m"}
    assert found == {"requests": 20, "reads_canary_after_chars": 4864, "ignores_canary_after_chars": 5056,
                     "bound_chars": 256 * 2**10, "chars_per_token_estimate": 4, "status": "failed",
                     "detail": "the endpoint ignores the end of long inputs: a canary note after 5,056 characters "
                               "(about 1,264 tokens) of state does not change the answer; one after 4,864 "
                               "characters does"}


def test_without_candidates_the_window_is_halved_six_times_from_the_bound():
    found = state_window(Endpoint(reads=100), "m", sizes=())
    # 256 KiB not read; then 128, 64, 32, 16, 8 and 4 KiB not read either
    assert (found["reads_canary_after_chars"], found["ignores_canary_after_chars"], found["requests"]) == (0, 4096, 16)
    assert found["detail"].endswith("after 4,096 characters (about 1,024 tokens) of state does not change the "
                                    "answer; one after 0 characters does")


@pytest.mark.parametrize("sizes, reads, window", [
    ((1000, 1100), 1050, (1000, 1050)),   # a gap of 50 characters is close enough
    ((1000, 1065), 1065, (1032, 1065)),   # one of 65 is halved
    ((2000, 2100), 2100, (2000, 2100)),   # one of 100 after 2000 characters is within a twentieth
])
def test_the_window_is_found_to_64_characters_or_a_twentieth(sizes, reads, window):
    found = state_window(Endpoint(reads=reads), "m", bound=4096, sizes=sizes)
    assert (found["reads_canary_after_chars"], found["ignores_canary_after_chars"]) == window


def test_a_state_read_to_the_default_bound_tries_each_size_once():
    client = Endpoint()
    found = state_window(client, "m")
    assert (found["status"], found["reads_canary_after_chars"], found["requests"]) == ("ok", 256 * 2**10, 12)


def test_a_state_read_to_the_bound_is_ok():
    client = Endpoint()
    found = state_window(client, "m", bound=2000, sizes=(1024, 4096))
    assert found == {"requests": 6, "reads_canary_after_chars": 2000, "ignores_canary_after_chars": None,
                     "bound_chars": 2000, "chars_per_token_estimate": 4, "status": "ok",
                     "detail": "a canary note after 2,000 characters of state still changes the answer"}


def test_a_state_that_fails_is_inconclusive_and_says_why():
    found = state_window(Endpoint(fails_from=3000), "m", bound=4096, sizes=(1024,), steps=0)
    assert (found["status"], found["requests"], found["detail"]) == (
        "inconclusive", 5, "reads a canary after 1,024 characters; a state of 4,096 characters failed "
                           "(HTTP 500: overloaded)")


@pytest.mark.parametrize("client, requests, detail", [
    (Endpoint(reads=0), 2, "the answer does not follow the canary note even in a short state"),
    (Endpoint(fails_from=0), 1, "HTTP 500: overloaded"),
])
def test_no_reading_of_even_a_short_state_is_inconclusive(client, requests, detail):
    assert state_window(client, "m") == {"status": "inconclusive", "requests": requests, "detail": detail}


@pytest.mark.parametrize("wobble, noise, reads", [(2**-10, 0.0, True), (0.00005, 0.0, False), (2**-10, 2**-11, False),
                                                  (2**-10, 0.0004, True)])
def test_probabilities_that_move_more_than_twice_the_noise_count_as_reading(wobble, noise, reads):
    found = state_window(Endpoint(reads=0, wobble=wobble), "m", bound=2000, sizes=(), noise=noise)
    assert (found["status"] == "ok") is reads
