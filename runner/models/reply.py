"""What goes into one model call and what comes back: :class:`Request` and :class:`Reply`.

A reply carries every fact the endpoint gave about it (finish reason, token counts,
reasoning kept apart from the answer, a decision model's answer, the tool calls it asked
for), so whoever holds the reply (the target, the stored transcript, a grader) reads them
there. The cache stores :meth:`Reply.record`: the same five fields it always held, and
what else a reply carries when it carries it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from auditpacks.core.numbers import token_count

#: The fields a reply is cached and stored with.
FIELDS = ("content", "reasoning", "input_tokens", "output_tokens", "finish_reason", "cached_input_tokens",
          "cache_write_tokens")


@dataclass(frozen=True)
class Request:
    """One chat request: messages, decoding parameters, structured output and how it is sent.

    ``lane`` (the slot lane of the scenario's document group, for llama.cpp slot pinning), ``route``
    (the key several endpoints place the request by: its document) and ``headers`` never enter the
    cache key; ``prompt_order`` (a non-stock message layout of a target turn) and ``repeat`` (the
    round, minus one) do. ``decision`` is the question a System One request asks (the scenario's public
    decision block), which its provider builds the request from; ``body`` is a wire body built already (a
    System One batch), sent as it is. ``timeout`` (not in the cache key) replaces the retry policy's time
    limit per attempt (a batch may take as long as its questions' single requests together)."""

    messages: list[dict[str, Any]]
    params: Mapping[str, Any] = field(default_factory=dict)
    response_format: Mapping[str, Any] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    lane: int | None = None
    group: str | None = None   # the scenario's document key (a provider's prompt-cache key; not in the cache key)
    route: str | None = None   # the document an endpoint pool places the request by
    prompt_order: str | None = None
    repeat: int = 0
    decision: Mapping[str, Any] | None = None
    body: Mapping[str, Any] | None = None
    timeout: float | None = None


@dataclass
class Reply:
    """One model reply and what the endpoint said about it."""

    content: str
    reasoning: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None
    decision: dict[str, Any] | None = None   # a decision model's answer: choice, confidence, probabilities
    cached: bool = False   # answered from the response cache
    cached_input_tokens: int | None = None   # prompt tokens the provider read from its prompt cache (inside input)
    cache_write_tokens: int | None = None    # prompt tokens the provider wrote to its prompt cache (inside input)
    tool_calls: list[dict[str, Any]] | None = None   # [{"id", "name", "arguments"}] when the model asked for tools
    batch: dict[str, Any] | None = None   # a System One batch reply as the endpoint sent it (model, answers, usage)
    served_model: str | None = None   # the model name the server says answered (its own spelling)

    def __post_init__(self) -> None:
        """Token counts checked where every reply is made: an invalid count (NaN, negative, huge) is unknown."""
        self.input_tokens, self.output_tokens = token_count(self.input_tokens), token_count(self.output_tokens)
        self.served_model = self.served_model[:200] if isinstance(self.served_model, str) else None

    @property
    def truncated(self) -> bool:
        """The endpoint stopped the reply at the output-token limit."""
        return self.finish_reason == "length"

    def record(self) -> dict[str, Any]:
        """The reply as the cache stores it (prompt-cache counts, a decision answer, tool calls only when set)."""
        record = {name: getattr(self, name) for name in FIELDS if name in FIELDS[:5] or getattr(self, name)}
        extra = {"decision": self.decision, "tool_calls": self.tool_calls or None, "batch": self.batch,
                 "served_model": self.served_model}
        return {**record, **{k: v for k, v in extra.items() if v is not None}}

    @classmethod
    def from_record(cls, data: Mapping[str, Any], *, cached: bool = False) -> "Reply":
        return cls(**{name: data.get(name) for name in FIELDS if name != "content"},
                   content=data.get("content") or "", decision=data.get("decision"), cached=cached,
                   tool_calls=data.get("tool_calls") or None, batch=data.get("batch"),
                   served_model=data.get("served_model"))

    def facts(self) -> dict[str, Any]:
        """What a grader may read besides the text: the finish reason (when known) and the reasoning."""
        return {k: v for k, v in (("finish_reason", self.finish_reason), ("reasoning", self.reasoning)) if v}
