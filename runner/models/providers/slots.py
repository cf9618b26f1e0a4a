"""llama.cpp slot pinning: which server slot a scenario's requests should use.

A llama.cpp server keeps one prompt cache per slot. The executor runs all scenarios of
one document on one worker, holding a lane (:mod:`runner.execute.schedule`), so pinning
each lane to one slot (``id_slot`` in the request body) keeps that document's prefix in the
slot that needs it. Lane ``n`` uses slot ``n mod total_slots``, the slot count read once
from the server's ``GET /props`` (1 when the server does not say). ``id_slot`` is sent only to llama.cpp endpoints:
hosted APIs may refuse unknown fields.
"""

from __future__ import annotations

import httpx

from auditpacks.core.bounded import http as bounded_http

PROPS_TIMEOUT_S = 10.0


def server_root(base_url: str) -> str:
    """``http://host:port`` for an OpenAI base URL such as ``http://host:port/v1``."""
    return base_url.rstrip("/").removesuffix("/v1")


def server_slots(base_url: str, *, timeout: float = PROPS_TIMEOUT_S) -> int:
    """The llama.cpp server's slot count (``/props`` → ``total_slots``), else 1."""
    try:
        with bounded_http.client(base_url, timeout=timeout) as client:
            slots = client.get(server_root(base_url) + "/props").json().get("total_slots")
    except (httpx.HTTPError, OSError, ValueError, AttributeError):
        return 1
    return slots if isinstance(slots, int) and slots >= 1 else 1


def slot_for(lane: int | None, slots: int) -> int | None:
    """The slot a lane pins (None outside the executor)."""
    return None if lane is None else lane % max(1, slots)
