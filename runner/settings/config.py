"""Everything that defines one run, in typed parts, and the parts of it that are safe to write down.

:class:`RunConfig` keeps the pack and the output folder and holds six parts, each read by its own code:
the target (the readiness step that builds it, the decision endpoint), the roles (the judge and auditor
models' builder, the engine), the selection (the scenario selection and shard), the decoding (the
rounds' request parameters), the execution (the retry policy, the cache, the rounds, the run folder)
and the hosting (quotes, bills and the batch API). A function that reads one part takes that part;
one that reads several takes the run's config.

The run record stores the settings flat (:meth:`RunConfig.public`, its ``parameters``: one name per setting,
in a fixed order), and :meth:`RunConfig.fingerprint` hashes a flat basis, whichever part holds a setting, so
stored runs, journals, labels and merges read alike.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from auditpacks.core.defaults import MAX_OPTIONS, MAX_QUESTIONS, TIMEOUT_S
from auditpacks.core.redact import without_credentials


@dataclass
class TargetConfig:
    """The model that answers: its name, provider, endpoints, key and system prompt, or the decision
    endpoint it sits behind. ``embedded_ctx`` sizes the embedded model's server, which serves the target
    when none is named."""

    model: str | None = None             # --target; None: the embedded model (or nothing, for a decision run)
    provider: str = "openai"
    provider_given: bool = True          # False: --provider left at its default, so an Ollama base URL is detected
    detected_ollama: str | None = None   # the Ollama version found behind --base-url (the run then uses ollama)
    base_url: str | None = None
    more_base_urls: tuple[str, ...] = ()  # further replicas of the target (--base-url given several times)
    endpoint_assignment: str = "document"  # document (rendezvous hashing) | random
    api_key: str | None = field(default=None, repr=False)
    system_prompt: str | None = None
    decision: str | None = None          # ollama | openrouter | url
    decision_url: str | None = None
    max_options: int | None = MAX_OPTIONS
    embedded_ctx: int = 8192

    @property
    def embedded(self) -> bool:
        """No target given: the embedded local model answers."""
        return self.model is None and self.decision is None

    def key_variable(self) -> str | None:
        from auditpacks.runner.models.providers import provider

        return provider(self.provider).key_variable

    def key(self) -> str | None:
        """``--api-key``, else the provider's variable; ``local`` for an OpenAI-compatible local server."""
        if self.api_key:
            return self.api_key
        variable = self.key_variable()
        key = os.environ.get(variable) if variable else None
        if key is None and self.base_url and self.provider == "openai":
            return "local"  # OpenAI-compatible local servers need some key; they ignore it
        return key


@dataclass
class RolesConfig:
    """Who grades and who asks the follow-up turns: the judge, the judge and auditor models (their endpoints,
    keys, caps and time-out), a panel's further judges, the turns a scenario takes and the grader's options."""

    judge: str | None = None
    judge_model: str | None = None
    panel_models: tuple[str, ...] = ()   # further judges of a panel (--judge-model given again)
    judge_provider: str = "openai"
    judge_base_url: str | None = None
    judge_api_key: str | None = field(default=None, repr=False)
    auditor_model: str | None = None
    auditor_provider: str | None = None
    auditor_base_url: str | None = None
    max_turns: int = 1
    judge_temperature: float = 0.0       # judge and auditor-model calls
    judge_max_tokens: int = 1024
    auditor_max_tokens: int = 512
    judge_timeout: float | None = None   # None: --timeout
    grader_options: dict[str, Any] = field(default_factory=dict)


@dataclass
class SelectionConfig:
    """Which scenarios run, how often, and this machine's shard of them. ``seed`` draws the per-question
    sample and seeds the decoding of round 1 (round N: seed + N - 1)."""

    smoke: bool = False
    per_question: int | None = None
    limit: int | None = None
    allow_fewer: bool = False            # --limit over a smaller selection: run what there is (noted)
    seed: int = 0
    repeats: int = 1                     # rounds: every scenario runs this many times, round N with seed + N - 1
    shard: str | None = None


@dataclass
class DecodingConfig:
    """The target's request parameters."""

    temperature: float = 0.0
    max_tokens: int | None = None

    def params(self, seed: int) -> dict[str, Any]:
        """The decoding parameters of requests seeded ``seed`` (a round's own seed)."""
        params: dict[str, Any] = {"temperature": self.temperature, "seed": seed}
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        return params


@dataclass
class ExecutionConfig:
    """How the calls are made and the run is kept: workers, time-outs and retries, resuming, the response
    cache, waiting for servers, the prompt layout and transport (slot pinning, decision batching), progress,
    the checks before the run and the stop on early failures."""

    concurrency: int = 1
    timeout: float = TIMEOUT_S
    max_retries: int = 2
    retry_backoff: float = 0.5
    resume: bool = True
    retry_errors: bool = True
    cache_dir: Path | None = None
    cache_only: bool = False
    skip_oversize: bool = False
    wait_ready: float = 0.0             # seconds to wait for the first endpoint to be ready (0: no wait)
    prompt_order: str | None = "auto"   # auto | document-first | stock (None: a decision run, no chat prompt)
    slot_pinning: bool | None = None    # None: on for the embedded model and --provider llamacpp
    batch_questions: int = MAX_QUESTIONS          # decision questions per System One request (1: no batching)
    show_progress: bool | None = None
    log_progress: bool = False          # plain, time-stamped progress lines for job logs (even with --quiet)
    check: bool = True                  # refuse a pack with ERROR findings (--no-check: run it anyway)
    probe: bool = True                  # decision runs: probe the endpoint first (--no-probe: do not)
    stop_after: int = 5                 # stop once the first N scenarios run all fail the same way (0: never)


@dataclass
class HostingConfig:
    """What a hosted provider's bill depends on: the price table, the batch API and the prompt cache key."""

    prompt_cache: bool | None = None    # None: prompt_cache_key only to OpenAI's own URL; True: to any endpoint
    prices: Path | None = None          # the price table (None: the bundled one)
    batch_api: bool = False             # send the run through the provider's batch API
    batch_poll_s: float = 30.0          # seconds between polls of submitted batches


#: The run record's ``parameters``, in the order stored records list them (the target's ``model`` is stored as
#: ``target``; the keys are never stored).
RECORDED = """pack out target provider provider_given detected_ollama base_url more_base_urls endpoint_assignment
system_prompt decision decision_url max_options judge judge_model panel_models judge_provider judge_base_url
auditor_model auditor_provider auditor_base_url max_turns judge_temperature judge_max_tokens auditor_max_tokens
judge_timeout grader_options smoke per_question limit allow_fewer seed repeats temperature max_tokens concurrency
timeout max_retries retry_backoff resume retry_errors cache_dir cache_only skip_oversize shard wait_ready
embedded_ctx prompt_order slot_pinning prompt_cache batch_questions show_progress log_progress check prices
batch_api batch_poll_s probe stop_after""".split()


@dataclass
class RunConfig:
    pack: Path
    out: Path | None = None              # None: results/<pack stem>/
    target: TargetConfig = field(default_factory=TargetConfig)
    roles: RolesConfig = field(default_factory=RolesConfig)
    selection: SelectionConfig = field(default_factory=SelectionConfig)
    decoding: DecodingConfig = field(default_factory=DecodingConfig)
    execution: ExecutionConfig = field(default_factory=ExecutionConfig)
    hosting: HostingConfig = field(default_factory=HostingConfig)

    def public(self) -> dict[str, Any]:
        """The settings as written to the run file, flat: no API key, ever."""
        data: dict[str, Any] = {"pack": Path(self.pack).name, "out": None}
        for part in (self.target, self.roles, self.selection, self.decoding, self.execution, self.hosting):
            data.update(asdict(part))
        data["target"] = data.pop("model")
        for secret in ("api_key", "judge_api_key"):
            data.pop(secret)
        for name in ("base_url", "judge_base_url", "auditor_base_url", "decision_url"):
            data[name] = without_credentials(data[name])
        data["more_base_urls"] = [without_credentials(url) for url in self.target.more_base_urls]
        data["cache_dir"] = None if self.execution.cache_dir is None else str(self.execution.cache_dir)
        data["prices"] = None if self.hosting.prices is None else Path(self.hosting.prices).name
        return dict(sorted(data.items(), key=lambda item: RECORDED.index(item[0])))

    def fingerprint(self, model: str, base_url: str | None, digest: str | None = None,
                    served: dict[str, Any] | None = None) -> str:
        """What makes two runs' answers comparable: model (and its digest, when known), endpoint,
        judge, turns, decoding, and the prompt order when it is not simpleaudit's own. Transport
        settings (slot pinning and decision batching among them), the cache and the shard are not.
        ``served``: what the endpoints say they serve, which then stands for them instead of their URLs."""
        target, roles = self.target, self.roles
        basis = {
            "model": model, "provider": target.provider, "base_url": base_url, "decision": target.decision,
            "system_prompt": target.system_prompt, "judge": roles.judge, "judge_model": roles.judge_model,
            "grader_options": roles.grader_options, "max_turns": roles.max_turns,
            "decoding": self.decoding.params(self.selection.seed), "auditor_model": roles.auditor_model,
        }
        if roles.judge_model or roles.auditor_model:  # model graders: their decoding changes the verdicts
            basis["grader_decoding"] = [roles.judge_temperature, roles.judge_max_tokens, roles.auditor_max_tokens]
        if digest:
            basis["model_digest"] = digest
        if target.more_base_urls and base_url == target.base_url:  # replicas: the set of them, in any order
            basis["base_url"] = sorted({base_url, *target.more_base_urls})
        if served:
            basis["base_url"] = {"served": served}
        if self.execution.prompt_order not in (None, "stock"):  # stock runs keep their earlier fingerprints
            basis["prompt_order"] = self.execution.prompt_order
        return hashlib.sha256(json.dumps(basis, sort_keys=True, default=str).encode()).hexdigest()[:16]


def model_slug(model: str) -> str:
    """A file-name-safe model name: ``qwen3:8b`` → ``qwen3_8b``, ``org/model`` → ``org_model``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_") or "model"


def model_stem(model: str) -> str:
    """The file name stem of a model's run files: its slug, plus a short hash of the name when the slug
    differs from it, so names that slug alike never share files (``a/b:c`` and ``a_b:c`` both slug to
    ``a_b_c``; their stems differ)."""
    slug = model_slug(model)
    if slug == model:
        return slug
    return f"{slug}-{hashlib.sha256(model.encode('utf-8')).hexdigest()[:8]}"
