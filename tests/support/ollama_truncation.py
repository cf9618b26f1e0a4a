"""Ollama's silent truncation, emulated: the front of a prompt longer than ``num_ctx`` is dropped.

Ollama does not refuse a prompt longer than the request's ``num_ctx`` (2,048 when not
given): it keeps the system messages, drops tokens from the front of the rest until the
prompt fits, answers as usual and reports the shortened prompt's size as
``prompt_eval_count``. Here tokens are counted by a ``count(text)`` function (the
upstream's ``/tokenize``) and text is cut at word boundaries.
"""

from __future__ import annotations

from typing import Callable

DEFAULT_NUM_CTX = 2048


def truncate_front(messages: list[dict], window: int, count: Callable[[str], int]) -> list[dict]:
    """``messages`` with leading words of non-system messages dropped until all of them fit ``window``."""
    out = [dict(m) for m in messages]
    sizes = [count(str(m.get("content") or "")) for m in out]
    excess = sum(sizes) - window
    for message, size in zip(out, sizes):
        if excess <= 0:
            break
        if message.get("role") == "system":
            continue
        words = str(message.get("content") or "").split(" ")
        keep = max(0, int(len(words) * (size - excess) / size)) if size > excess else 0
        while keep and count(" ".join(words[-keep:])) > size - excess:
            keep -= max(1, keep // 100)
        message["content"] = " ".join(words[-keep:]) if keep else ""
        excess -= size - count(message["content"])
    return out
