"""Where a judge's qualification is kept, and how a run finds the one for its judge and benchmark.

``auditpacks judge-check`` writes ``<folder>/<judge>.<benchmark>.qualification.json``
(default folder ``results/judges``); ``<judge>`` is the model name made file-safe plus a
short hash of the judge's identity (model, provider and base URL), so two servers of one
model never share a file. A run with a model judge looks the file up by the same identity
and says whether its judge is qualified, not qualified, or unchecked.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Mapping

from auditpacks.core.io import atomic_write_json, read_json

DEFAULT_FOLDER = Path("results") / "judges"
SUFFIX = ".qualification.json"
QUALIFICATION_VERSION = 1
IDENTITY_KEYS = ("model", "provider", "base_url")


def identity(judge: Mapping[str, Any]) -> dict[str, Any]:
    """What names a judge (from its client's record): model, provider, base URL (never a key)."""
    return {key: judge.get(key) for key in IDENTITY_KEYS}


def file_name(judge: Mapping[str, Any], benchmark: str) -> str:
    who = identity(judge)
    digest = hashlib.sha256(json.dumps(who, sort_keys=True).encode()).hexdigest()[:8]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", str(who["model"])).strip("_") or "judge"
    return f"{slug}-{digest}.{benchmark}{SUFFIX}"


def save(folder: Path, judge: Mapping[str, Any], benchmark: str, data: Mapping[str, Any]) -> Path:
    path = Path(folder) / file_name(judge, benchmark)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(path, {"qualification_version": QUALIFICATION_VERSION, "judge": identity(judge),
                             "benchmark": benchmark, **data})
    return path


def find(folder: Path, judge: Mapping[str, Any], benchmark: str) -> dict[str, Any] | None:
    """The qualification of this judge (same identity) on this benchmark, or None when it was never checked."""
    path = Path(folder) / file_name(judge, benchmark)
    if not path.is_file():
        return None
    data = read_json(path, "judge qualification")
    if not isinstance(data, dict) or data.get("judge") != identity(judge) or data.get("benchmark") != benchmark:
        return None
    return {**data, "file": path.name}


def status_line(benchmark: str | None, judge: Mapping[str, Any], found: Mapping[str, Any] | None) -> str:
    """One line for the summary: qualified, not qualified (with the first reason), or unchecked."""
    who = f"judge {judge.get('model')}"
    if benchmark is None:
        return f"{who}: unchecked (the pack names no benchmark with calibration items)"
    if found is None:
        return f"{who}: unchecked on {benchmark} (run `auditpacks judge-check` to qualify it)"
    if found.get("qualified"):
        unmeasured = found.get("not_measured") or []
        return f"{who}: qualified on {benchmark} ({found.get('file')}, {found.get('created', '')})" + (
            f"; not measured: {'; '.join(unmeasured)}" if unmeasured else "")
    reasons = found.get("reasons") or ["below the bar"]
    return f"{who}: NOT qualified on {benchmark}: {reasons[0]}" + (
        f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else "")
