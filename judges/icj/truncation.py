"""Replies cut off by the output-token limit: how to tell, and what of the answer survives.

A reply is truncated when the endpoint says so (``finish_reason`` "length") or when its
text ends inside the JSON answer (an object or list still open, or a string unclosed).
:func:`salvage` closes such a fragment after its last complete value, so the citations
written before the cut are kept; the answer is still marked truncated, never valid.
"""

from __future__ import annotations

import json
from typing import Any

LENGTH_REASONS = ("length", "max_tokens")
_CLOSER = {"{": "}", "[": "]"}


def _scan(fragment: str) -> tuple[list[str], bool, int, list[str]]:
    """(open brackets at the end, ends inside a string, end of the last complete value, brackets open there)."""
    stack: list[str] = []
    in_string = escaped = False
    safe, safe_stack = 0, []
    for i, ch in enumerate(fragment):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
                if stack and stack[-1] == "[":
                    safe, safe_stack = i + 1, list(stack)
            continue
        if ch == '"':
            in_string = True
        elif ch in _CLOSER:
            stack.append(ch)
        elif ch in "]}" and stack:
            stack.pop()
            safe, safe_stack = i + 1, list(stack)
            if not stack:
                break
    return stack, in_string, safe, safe_stack


def ends_inside_json(text: str) -> bool:
    """Whether ``text`` stops inside its first JSON object (the tell-tale of a cut-off reply)."""
    start = text.find("{")
    if start < 0:
        return False
    stack, in_string, _, _ = _scan(text[start:])
    return bool(stack) or in_string


def salvage(text: str) -> dict[str, Any] | None:
    """The answer object of a cut-off reply, closed after its last complete value; None if nothing parses."""
    start = text.find("{")
    if start < 0:
        return None
    fragment = text[start:]
    _, _, safe, safe_stack = _scan(fragment)
    if not safe_stack or not safe:
        return None
    candidate = fragment[:safe] + "".join(_CLOSER[c] for c in reversed(safe_stack))
    try:
        value = json.loads(candidate)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def is_truncated(text: str, finish_reason: Any = None) -> bool:
    return finish_reason in LENGTH_REASONS or ends_inside_json(text)
