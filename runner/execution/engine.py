"""Build the simpleaudit engine for a run: the target, the judge and their clients.

Avoids simpleaudit's documented traps: one turn by default (code judges call no
auditor model), one retry layer per call, an explicit per-call timeout, and never
``SingleTurnAuditor`` for choice or checklist grading.

Retry layers: with one of our targets (``runner.targets``) or a decision target the
engine is ``Auditor(target=...)``; simpleaudit then never retries the target (its
``max_retries`` only reaches the ``ModelTarget`` it no longer uses), and our target
retries. Judge and auditor-model calls, and targets on other providers, keep
simpleaudit's retry (``max_retries``, ``retry_backoff``) with the SDK's own retries
off where the SDK allows it (OpenAI-family and Anthropic clients).
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping

from auditpacks.core.registry import CODE_JUDGES, JUDGES
from auditpacks.runner.execution.config import RunConfig, RunError

#: any-llm providers whose SDK client accepts max_retries and timeout (OpenAI family, Anthropic).
SDK_RETRY_PROVIDERS = {"openai", "openrouter", "vllm", "llamacpp", "deepseek", "lmstudio", "together", "groq", "xai",
                       "anthropic"}


def judge_name(config: RunConfig, manifest: Mapping[str, Any] | None, scenarios: list[dict[str, Any]]) -> str:
    """The judge to use: the one asked for, else the pack's own, else choice_match or checklist."""
    if config.judge:
        name = config.judge
    else:
        name = ((manifest or {}).get("grading") or {}).get("judge")
        if not name:
            name = "choice_match" if any(s.get("decision") for s in scenarios) else "checklist"
    if name not in JUDGES:
        raise RunError(f"unknown judge {name!r}; choose one of {', '.join(sorted(JUDGES))}")
    return name


def judge_module(name: str):
    return importlib.import_module(JUDGES[name])


def judge_config(name: str, manifest: Mapping[str, Any] | None, options: Mapping[str, Any]) -> Any:
    """The simpleaudit ``judge=`` argument: a registry name or a code-judge config dict."""
    try:
        return judge_module(name).make_judge(manifest, **options)
    except (TypeError, ValueError) as exc:
        raise RunError(f"judge {name!r}: {exc}") from None


def _client_kwargs(provider: str, config: RunConfig) -> dict[str, Any] | None:
    if provider in SDK_RETRY_PROVIDERS:
        return {"max_retries": 0, "timeout": config.timeout}
    return None


def build_engine(config: RunConfig, judge: str, judge_cfg: Any, *, target_model: str, base_url: str | None,
                 target: Any = None):
    """The simpleaudit engine: ``Auditor(target=...)``'s for our own or a decision target, else a ``ModelAuditor``."""
    from simpleaudit import Auditor, ModelAuditor

    code_judge = judge in CODE_JUDGES
    if not code_judge and not config.judge_model:
        raise RunError(f"judge {judge!r} calls a model: give --judge-model (and --judge-base-url for a local judge)")
    if config.max_turns > 1 and code_judge and not config.auditor_model:
        raise RunError(f"--max-turns {config.max_turns} needs --auditor-model: judge {judge!r} calls no model")
    judge_kwargs: dict[str, Any] = {
        "judge": judge_cfg,
        "judge_model": config.judge_model or "unused",
        "judge_provider": config.judge_provider,
        "judge_base_url": config.judge_base_url,
        "judge_api_key": config.judge_api_key or (None if code_judge else _judge_key(config)),
        "max_turns": config.max_turns,
        "max_retries": config.max_retries,
        "retry_backoff": config.retry_backoff,
        "show_progress": False,
        "judge_kwargs": _client_kwargs(config.judge_provider, config),
    }
    if config.judge_base_url and config.judge_provider == "openai":
        judge_kwargs["json_format"] = False
    if config.auditor_model:
        judge_kwargs.update(
            auditor_model=config.auditor_model,
            auditor_provider=config.auditor_provider or config.judge_provider,
            auditor_base_url=config.auditor_base_url or config.judge_base_url,
            auditor_kwargs=_client_kwargs(config.auditor_provider or config.judge_provider, config),
        )
    try:
        if target is not None:
            system_prompt = None if config.decision else config.system_prompt  # decision targets: as before
            return Auditor(target=target, system_prompt=system_prompt, **judge_kwargs).engine
        return ModelAuditor(
            model=target_model,
            provider=config.provider,
            base_url=base_url,
            api_key=config.target_key() or ("local" if base_url else None),
            system_prompt=config.system_prompt,
            target_kwargs=_client_kwargs(config.provider, config),
            **judge_kwargs,
        )
    except ImportError as exc:
        raise RunError(f"provider {config.provider!r} needs an extra: {exc}") from None
    except Exception as exc:  # missing keys and unknown providers come from any-llm
        raise RunError(f"cannot set up provider {config.provider!r}: {type(exc).__name__}: {exc}") from None


def _judge_key(config: RunConfig) -> str | None:
    if config.judge_base_url and config.judge_provider == "openai":
        return "local"
    return None
