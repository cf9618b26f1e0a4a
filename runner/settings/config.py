"""Everything that defines one run, and the parts of it that are safe to write down."""

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
class RunConfig:
    pack: Path
    out: Path | None = None              # None: results/<pack stem>/
    # target
    target: str | None = None
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
    # grading
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
    # selection
    smoke: bool = False
    per_question: int | None = None
    limit: int | None = None
    allow_fewer: bool = False            # --limit over a smaller selection: run what there is (noted)
    seed: int = 0
    repeats: int = 1                     # rounds: every scenario runs this many times, round N with seed + N - 1
    # decoding and execution
    temperature: float = 0.0
    max_tokens: int | None = None
    concurrency: int = 1
    timeout: float = TIMEOUT_S
    max_retries: int = 2
    retry_backoff: float = 0.5
    resume: bool = True
    retry_errors: bool = True
    cache_dir: Path | None = None
    cache_only: bool = False
    skip_oversize: bool = False
    shard: str | None = None
    wait_ready: float = 0.0             # seconds to wait for the first endpoint to be ready (0: no wait)
    embedded_ctx: int = 8192
    # performance
    prompt_order: str | None = "auto"   # auto | document-first | stock (None: a decision run, no chat prompt)
    slot_pinning: bool | None = None    # None: on for the embedded model and --provider llamacpp
    prompt_cache: bool | None = None    # None: prompt_cache_key only to OpenAI's own URL; True: to any endpoint
    batch_questions: int = MAX_QUESTIONS          # decision questions per System One request (1: no batching)
    show_progress: bool | None = None
    log_progress: bool = False          # plain, time-stamped progress lines for job logs (even with --quiet)
    check: bool = True                  # refuse a pack with ERROR findings (--no-check: run it anyway)
    prices: Path | None = None          # the price table (None: the bundled one)
    batch_api: bool = False             # send the run through the provider's batch API
    batch_poll_s: float = 30.0          # seconds between polls of submitted batches
    probe: bool = True                  # decision runs: probe the endpoint first (--no-probe: do not)
    stop_after: int = 5                 # stop once the first N scenarios run all fail the same way (0: never)

    @property
    def embedded(self) -> bool:
        """No target given: the embedded local model answers."""
        return self.target is None and self.decision is None

    def key_variable(self) -> str | None:
        from auditpacks.runner.models.providers import provider

        return provider(self.provider).key_variable

    def target_key(self) -> str | None:
        if self.api_key:
            return self.api_key
        variable = self.key_variable()
        key = os.environ.get(variable) if variable else None
        if key is None and self.base_url and self.provider == "openai":
            return "local"  # OpenAI-compatible local servers need some key; they ignore it
        return key

    def decoding(self, seed: int | None = None) -> dict[str, Any]:
        """Decoding parameters (``seed``: a round's own seed instead of ``--seed``)."""
        params: dict[str, Any] = {"temperature": self.temperature, "seed": self.seed if seed is None else seed}
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        return params

    def public(self) -> dict[str, Any]:
        """The settings as written to the run file: no API key, ever."""
        data = asdict(self)
        for secret in ("api_key", "judge_api_key"):
            data.pop(secret, None)
        for name in ("base_url", "judge_base_url", "auditor_base_url", "decision_url"):
            data[name] = without_credentials(data[name])
        data["more_base_urls"] = [without_credentials(url) for url in self.more_base_urls]
        data["pack"] = Path(self.pack).name
        data["out"] = None
        data["cache_dir"] = None if self.cache_dir is None else str(self.cache_dir)
        data["prices"] = None if self.prices is None else Path(self.prices).name
        return data

    def fingerprint(self, model: str, base_url: str | None, digest: str | None = None,
                    served: dict[str, Any] | None = None) -> str:
        """What makes two runs' answers comparable: model (and its digest, when known), endpoint,
        judge, turns, decoding, and the prompt order when it is not simpleaudit's own. Transport
        settings (slot pinning and decision batching among them), the cache and the shard are not.
        ``served``: what the endpoints say they serve, which then stands for them instead of their URLs."""
        basis = {
            "model": model, "provider": self.provider, "base_url": base_url, "decision": self.decision,
            "system_prompt": self.system_prompt, "judge": self.judge, "judge_model": self.judge_model,
            "grader_options": self.grader_options, "max_turns": self.max_turns, "decoding": self.decoding(),
            "auditor_model": self.auditor_model,
        }
        if self.judge_model or self.auditor_model:  # model graders: their decoding changes the verdicts
            basis["grader_decoding"] = [self.judge_temperature, self.judge_max_tokens, self.auditor_max_tokens]
        if digest:
            basis["model_digest"] = digest
        if self.more_base_urls and base_url == self.base_url:  # replicas: the set of them, in any order
            basis["base_url"] = sorted({base_url, *self.more_base_urls})
        if served:
            basis["base_url"] = {"served": served}
        if self.prompt_order not in (None, "stock"):  # stock runs keep their earlier fingerprints
            basis["prompt_order"] = self.prompt_order
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
