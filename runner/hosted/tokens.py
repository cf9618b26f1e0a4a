"""Prompt tokens counted offline: the model's tokenizer where one is installed, else a stated estimate.

``tiktoken`` (when installed with its encodings already on disk) counts OpenAI models exactly;
it never downloads here: a failure to load falls back to the estimate. The estimate is the
text's UTF-8 bytes divided by four (about four characters of English, or one to two CJK
characters, per token), plus :data:`MESSAGE_TOKENS` per chat message for the template.
:class:`Counter`'s ``label`` says which of the two was used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

MESSAGE_TOKENS = 4           # the chat template's tokens around one message
BYTES_PER_TOKEN = 4.0
ESTIMATE = "estimate (UTF-8 bytes / 4; no tokenizer for this model offline)"


def estimate(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN)


def _tiktoken(model: str) -> Callable[[str], int] | None:
    try:
        import tiktoken
    except ImportError:
        return None
    try:
        try:
            encoding = tiktoken.encoding_for_model(model.rsplit("/", 1)[-1])
        except KeyError:
            return None
        return lambda text: len(encoding.encode(text, disallowed_special=()))
    except Exception:  # encodings not on disk and no network: fall back to the estimate
        return None


@dataclass
class Counter:
    """Counts the tokens of a text and of a chat message list for one model."""

    count: Callable[[str], int]
    label: str

    def messages(self, messages: list[dict[str, Any]]) -> int:
        return sum(MESSAGE_TOKENS + self.count(message_text(m)) for m in messages)


def message_text(message: dict[str, Any]) -> str:
    """The text of one chat message (text parts joined; images are not counted)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def counter(model: str) -> Counter:
    exact = _tiktoken(model)
    if exact is not None:
        return Counter(exact, f"tokenizer (tiktoken, {model})")
    return Counter(estimate, ESTIMATE)
