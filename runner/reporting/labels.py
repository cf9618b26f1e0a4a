"""Names for runs shown together: the settings that differ between them, and a line saying which differ.

A run's settings are read from its record: model, pack, chat or decision, judge and judge model,
temperature, seed, turns, rounds, selection, prompt order and shard. A label names the values of
the settings that differ among the runs shown (``smollm2 · checklist · temperature 0.7``); runs
alike in all of them are told apart by their run folder.
"""

from __future__ import annotations

from typing import Any

from auditpacks.core.record import RunRecord

#: Settings whose value reads alone in a label; the others read "name value".
PLAIN = ("model", "pack", "mode", "judge", "judge model", "selection")


def settings(record: RunRecord) -> dict[str, str]:
    """The settings a label may name, as short text, in label order."""
    p = record.parameters or {}
    selection = ("smoke" if p.get("smoke") else f"limit {p['limit']}" if p.get("limit")
                 else f"{p['per_question']} per question" if p.get("per_question") else "all")
    return {"model": record.model, "pack": record.pack.name, "mode": "decision" if p.get("decision") else "chat",
            "judge": record.judge, "judge model": record.judge_model or "no judge model",
            "temperature": f"{p.get('temperature', 0):g}", "seed": str(record.seed),
            "turns": str(p.get("max_turns", 1)), "rounds": str(record.repeats), "selection": selection,
            "prompt order": str(p.get("prompt_order")), "shard": (record.shard or {}).get("spec", "none")}


def differing(all_settings: list[dict[str, str]]) -> list[str]:
    """The settings whose values are not all the same, in label order."""
    keys = list(all_settings[0]) if all_settings else []
    return [k for k in keys if len({s.get(k) for s in all_settings}) > 1]


def _part(key: str, value: str) -> str:
    return value if key in PLAIN else f"{key} {value}"


def labels(records: list[RunRecord], folders: list[str]) -> list[str]:
    """One distinct label per run: the differing settings' values (model and pack when none differ),
    and the run folder where two runs are otherwise alike."""
    all_settings = [settings(r) for r in records]
    keys = differing(all_settings) or ["model", "pack"]
    out = [" · ".join(_part(k, s[k]) for k in keys) for s in all_settings]
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
    parts = []
    for k in keys:
        values: list[Any] = list(dict.fromkeys(s[k] for s in all_settings))
        parts.append(f"{k} ({', '.join(values)})")
    return "what differs: " + "; ".join(parts)
