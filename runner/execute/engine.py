"""Build the simpleaudit engine for a run: the target, the judge and their clients.

Avoids simpleaudit's documented traps: one turn by default (code judges call no
auditor model), one retry layer per call, an explicit per-call timeout, and never
``SingleTurnAuditor`` for choice or checklist grading.

One retry layer: simpleaudit's own retries are off (``max_retries=0``). The target
and the judge and auditor models are ours (:mod:`runner.readiness.model_setup`): every
call, on any provider and to a System One decision endpoint too, goes through one
:class:`~auditpacks.runner.models.model.Model` with the response cache and our retry layer.
"""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.core.registry import CODE_JUDGES, JUDGES, judge_module
from auditpacks.judges.reader import Reader
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.settings.config import RolesConfig, RunConfig

#: What simpleaudit is told about the judge and auditor models, whose clients are ours: it builds
#: (never uses) an any-llm client from these, so no key or server is needed for them.
_PLACEHOLDER = {"provider": "openai", "api_key": "unused", "base_url": "http://unused.invalid/v1"}


def judge_name(roles: RolesConfig, manifest: Mapping[str, Any] | None, scenarios: list[dict[str, Any]]) -> str:
    """The judge to use: the one asked for, else the pack's own, else choice_match or checklist."""
    if roles.judge:
        name = roles.judge
    else:
        name = ((manifest or {}).get("grading") or {}).get("judge")
        if not name:
            name = "choice_match" if any(s.get("decision") for s in scenarios) else "checklist"
    if name not in JUDGES:
        raise RunError(f"unknown judge {name!r}; choose one of {', '.join(sorted(JUDGES))}")
    return name


def run_reader(roles: RolesConfig, manifest: Mapping[str, Any] | None, scenarios: list[dict[str, Any]]) -> Reader:
    """How the run is read and its scenarios grouped: by its judge (:func:`judge_name`) and the pack's builder."""
    return Reader.of(judge_name(roles, manifest, scenarios), (manifest or {}).get("builder"))


def judge_config(name: str, manifest: Mapping[str, Any] | None, options: Mapping[str, Any]) -> Any:
    """The simpleaudit ``judge=`` argument: a registry name or a code-judge config dict."""
    try:
        return judge_module(name).make_judge(manifest, **options)
    except (TypeError, ValueError) as exc:
        raise RunError(f"judge {name!r}: {exc}") from None


def build_engine(config: RunConfig, judge: str, judge_cfg: Any, *, target: Any, roles: Any = None):
    """The simpleaudit engine: ``Auditor(target=...)``'s, with ``roles`` (:class:`~auditpacks.runner.targets.
    roles.Roles`) in place of the judge and auditor clients simpleaudit would make."""
    from simpleaudit import Auditor

    code_judge = judge in CODE_JUDGES
    asked = config.roles
    if not code_judge and not asked.judge_model:
        raise RunError(f"judge {judge!r} calls a model: give --judge-model (a model name, or `embedded` for the "
                       "embedded local model; --judge-base-url for a local server)")
    if asked.max_turns > 1 and code_judge and not asked.auditor_model:
        raise RunError(f"--max-turns {asked.max_turns} needs --auditor-model: judge {judge!r} calls no model")
    judge_kwargs: dict[str, Any] = {
        "judge": judge_cfg,
        "judge_model": asked.judge_model or "unused",
        "judge_provider": _PLACEHOLDER["provider"],
        "judge_base_url": _PLACEHOLDER["base_url"],
        "judge_api_key": _PLACEHOLDER["api_key"],
        "max_turns": asked.max_turns,
        "max_retries": 0,
        "retry_backoff": config.execution.retry_backoff,
        "show_progress": False,
        "json_format": True,
    }
    if asked.auditor_model:
        judge_kwargs.update(auditor_model=asked.auditor_model, auditor_provider=_PLACEHOLDER["provider"],
                            auditor_base_url=_PLACEHOLDER["base_url"], auditor_api_key=_PLACEHOLDER["api_key"])
    system_prompt = None if config.target.decision else config.target.system_prompt  # decision targets: as before
    engine = Auditor(target=target, system_prompt=system_prompt, **judge_kwargs).engine
    if roles is not None:
        roles.install(engine, getattr(judge_module(judge), "bounded_schema", None))
    return engine
