"""Names for runs shown together: the settings that differ between them, and a line saying which differ.

A run's settings are read from its record: every setting that makes its answers what they are
(model, pack, chat or decision, judge and judge model, temperature, seed, turns, rounds,
selection, prompt order, shard, provider, endpoint, model digest, system prompt, token limits,
auditor model, the model graders' decoding, grader options, panel). A label names the values of
the settings that differ among the runs shown (``smollm2 · checklist · temperature 0.7``), counted
within each pack's runs when several packs share a page (so a label names the pack and what differs
among that pack's runs, not every setting in which two benchmarks' runs differ). Runs
alike in all of them but not in their fingerprint differ in a setting not listed here: their
fingerprints name them; runs alike in everything are told apart by their run folder.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from auditpacks.core.runs.record import RunRecord
from auditpacks.runner.settings.config import RunConfig

#: A setting an older record leaves out had its default then, as now (the stored settings of a default run).
DEFAULTS = RunConfig(pack=Path()).public()

#: The embedded model's provider as a label names it (it is served by llama.cpp, not by an OpenAI account).
EMBEDDED = "embedded (llama.cpp)"

#: Settings whose value reads alone in a label; the others read "name value".
PLAIN = ("model", "pack", "mode", "judge", "judge model", "selection")


def _short(value: Any) -> str:
    """A long value (a system prompt, grader options) as its start and a hash, so that two differ visibly."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    if len(text) <= 24:
        return text
    return f"{text[:16]}… #{hashlib.sha256(text.encode('utf-8')).hexdigest()[:6]}"


def _text(value: Any) -> str:
    """A setting's value as label text: numbers as written (``0.7``), long texts and options shortened."""
    if isinstance(value, float):
        return f"{value:g}"
    return _short(value) if isinstance(value, (str, dict, list, tuple)) else str(value)


def _or(value: Any, default: str) -> str:
    """``default`` for a setting left empty, else its text."""
    return default if value in (None, "", {}, [], ()) else _text(value)


def _endpoint(record: RunRecord, replicas: Any) -> str:
    """The endpoint a run was served by, or the set of its replicas."""
    if replicas:
        return _short(sorted({str(record.base_url), *map(str, replicas)}))
    return record.base_url or ("embedded" if record.embedded else "none")


def settings(record: RunRecord) -> dict[str, str]:
    """The settings a label may name, as short text, in label order; ``fingerprint`` last."""
    p = {**DEFAULTS, **(record.parameters or {})}
    selection = ("smoke" if p["smoke"] else f"limit {p['limit']}" if p["limit"]
                 else f"{p['per_question']} per question" if p["per_question"] else "all")
    decision = p["decision"]
    return {"model": record.model, "pack": record.pack.name,
            "mode": ("decision" if decision is True else f"decision {decision}") if decision else "chat",
            "judge": record.judge, "judge model": record.judge_model or "no judge model",
            "temperature": _text(p["temperature"]), "seed": str(record.seed), "turns": _text(p["max_turns"]),
            "rounds": str(record.repeats), "selection": selection,
            "prompt order": _or(p["prompt_order"], "none (decision)"),
            "shard": (record.shard or {}).get("spec", "none"),
            "provider": EMBEDDED if record.embedded else str(p["provider"] or record.provider),
            "endpoint": _endpoint(record, p["more_base_urls"]), "model digest": _or(record.model_digest, "unknown"),
            "system prompt": _or(p["system_prompt"], "none"), "max tokens": _or(p["max_tokens"], "default"),
            "auditor model": _or(p["auditor_model"], "none"), "judge temperature": _text(p["judge_temperature"]),
            "judge max tokens": _text(p["judge_max_tokens"]), "auditor max tokens": _text(p["auditor_max_tokens"]),
            "grader options": _or(p.get("grader_options"), "none"), "panel": _or(p["panel_models"], "none"),
            "fingerprint": (record.fingerprint or "none")[:8]}


def differing(all_settings: list[dict[str, str]]) -> list[str]:
    """The settings whose values are not all the same, in label order; the fingerprint only when nothing else
    tells the runs apart."""
    keys = list(all_settings[0]) if all_settings else []
    found = [k for k in keys if len({s.get(k) for s in all_settings}) > 1]
    return [k for k in found if k != "fingerprint"] or found


def _part(key: str, value: str) -> str:
    return value if key in PLAIN else f"{key} {value}"


def labels(records: list[RunRecord], folders: list[str]) -> list[str]:
    """One distinct label per run: per pack's group of runs, the settings that differ within the group (model
    and pack when none differ), with the pack when several packs share the page; the run folder where two
    runs are otherwise alike."""
    all_settings = [settings(r) for r in records]
    groups: dict[Any, list[int]] = {}
    for i, record in enumerate(records):
        groups.setdefault(record.pack.sha256, []).append(i)
    out = [""] * len(records)
    for members in groups.values():
        keys = differing([all_settings[i] for i in members]) or ["model", "pack"]
        if len(groups) > 1 and "pack" not in keys:
            keys = [k for k in all_settings[0] if k in ("pack", *keys)]
        for i in members:
            out[i] = " · ".join(_part(k, all_settings[i][k]) for k in keys)
    repeated = {label for label in out if out.count(label) > 1}
    return [f"{label} · {folder}" if label in repeated else label for label, folder in zip(out, folders)]


def what_differs(records: list[RunRecord]) -> str:
    """One line: which settings differ between the runs and their values, or that none do."""
    all_settings = [settings(r) for r in records]
    keys = differing(all_settings)
    if len(records) < 2:
        return ""
    if not keys:
        return "what differs: nothing in their settings (the runs are repeats)"
    if keys == ["fingerprint"]:
        values = ", ".join(dict.fromkeys(s["fingerprint"] for s in all_settings))
        return f"what differs: a setting not named here (their fingerprints {values} differ); they are not repeats"
    parts = []
    for k in keys:
        values: list[Any] = list(dict.fromkeys(s[k] for s in all_settings))
        parts.append(f"{k} ({', '.join(values)})")
    return "what differs: " + "; ".join(parts)
