"""A run's settings from flat keywords, as the tests write them (``run_config(target="m", limit=2)``)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

from auditpacks.runner.settings.config import (DecodingConfig, ExecutionConfig, HostingConfig, RolesConfig, RunConfig,
                                               SelectionConfig, TargetConfig)

#: Each part of a run's config by its attribute.
PARTS = {"target": TargetConfig, "roles": RolesConfig, "selection": SelectionConfig, "decoding": DecodingConfig,
         "execution": ExecutionConfig, "hosting": HostingConfig}

#: ``public()`` of a run left at every default (pack ``p.json``), key for key in the stored order.
DEFAULT_PUBLIC = {
    "pack": "p.json", "out": None,
    "target": None, "provider": "openai", "provider_given": True, "detected_ollama": None, "base_url": None,
    "more_base_urls": [], "endpoint_assignment": "document", "system_prompt": None, "decision": None,
    "decision_url": None, "max_options": 26,
    "judge": None, "judge_model": None, "panel_models": (), "judge_provider": "openai", "judge_base_url": None,
    "auditor_model": None, "auditor_provider": None, "auditor_base_url": None, "max_turns": 1,
    "judge_temperature": 0.0, "judge_max_tokens": 1024, "auditor_max_tokens": 512, "judge_timeout": None,
    "grader_options": {},
    "smoke": False, "per_question": None, "limit": None, "allow_fewer": False, "seed": 0, "repeats": 1,
    "temperature": 0.0, "max_tokens": None, "concurrency": 1, "timeout": 600.0, "max_retries": 2,
    "retry_backoff": 0.5, "resume": True, "retry_errors": True, "cache_dir": None, "cache_only": False,
    "skip_oversize": False, "shard": None, "wait_ready": 0.0, "embedded_ctx": 8192, "prompt_order": "auto",
    "slot_pinning": None, "prompt_cache": None, "batch_questions": 64, "show_progress": None,
    "log_progress": False, "check": True, "prices": None, "batch_api": False, "batch_poll_s": 30.0, "probe": True,
    "stop_after": 5,
}


def run_config(pack: Any = Path("p.json"), out: Path | None = None, **settings: Any) -> RunConfig:
    """The run of ``pack`` with ``settings`` (the run record's ``parameters`` names, each put in its part; ``target``
    is the target's ``model``), the rest at their defaults."""
    values: dict[str, dict[str, Any]] = {name: {} for name in PARTS}
    for key, value in settings.items():
        name = "model" if key == "target" else key
        part = next((p for p, cls in PARTS.items() if name in {f.name for f in fields(cls)}), None)
        if part is None:
            raise TypeError(f"no run setting {key!r}")
        values[part][name] = value
    return RunConfig(pack=pack, out=out, **{part: PARTS[part](**given) for part, given in values.items()})
