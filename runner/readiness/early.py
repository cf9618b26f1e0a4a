"""What a run can refuse before any model library (simpleaudit, any-llm, openai, anthropic) is imported.

:func:`refuse_early` opens and checks the pack, makes the selection (once: the run takes it),
validates shard, judge and counts, and finds a missing key, each in one line; ``auditpacks run``
calls it first, so a refusal costs a fraction of a second. :func:`owns` and :func:`api_key` live
here for the same reason: the key is known before a client is built.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditpacks.runner.scenarios import selection as select
from auditpacks.runner.scenarios import shard
from auditpacks.runner.scenarios.admit import admit
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.settings.config import RunConfig
from auditpacks.runner.execute.engine import judge_name, run_reader
from auditpacks.runner.scenarios.scenario_source import StreamedPack, open_pack
from auditpacks.runner.models import providers


def owns(config: RunConfig) -> bool:
    """Whether this run's target is one of our own clients (else an any-llm provider)."""
    return config.decision is None and (config.embedded or config.batch_api or providers.ours(config.provider))


def api_key(config: RunConfig) -> str | None:
    """The target's key (``local`` where none is needed); a missing one is a :class:`RunError`."""
    key = config.target_key()
    if key:
        return key
    if not owns(config):
        return "local" if config.base_url else None  # any-llm reads the provider's own variable otherwise
    if providers.provider(config.provider).keyless or config.embedded or config.cache_only:
        return "local"
    raise RunError(f"provider {config.provider!r} needs a key: --api-key or ${config.key_variable() or 'its key'}")


@dataclass(frozen=True)
class Admitted:
    """A run's pack, opened and admitted, and its selection (made once, here)."""

    pack: StreamedPack
    scenarios: list


def refuse_early(config: RunConfig) -> Admitted:
    """The pack and its selection, once every check that needs no model library has passed."""
    for flag, value in (("--limit", config.limit), ("--repeats", config.repeats),
                        ("--batch-questions", config.batch_questions), ("--per-question", config.per_question)):
        if value is not None and value < 1:
            raise RunError(f"{flag} must be at least 1, got {value}")
    if config.shard:
        shard.parse_spec(config.shard)
    if config.decision and not config.target:
        raise RunError("--decision needs --target (the decision model's name)")
    if config.decision is None and not config.embedded and not config.cache_only:
        api_key(config)
    pack = open_pack(config.pack, check=config.check)
    admit(pack, config)
    chosen = select.select(pack, smoke=config.smoke, per_question_n=config.per_question, limit=config.limit,
                           seed=config.seed, allow_fewer=config.allow_fewer,
                           question=run_reader(config, pack.manifest, pack.scenarios).question)
    judge_name(config, pack.manifest, chosen)
    return Admitted(pack, chosen)
