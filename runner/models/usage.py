"""Token counts as providers report them, normalised to one shape (:class:`Usage`).

``input`` is every prompt token of the request, cache reads and writes included;
``cached_input`` and ``cache_write`` are the parts of it read from and written to the
provider's prompt cache. Providers disagree on the first: OpenAI
(``usage.prompt_tokens_details.cached_tokens``; Responses: ``input_tokens_details``) and
Gemini (``usage_metadata.cached_content_token_count``) count cached tokens inside the
prompt count, Anthropic's ``input_tokens`` is only the uncached part, with
``cache_read_input_tokens`` and ``cache_creation_input_tokens`` beside it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from auditpacks.core.numbers import token_count


@dataclass
class Usage:
    input: int = 0
    cached_input: int = 0
    cache_write: int = 0
    output: int = 0

    @property
    def uncached_input(self) -> int:
        return max(self.input - self.cached_input - self.cache_write, 0)

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(*(a + b for a, b in zip(asdict(self).values(), asdict(other).values())))

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


def _get(data: Any, *path: str) -> int:
    """A token count at ``path`` in a mapping or an SDK object (0 when absent or not a valid count)."""
    for name in path:
        if data is None:
            return 0
        data = data.get(name) if isinstance(data, Mapping) else getattr(data, name, None)
    return token_count(data) or 0


def from_openai(usage: Any) -> Usage:
    """Chat Completions (``prompt_tokens``) or Responses (``input_tokens``) usage; cached tokens are inside."""
    if _get(usage, "prompt_tokens") or not _get(usage, "input_tokens"):
        return Usage(input=_get(usage, "prompt_tokens"),
                     cached_input=_get(usage, "prompt_tokens_details", "cached_tokens"),
                     cache_write=_get(usage, "prompt_tokens_details", "cache_write_tokens")
                     or _get(usage, "cache_write_tokens"),
                     output=_get(usage, "completion_tokens"))
    return Usage(input=_get(usage, "input_tokens"), cached_input=_get(usage, "input_tokens_details", "cached_tokens"),
                 cache_write=_get(usage, "cache_write_tokens"), output=_get(usage, "output_tokens"))


def from_anthropic(usage: Any) -> Usage:
    """Messages API usage: ``input_tokens`` excludes cache reads and writes, so they are added back."""
    read, write = _get(usage, "cache_read_input_tokens"), _get(usage, "cache_creation_input_tokens")
    return Usage(input=_get(usage, "input_tokens") + read + write, cached_input=read, cache_write=write,
                 output=_get(usage, "output_tokens"))


def from_gemini(metadata: Any) -> Usage:
    """``usage_metadata``: the prompt count includes ``cached_content_token_count``."""
    return Usage(input=_get(metadata, "prompt_token_count"), cached_input=_get(metadata, "cached_content_token_count"),
                 output=_get(metadata, "candidates_token_count") + _get(metadata, "thoughts_token_count"))

