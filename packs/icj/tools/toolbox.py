"""Calling a condition's tools on one snapshot: arguments checked, every result guarded and capped.

``ToolBox(snapshot, tools).call(name, arguments)`` never raises for the model's input: a bad name,
arguments that do not fit the tool's JSON schema (checked by :mod:`~auditpacks.packs.icj.tools.schemas`:
nothing fetched, patterns under a time limit), a refused query or a leak all become an error
result. A leak's content is never returned: the model reads only that the result was withheld,
and the trace keeps what the guard found.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from auditpacks.core.errors import FormatError, UserError
from auditpacks.core.io import parse_json
from auditpacks.packs.icj.tools import schemas
from auditpacks.packs.icj.tools.catalogue import Tool
from auditpacks.packs.icj.tools.guard import LeakError

RESULT_CHARS = 8000
WITHHELD = "result withheld: it held material from on or after the cutoff date"


@dataclass
class ToolResult:
    """What one call gave the model (``content``) and what the trace keeps about it."""

    name: str
    arguments: Any
    content: str
    ok: bool
    error: str | None = None
    leak: bool = False
    source_dates: list[str] = field(default_factory=list)
    truncated: bool = False

    def record(self) -> dict[str, Any]:
        return asdict(self)


def _arguments(arguments: Any) -> tuple[dict | None, str | None]:
    if isinstance(arguments, str):
        try:
            arguments = parse_json(arguments, "arguments") if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return None, f"arguments are not valid JSON ({exc.msg})"
        except (FormatError, UnicodeDecodeError) as exc:   # nested too deeply, a number too long, a lone surrogate
            return None, str(exc)
    if not isinstance(arguments, dict):
        return None, "arguments must be a JSON object"
    return arguments, None


class ToolBox:
    """One condition's tools bound to one snapshot."""

    def __init__(self, snapshot, tools: list[Tool], semantic=None) -> None:
        self.snapshot, self.semantic = snapshot, semantic
        self.tools = {tool.name: tool for tool in tools}
        self._functions: dict[str, Any] = {}

    @property
    def cutoff(self) -> str:
        return self.snapshot.cutoff

    @property
    def snapshot_id(self) -> str:
        """The snapshot's folder name: its cutoff and the graph copy's source hash."""
        return self.snapshot.folder.name

    def specs(self) -> list[dict]:
        """The tools in the OpenAI ``tools`` format."""
        return [tool.openai() for tool in self.tools.values()]

    def _error(self, name: str, arguments: Any, message: str, leak: bool = False) -> ToolResult:
        shown = WITHHELD if leak else message  # a leak's details stay in the trace, never in what the model reads
        return ToolResult(name, arguments, json.dumps({"error": shown}), False, message, leak)

    def raw(self, name: str, arguments: dict) -> Any:
        """The tool's result before the guard (for the leak audit)."""
        if name not in self._functions:
            self._functions[name] = self.tools[name].function(self.snapshot, self.semantic)
        return self._functions[name](**arguments)

    def call(self, name: Any, arguments: Any) -> ToolResult:
        if name not in self.tools:
            return self._error(str(name), arguments, f"no tool {name!r}; tools: {', '.join(self.tools)}")
        args, problem = _arguments(arguments)
        if problem is None:
            problem = schemas.problem(args, self.tools[name].parameters)
        if problem:
            return self._error(name, arguments, problem)
        try:
            result = self.snapshot.guard.check(self.raw(name, args))
        except LeakError as exc:
            return self._error(name, args, str(exc), leak=True)
        except (UserError, ValueError, TypeError) as exc:
            return self._error(name, args, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        text = json.dumps(result, ensure_ascii=False, default=str)
        truncated = len(text) > RESULT_CHARS
        if truncated:
            text = text[:RESULT_CHARS] + " …[result cut at the size cap]"
        ok = not (isinstance(result, dict) and "error" in result)
        return ToolResult(name, args, text, ok, result.get("error") if not ok else None, False,
                          list(result.get("source_dates", [])) if isinstance(result, dict) else [], truncated)
