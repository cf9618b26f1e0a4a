"""Reasoning blocks in replies: ``<think>``/``<thinking>`` split from the answer, in one place.

The answer is what simpleaudit 0.4.2 stores (``ModelAuditor.strip_thinking``): complete blocks
removed, everything up to an orphan closing tag dropped (a chat template that pre-filled the
opening tag), everything from an unclosed opening tag dropped. The reasoning is what was removed.
"""

from __future__ import annotations

import re

_BLOCK = re.compile(r"(?is)<\s*(think|thinking)\s*>(.*?)<\s*/\s*(?:think|thinking)\s*>")
_OPEN = re.compile(r"(?is)<\s*(think|thinking)\s*>")
_CLOSE = re.compile(r"(?is)<\s*/\s*(think|thinking)\s*>")


def split_reasoning(text: str) -> tuple[str, str | None]:
    """``(answer, reasoning)``; reasoning is None when the reply had none."""
    pieces = [m.group(2).strip() for m in _BLOCK.finditer(text)]
    rest = _BLOCK.sub("", text)
    close = _CLOSE.search(rest)
    if close and not _OPEN.search(rest[: close.start()]):
        pieces.append(rest[: close.start()].strip())
        rest = rest[close.end():]
    dangling = _OPEN.search(rest)
    if dangling:
        pieces.append(rest[dangling.end():].strip())
        rest = rest[: dangling.start()]
    return rest.strip(), "\n\n".join(p for p in pieces if p) or None


def strip_reasoning(text: str) -> str:
    """The answer alone (see :func:`split_reasoning`)."""
    return split_reasoning(text)[0]
