"""What goes into one model call and what comes back: :class:`Request` and :class:`Reply`.

A reply carries every fact the endpoint gave about it (finish reason, token counts,
reasoning kept apart from the answer), so whoever holds the reply (the target, the
stored transcript, a grader) reads them there. The cache stores :meth:`Reply.record`,
the same five fields it always held.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from auditpacks.core.numbers import token_count

#: The fields a reply is cached and stored with.
FIELDS = ("content", "reasoning", "input_tokens", "output_tokens", "finish_reason")


@dataclass(frozen=True)
class Request:
    """One chat request: messages, decoding parameters, structured output and how it is sent.

    ``lane`` (the slot lane of the scenario's document group, for llama.cpp slot pinning) and
    ``headers`` never enter the cache key; ``prompt_order`` (a non-stock message layout of a target
    turn) and ``repeat`` (the round, minus one) do."""

    messages: list[dict[str, Any]]
    params: Mapping[str, Any] = field(default_factory=dict)
    response_format: Mapping[str, Any] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    lane: int | None = None
    prompt_order: str | None = None
    repeat: int = 0


@dataclass
class Reply:
    """One model reply and what the endpoint said about it."""

    content: str
    reasoning: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None
    cached: bool = False   # answered from the response cache

    def __post_init__(self) -> None:
        """Token counts checked where every reply is made: an invalid count (NaN, negative, huge) is unknown."""
        self.input_tokens, self.output_tokens = token_count(self.input_tokens), token_count(self.output_tokens)

    @property
    def truncated(self) -> bool:
        """The endpoint stopped the reply at the output-token limit."""
        return self.finish_reason == "length"

    def record(self) -> dict[str, Any]:
        """The reply as the cache stores it."""
        return {name: getattr(self, name) for name in FIELDS}

    @classmethod
    def from_record(cls, data: Mapping[str, Any], *, cached: bool = False) -> "Reply":
        return cls(**{name: data.get(name) for name in FIELDS if name != "content"},
                   content=data.get("content") or "", cached=cached)

    def facts(self) -> dict[str, Any]:
        """What a grader may read besides the text: the finish reason (when known) and the reasoning."""
        return {k: v for k, v in (("finish_reason", self.finish_reason), ("reasoning", self.reasoning)) if v}
