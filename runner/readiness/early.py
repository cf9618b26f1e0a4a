"""What a run can refuse before any model library (simpleaudit, any-llm, openai, anthropic) is imported.

:func:`refuse_early` opens and checks the pack, makes the selection (once: the run takes it),
validates shard, judge and counts, and finds a missing key, each in one line; ``auditpacks run``
calls it first, so a refusal costs a fraction of a second, and the run checks none of these again. :func:`owns` and :func:`api_key` live
here for the same reason: the key is known before a client is built.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditpacks.runner.scenarios import selection as select
from auditpacks.runner.scenarios import shard
from auditpacks.runner.scenarios.admit import admit
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.settings.config import RunConfig
from auditpacks.judges.reader import Reader
from auditpacks.runner.execute.engine import run_reader
from auditpacks.runner.scenarios.scenario_source import StreamedPack, open_pack
from auditpacks.runner.models import providers


def owns(config: RunConfig) -> bool:
    """Whether this run's target is one of our own clients (else an any-llm provider)."""
    target = config.target
    return target.decision is None and (target.embedded or config.hosting.batch_api or providers.ours(target.provider))


def api_key(config: RunConfig) -> str | None:
    """The target's key (``local`` where none is needed); a missing one is a :class:`RunError`."""
    target = config.target
    key = target.key()
    if key:
        return key
    if not owns(config):
        return "local" if target.base_url else None  # any-llm reads the provider's own variable otherwise
    if providers.provider(target.provider).keyless or target.embedded or config.execution.cache_only:
        return "local"
    raise RunError(f"provider {target.provider!r} needs a key: --api-key or ${target.key_variable() or 'its key'}")


@dataclass(frozen=True)
class Admitted:
    """A run's pack, opened and admitted, its selection (made once, here) and how the run is read: the judge that
    grades it and the benchmark that groups and reads it."""

    pack: StreamedPack
    scenarios: list
    reader: Reader

    @property
    def judge(self) -> str:
        return self.reader.judge


def refuse_early(config: RunConfig) -> Admitted:
    """The pack and its selection, once every check that needs no model library has passed."""
    chosen, target = config.selection, config.target
    for flag, value in (("--limit", chosen.limit), ("--repeats", chosen.repeats),
                        ("--batch-questions", config.execution.batch_questions),
                        ("--per-question", chosen.per_question)):
        if value is not None and value < 1:
            raise RunError(f"{flag} must be at least 1, got {value}")
    if chosen.shard:
        shard.parse_spec(chosen.shard)
    if target.decision and not target.model:
        raise RunError("--decision needs --target (the decision model's name)")
    if target.decision is None and not target.embedded and not config.execution.cache_only:
        api_key(config)
    pack = open_pack(config.pack, check=config.execution.check)
    admit(pack, config)
    reader = run_reader(config.roles, pack.manifest, pack.scenarios)  # the pack's questions, for --per-question
    scenarios = select.for_run(pack, chosen, question=reader.question)
    return Admitted(pack, scenarios, run_reader(config.roles, pack.manifest, scenarios))
