"""The run's target: a System One decision endpoint (with the scenarios it can take and its probe), the batch
API's replies, or a chat model at one endpoint or several."""

from __future__ import annotations

import sys
from typing import Any, Sequence

from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.providers.checks import check_reachable
from auditpacks.runner.readiness import preflight
from auditpacks.runner.readiness.model_setup import make_pool, make_target, retry_policy
from auditpacks.runner.run.endpoint import Endpoint, embedded_identity
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.scenarios.scenario_source import StreamedPack
from auditpacks.runner.settings.config import RunConfig
from auditpacks.runner.systemone import decision_probe
from auditpacks.runner.targets.contract import RunTarget


def decision_target(config: RunConfig,
                    scenarios: Sequence[dict[str, Any]]) -> tuple[RunTarget, list[dict[str, Any]], dict[str, int]]:
    """The System One target (batching questions unless ``--batch-questions 1``) and the scenarios it can
    take: those over its option limit or its request-size limit (Ollama: 64 KiB) are skipped and counted.
    For scenarios read lazily, what is kept are their stubs."""
    from auditpacks.runner.systemone.batching import BatchedDecisionTarget
    from auditpacks.runner.systemone.decision import (SingleDecisionTarget, check_body_size, make_decision_target,
                                                    over_option_limit)
    from auditpacks.runner.models.model import Model
    from auditpacks.runner.systemone.api import SystemOneAPI

    target, execution = config.target, config.execution
    single = make_decision_target(
        target.decision, target.model, base_url=target.base_url, url=target.decision_url,
        api_key=target.api_key, max_options=target.max_options, timeout=execution.timeout,
    )
    kept, skipped, first_oversize = [], {}, None
    for ref, scenario in zip(getattr(scenarios, "stubs", scenarios), scenarios):
        if over_option_limit(scenario, target.max_options):
            reason = f"over {target.max_options} options"
        elif single.max_body_bytes is not None and (why := check_body_size(scenario, single)):
            reason, first_oversize = f"over the endpoint's {single.max_body_bytes}-byte request limit", first_oversize or why
        else:
            kept.append(ref)
            continue
        skipped[reason] = skipped.get(reason, 0) + 1
    if first_oversize:
        print(f"auditpacks: warning: skipped, e.g. {first_oversize}", file=sys.stderr)
    one = SingleDecisionTarget(single, Model(SystemOneAPI(single), policy=retry_policy(execution)))
    batched = execution.batch_questions > 1
    return (BatchedDecisionTarget(one, batch_questions=execution.batch_questions) if batched else one), kept, skipped


def decision_side(config: RunConfig, pack: StreamedPack,
                  assigned: list) -> tuple[RunTarget, list, dict[str, int], dict[str, Any] | None]:
    """A decision run's target, the scenarios it runs, those it skips (counted) and its probe's findings; the
    endpoint is checked (and probed, unless ``--no-probe``) before anything is written."""
    if config.target.more_base_urls:
        raise RunError("several endpoints work with chat targets, not --decision")
    target, runnable, skipped = decision_target(config, pack.lazy(assigned))
    if runnable:
        preflight.check_decision(target.inner.url)
    probe = decision_probe.before_run(target.inner, pack.lazy(runnable), timeout=config.execution.timeout) \
        if config.execution.probe and runnable else None
    return target, runnable, skipped, probe


def chat_target(config: RunConfig, ep: Endpoint, cache: ResponseCache | None) -> tuple[RunTarget, str | None]:
    """The chat target for this endpoint and the model digest, if known.

    The check before the run (:mod:`~auditpacks.runner.readiness.preflight`) runs here, before anything is
    written, except that with a cache it waits for the first request the cache cannot answer.
    """
    target = config.target
    if target.more_base_urls:  # replicas: one target each, documents spread over them
        pool = make_pool(config, model=ep.model, cache=cache)
        return pool, pool.prepare().get("digest")
    lazy = cache is not None and not cache.only and not ep.embedded and target.base_url
    identity = embedded_identity() if ep.embedded and cache is not None else None
    made = make_target(config, model=ep.model, base_url=ep.base_url, cache=cache, embedded_identity=identity,
                       preflight=(lambda: check_reachable(target.base_url)) if lazy else None)
    if not ep.embedded and cache is None and target.provider != "ollama":
        preflight.check_chat(made.model.api, hint=f"${target.key_variable()} or --api-key"
                             if target.key_variable() else "--api-key")
    return made, made.prepare().get("digest") or (identity or {}).get("digest")


def answering_target(config: RunConfig, ep: Endpoint, cache: ResponseCache | None) -> tuple[RunTarget, str | None]:
    """A chat run's target and its model digest: the batch API's replies with ``--batch-api``, else
    :func:`chat_target`."""
    if config.hosting.batch_api:
        from auditpacks.runner.hosted.batch_run import batch_target

        return batch_target(config, ep.model, poll_s=config.hosting.batch_poll_s), None
    return chat_target(config, ep, cache)
