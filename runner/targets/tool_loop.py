"""A tool-calling loop over the OpenAI-compatible chat API (``tools`` / ``tool_calls``).

Works with any server that speaks it: llama.cpp's server (the embedded one runs with its Jinja chat
templates on, which tool calling needs), vLLM, Ollama's ``/v1``, hosted providers. Each model call
offers the condition's tools; each tool call is answered by the :class:`ToolBox` (arguments checked,
result guarded against the cutoff and capped). After ``max_steps`` model calls that still ask for
tools, one last call without tools asks for the final answer. Every step is kept for the trace.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

FINAL_NUDGE = ("The tool budget is spent. Reply now with only the final JSON object: citation_case_ids, "
               "citation_provision_keys and citation_resolution_symbols.")


@dataclass
class LoopResult:
    """The final reply, why the model stopped, and every step (model calls and tool calls)."""

    text: str
    finish_reason: str | None
    steps: list[dict[str, Any]] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    capped: bool = False


class ToolLoop:
    """One model on one OpenAI-compatible endpoint, driving a tool box until it answers."""

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None, max_steps: int = 8,
                 max_tokens: int | None = None, temperature: float = 0.0, timeout: float = 120.0) -> None:
        from openai import OpenAI

        self.client = OpenAI(base_url=base_url, api_key=api_key or "none", timeout=timeout, max_retries=2)
        self.model, self.max_steps, self.max_tokens, self.temperature = model, max_steps, max_tokens, temperature

    def _complete(self, messages: list[dict], tools: list[dict] | None):
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if tools:
            kwargs["tools"] = tools
        if self.max_tokens:
            kwargs["max_tokens"] = self.max_tokens
        return self.client.chat.completions.create(**kwargs)

    def run(self, messages: list[dict], toolbox) -> LoopResult:
        """Drive the conversation in ``messages`` (system and user) to a final reply."""
        messages = [dict(m) for m in messages]
        specs = toolbox.specs() if toolbox is not None else []
        out = LoopResult("", None)
        for call_number in range(self.max_steps + 1):
            last = call_number == self.max_steps
            if last and specs:
                messages.append({"role": "user", "content": FINAL_NUDGE})
                out.capped = True
            response = self._complete(messages, None if last else specs)
            choice = response.choices[0]
            usage = response.usage
            tokens = {"input": getattr(usage, "prompt_tokens", 0) or 0,
                      "output": getattr(usage, "completion_tokens", 0) or 0}
            out.input_tokens += tokens["input"]
            out.output_tokens += tokens["output"]
            calls = list(choice.message.tool_calls or []) if not last else []
            out.steps.append({"kind": "model", "call": call_number + 1, "tokens": tokens,
                              "finish_reason": choice.finish_reason, "tool_calls": len(calls),
                              "text": choice.message.content or ""})
            if not calls:
                out.text, out.finish_reason = choice.message.content or "", choice.finish_reason
                return out
            messages.append({"role": "assistant", "content": choice.message.content or "",
                             "tool_calls": [{"id": c.id, "type": "function", "function": {
                                 "name": c.function.name, "arguments": c.function.arguments or ""}} for c in calls]})
            for call in calls:
                result = toolbox.call(call.function.name, call.function.arguments or "")
                out.steps.append({"kind": "tool", "call": call_number + 1, "tool": result.name,
                                  "arguments": _jsonable(result.arguments), "result": result.content,
                                  "ok": result.ok, "error": result.error, "leak": result.leak,
                                  "source_dates": result.source_dates, "truncated": result.truncated})
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result.content})
        return out


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)
