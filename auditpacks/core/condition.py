"""A tool condition: what a run under tools recorded (:class:`Condition`) and what a plugin hands the runner
(:class:`ToolSetup`).

A benchmark with tool conditions names, in its registry entry (``tools``), a module that turns the
command's arguments into a :class:`ToolSetup` for one condition: the tools per scenario (cut at the
scenario's cutoff), the grader, the instructions and the facts the run record keeps. The runner
knows nothing else of the benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from auditpacks.core.errors import FormatError


@dataclass
class Condition:
    """The condition a run ran under, as the run record keeps it.

    ``tools``: the name the model saw → the tool that answered it; ``search``: what passage search is
    (e.g. lexical or vector); ``cutoff_policy``: what a tool may return for a target; ``snapshots``:
    cutoff → identifier of the read-only snapshot the tools read."""

    name: str
    tools: dict[str, str] = field(default_factory=dict)
    search: str | None = None
    cutoff_policy: str | None = None
    snapshots: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any, where: str) -> "Condition":
        if not isinstance(data, Mapping) or not isinstance(data.get("name"), str) or not data["name"]:
            raise FormatError(f"{where}: field condition is not an object with a name")
        for key in ("tools", "snapshots"):
            value = data.get(key, {})
            if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
                raise FormatError(f"{where}: field condition.{key} is not an object of strings")
        for key in ("search", "cutoff_policy"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise FormatError(f"{where}: field condition.{key} is not a string")
        return cls(name=data["name"], tools=dict(data.get("tools", {})), search=data.get("search"),
                   cutoff_policy=data.get("cutoff_policy"), snapshots=dict(data.get("snapshots", {})))


@dataclass
class ToolSetup:
    """One condition, ready to run: ``toolbox_for(scenario)`` gives the scenario's tool box (``specs()``,
    ``call(name, arguments)``, ``snapshot_id``) or None for no tools; ``grade(scenario, reply)`` the verdict
    of the final reply; ``judge`` the grader's registry name; ``system`` the instructions sent first and
    ``final_nudge`` the request for the final answer once the tool budget is spent; ``info`` facts for
    the run's ``<stem>.tools.jsonl`` (no keys)."""

    condition: Condition
    toolbox_for: Callable[[Mapping[str, Any]], Any]
    grade: Callable[[Mapping[str, Any], Mapping[str, Any]], Mapping[str, Any]]
    judge: str
    system: str | None = None
    final_nudge: str = "The tool budget is spent. Reply now with only your final answer."
    info: dict[str, Any] = field(default_factory=dict)
