"""The limit probes of a System One endpoint: options per question, request size, and the state window.

Each search first tries a few candidate sizes (the usual limits: 26 and 255 options, 64 KiB
bodies), then halves the gap between the largest size that worked and the smallest that did
not, for a bounded number of steps. The state window places a canary note at the end of a
growing state and asks twice, once with each of two colours: an endpoint that reads the end
gives two different answers (another choice, or probabilities that move by more than the
noise measured by the determinism probe); past the point where it stops reading, the two
answers are the same.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Sequence

from auditpacks.runner.systemone.probe_checks import (
    TOLERANCE,
    ask,
    body,
    canary_state,
    colour_question,
    differs,
)
from auditpacks.runner.systemone.protocol import SystemOneError
from auditpacks.runner.systemone.probe_client import ProbeClient

OPTION_CANDIDATES = (26, 27, 64, 65, 255, 256)
BYTE_CANDIDATES = (16 * 2**10, 64 * 2**10, 65 * 2**10, 256 * 2**10, 2**20, 4 * 2**20)
WINDOW_CANDIDATES = (2**10, 4 * 2**10, 16 * 2**10, 64 * 2**10, 256 * 2**10)
CHARS_PER_TOKEN = 4  # English filler, roughly; the window is measured in characters
STEPS = 8


def search(accepts: Callable[[int], bool], start: int, candidates: Sequence[int], *, steps: int = STEPS,
           resolution: Callable[[int], int] = lambda _: 1) -> tuple[int, int | None]:
    """(largest size accepted, smallest refused or None): ``start`` is known to be accepted; the candidates
    are tried in order up to the first refusal, then the gap is halved at most ``steps`` times."""
    low, high = start, None
    for size in sorted(c for c in candidates if c > start):
        if accepts(size):
            low = size
        else:
            high = size
            break
    for _ in range(steps):
        if high is None or high - low <= resolution(low):
            break
        middle = (low + high) // 2
        low, high = (middle, high) if accepts(middle) else (low, middle)
    return low, high


def option_limit(client: ProbeClient, model: str, bound: int = 256) -> dict[str, Any]:
    """The most options per choice question the endpoint answers (up to ``bound``)."""
    refusals: dict[int, str] = {}

    def accepts(count: int) -> bool:
        question = {"type": "choice", "instructions": "Which option does the note name?",
                    "criteria": {f"o{i}": f"option number {i}" for i in range(1, count + 1)}}
        try:
            ask(client, model, canary_state("red"), question)
            return True
        except SystemOneError as exc:
            refusals[count] = str(exc)
            return False

    start = client.requests
    if not accepts(2):
        return {"status": "failed", "requests": 1, "detail": f"a two-option question failed: {refusals[2]}"}
    low, high = search(accepts, 2, [c for c in OPTION_CANDIDATES if c < bound] + [bound])
    finding = {"requests": client.requests - start, "accepted": low, "refused": high, "bound": bound}
    if high is None:
        return {**finding, "status": "ok", "detail": f"accepts {low} options, the most tried"}
    return {**finding, "status": "ok", "detail": f"accepts up to {low} options; {high} refused ({refusals[high]})"}


def request_size_limit(client: ProbeClient, model: str, bound: int = 4 * 2**20) -> dict[str, Any]:
    """The largest request body (bytes) the endpoint answers, up to ``bound``; the state grows, one question."""
    refusals: dict[int, str] = {}
    overhead = len(json.dumps(body(model, canary_state("red"), {"q": colour_question()}), ensure_ascii=False,
                              separators=(",", ":")).encode("utf-8"))

    def accepts(size: int) -> bool:
        try:
            ask(client, model, canary_state("red", max(0, size - overhead)), colour_question())
            return True
        except SystemOneError as exc:
            refusals[size] = str(exc)
            return False

    start = client.requests
    low, high = search(accepts, overhead, [c for c in BYTE_CANDIDATES if c < bound] + [bound],
                       resolution=lambda size: max(1024, size // 50))
    finding = {"requests": client.requests - start, "accepted_bytes": low, "refused_bytes": high, "bound": bound}
    if high is None:
        return {**finding, "status": "ok", "detail": f"accepts requests of {low:,} bytes, the largest tried"}
    return {**finding, "status": "ok",
            "detail": f"accepts requests up to about {low:,} bytes; {high:,} refused ({refusals[high]})"}


def state_window(client: ProbeClient, model: str, *, bound: int = 256 * 2**10, sizes: Sequence[int] = WINDOW_CANDIDATES,
                 noise: float = 0.0, steps: int = 6) -> dict[str, Any]:
    """Whether a canary note after N characters of state still changes the answer, up to ``bound`` characters."""
    tolerance = max(TOLERANCE, 2 * noise)
    errors: dict[int, str] = {}

    def reads(pad: int) -> bool:
        try:
            red = ask(client, model, canary_state("red", pad), colour_question())
            blue = ask(client, model, canary_state("blue", pad), colour_question())
        except SystemOneError as exc:
            errors[pad] = str(exc)
            return False
        return differs(red, blue, tolerance)

    start = client.requests
    if not reads(0):
        why = errors.get(0) or "the answer does not follow the canary note even in a short state"
        return {"status": "inconclusive", "requests": client.requests - start, "detail": why}
    low, high = search(reads, 0, [s for s in sizes if s < bound] + [bound], steps=steps,
                       resolution=lambda size: max(64, size // 20))
    finding = {"requests": client.requests - start, "reads_canary_after_chars": low, "ignores_canary_after_chars": high,
               "bound_chars": bound, "chars_per_token_estimate": CHARS_PER_TOKEN}
    if high is None:
        return {**finding, "status": "ok", "detail": f"a canary note after {low:,} characters of state still "
                                                      "changes the answer"}
    if high in errors:
        return {**finding, "status": "inconclusive", "detail": f"reads a canary after {low:,} characters; a state "
                                                                f"of {high:,} characters failed ({errors[high]})"}
    return {**finding, "status": "failed",
            "detail": f"the endpoint ignores the end of long inputs: a canary note after {high:,} characters "
                      f"(about {high // CHARS_PER_TOKEN:,} tokens) of state does not change the answer; one after "
                      f"{low:,} characters does"}
