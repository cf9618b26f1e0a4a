"""A tool-calling loop over the OpenAI-compatible chat API (``tools`` / ``tool_calls``).

Works with any server that speaks it: llama.cpp's server (the embedded one runs with its Jinja chat
templates on, which tool calling needs), vLLM, Ollama's ``/v1``, hosted providers. Each model call
offers the condition's tools and goes through the one model-call path
(:class:`~auditpacks.runner.models.model.Model`: response cache, retries, redaction, token counts), so
a repeated or resumed run replays every step it has seen from the cache without a request. Each tool
call is answered by the tool box (arguments checked, result guarded against the cutoff and capped).
After ``max_steps`` model calls that still ask for tools, one last call without tools asks for the
final answer (``final_nudge``). Every step is kept for the trace.

Budgets: at most ``max_calls`` tool calls of one reply are run (the rest are dropped, and the trace
says how many were asked); arguments are kept at most
:data:`~runner.models.providers.openai_compat.MAX_TOOL_ARGUMENT_CHARS` long (a longer call is not run, its
error result says so, the trace keeps its true length); a call the tool box cannot take (no
``function``, arguments nested too deep or holding a huge number) gets an error result the model
reads, never an error of the scenario.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.model import Model
from auditpacks.runner.models.reply import Request
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.models.providers.openai_compat import OpenAIChatAPI

FINAL_NUDGE = "The tool budget is spent. Reply now with only your final answer."
MAX_CALLS = 8   # tool calls run per reply


@dataclass
class LoopResult:
    """The final reply, why the model stopped, and every step (model calls and tool calls)."""

    text: str
    finish_reason: str | None
    steps: list[dict[str, Any]] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    capped: bool = False


def endpoint_model(base_url: str, model: str, *, api_key: str | None = None, cache: Path | None = None,
                   retries: int = 2, timeout: float = 120.0) -> Model:
    """A :class:`Model` for one OpenAI-compatible endpoint, with the response cache in ``cache`` (if given)."""
    # no key: "-", too short to be taken for a secret and blanked out of error text
    api = OpenAIChatAPI(model=model, base_url=base_url, api_key=api_key or "-", timeout=timeout)
    return Model(api, policy=RetryPolicy(max_retries=retries, timeout=timeout),
                 cache=ResponseCache(cache) if cache is not None else None)


class ToolLoop:
    """One :class:`Model` driving a tool box until it answers; ``close()`` when done."""

    def __init__(self, model: Model, *, max_steps: int = 8, max_tokens: int | None = None,
                 temperature: float = 0.0, final_nudge: str = FINAL_NUDGE, max_calls: int = MAX_CALLS) -> None:
        self.model, self.max_steps, self.final_nudge, self.max_calls = model, max_steps, final_nudge, max_calls
        self.params: dict[str, Any] = {"temperature": temperature, **({"max_tokens": max_tokens} if max_tokens else {})}
        self._loop = asyncio.new_event_loop()

    def _complete(self, messages: list[dict], tools: list[dict] | None):
        params = {**self.params, "tools": tools} if tools else self.params
        return self._loop.run_until_complete(self.model.generate(Request([dict(m) for m in messages], params)))

    def run(self, messages: list[dict], toolbox) -> LoopResult:
        """Drive the conversation in ``messages`` (system and user) to a final reply."""
        messages = [dict(m) for m in messages]
        specs = toolbox.specs() if toolbox is not None else []
        out = LoopResult("", None)
        for call_number in range(self.max_steps + 1):
            last = call_number == self.max_steps
            if last and specs:
                messages.append({"role": "user", "content": self.final_nudge})
                out.capped = True
            reply = self._complete(messages, None if last else specs)
            tokens = {"input": reply.input_tokens or 0, "output": reply.output_tokens or 0}
            out.input_tokens += tokens["input"]
            out.output_tokens += tokens["output"]
            asked = list(reply.tool_calls or []) if not last and specs else []
            calls = asked[:self.max_calls]
            step = {"kind": "model", "call": call_number + 1, "tokens": tokens, "cached": reply.cached,
                    "finish_reason": reply.finish_reason, "tool_calls": len(asked), "text": reply.content}
            out.steps.append({**step, "tool_calls_run": len(calls)} if len(asked) > len(calls) else step)
            if not calls:
                out.text, out.finish_reason = reply.content, reply.finish_reason
                return out
            messages.append({"role": "assistant", "content": reply.content, "tool_calls": [
                {"id": c["id"], "type": "function", "function": {
                    "name": c["name"] or "", "arguments": "{}" if "arguments_chars" in c else c["arguments"]}}
                for c in calls]})
            for call in calls:
                step, content = _tool_step(toolbox, call)
                out.steps.append({"kind": "tool", "call": call_number + 1, **step})
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
        return out

    def close(self) -> None:
        self._loop.run_until_complete(self.model.aclose())
        self._loop.close()


def _tool_step(toolbox: Any, call: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """What the trace keeps of one tool call, and what the model reads (an error result when it cannot run)."""
    size = call.get("arguments_chars")
    if size is not None:
        error = f"arguments are {size} characters, over the {len(call['arguments'])}-character cap; not run"
    else:
        try:
            result = toolbox.call(call["name"], call["arguments"])
        except (ValueError, TypeError, LookupError, AttributeError, RecursionError) as exc:  # the model's bad call:
            # its error result, not the scenario's (a failing tool server, OSError, still ends the scenario)
            detail = (str(exc).splitlines() or [""])[0][:200]
            error = f"the call could not be run ({type(exc).__name__}{': ' + detail if detail else ''})"
        else:
            return {"tool": result.name, "arguments": _jsonable(result.arguments), "result": result.content,
                    "ok": result.ok, "error": result.error, "leak": result.leak,
                    "source_dates": result.source_dates, "truncated": result.truncated}, result.content
    content = json.dumps({"error": error})
    step = {"tool": str(call["name"]), "arguments": call["arguments"], "result": content, "ok": False, "error": error,
            "leak": False, "source_dates": [], "truncated": False}
    return ({**step, "arguments_chars": size} if size is not None else step), content


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)
