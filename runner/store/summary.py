"""The run file and its summary: what ran, how, how much of it answered, and the grader's headline figures."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from importlib.metadata import version
from typing import TYPE_CHECKING, Any, Mapping

from simpleaudit import AuditResult, AuditResults

from auditpacks.core.runs.record import PackRef, Round, RunRecord, Summary
from auditpacks.core.redact import public_url
from auditpacks.core.runs.run_files import ERROR, error_message, is_error
from auditpacks.judges.figures import Headline, outcome_words
from auditpacks.judges.reader import Reader

if TYPE_CHECKING:
    from auditpacks.packs.pack import Pack
    from auditpacks.runner.settings.config import ExecutionConfig, RunConfig


def summarize(
    scenarios: list[dict[str, Any]],
    results: list[dict[str, Any]],
    headline: Headline,
    reader: Reader,
    *,
    skipped: Mapping[str, int] | None = None,
    resumed: int = 0,
    notes: list[str] | None = None,
) -> Summary:
    """Counts over the run (verdict words as ``reader`` gives them) plus the headline's values (``notes``: lines
    worth reading, such as a decision batch that fell back to single questions; the note on replies cut at the
    token cap is counted here, over ``results``)."""
    audit = AuditResults([AuditResult(**r) for r in results])
    verdicts = Counter(str(r.get("severity")) for r in results)
    errors = sum(map(is_error, results))
    outcomes = Counter(reader.outcome(r) for r in results)
    messages = Counter(error_message(r) for r in results if is_error(r))
    return Summary(
        scenarios=len(scenarios),
        completed=len(results) - errors,
        errors=errors,
        completion=round((len(results) - errors) / len(scenarios), 4) if scenarios else 0.0,
        verdicts=dict(sorted(verdicts.items())),
        # simpleaudit scores an all-ERROR or all-ungraded run 0.0; here that is undefined
        simpleaudit_score=audit.score if any(v not in (ERROR, "ungraded") for v in verdicts) else None,
        skipped=dict(skipped or {}),
        resumed=resumed,
        tokens=audit.token_usage,
        headline=dict(headline.values),
        notes=[*(n for n in notes or [] if not n.startswith(TRUNCATED)), *truncation_notes(results)],
        outcomes={word: outcomes.get(word, 0) for word in outcome_words()},
        commonest_error=({"message": messages.most_common(1)[0][0], "count": messages.most_common(1)[0][1]}
                         if messages else None),
    )


#: How the summary's note on replies stopped at the output-token cap begins (one note per run, recounted on merge).
TRUNCATED = "replies stopped at the output-token cap:"


def truncation_notes(results: list[dict[str, Any]]) -> list[str]:
    """The note on replies that stopped at the output-token cap (their judgment's ``truncated``), any benchmark."""
    cut = sum(bool((r.get("judgment") or {}).get("truncated")) for r in results)
    if not cut:
        return []
    return [f"{TRUNCATED} {cut} of {len(results)}; their answers may be cut short (raise --max-tokens to give "
            "them room)"]


def performance_record(execution: "ExecutionConfig", *, documents: int, target_stats: Mapping[str, Any] | None,
                       earlier: Mapping[str, int] | None = None) -> dict[str, Any]:
    """How the run saved work: prompt order, document scheduling, slot pinning, batching, server prefill; and
    ``earlier_attempts``, the scenarios and documents a stopped earlier attempt finished (resumed from the
    journal), when there are any."""
    return {"prompt_order": execution.prompt_order, "scheduling": "by document", "documents": documents,
            "concurrency": execution.concurrency, "slot_pinning": execution.slot_pinning, **dict(target_stats or {}),
            **({"earlier_attempts": dict(earlier)} if earlier and earlier.get("scenarios") else {})}


def run_record(config: "RunConfig", pack: "Pack", *, model: str, base_url: str | None, judge: str,
               started: dt.datetime, seconds: float, embedded: bool, summary: Summary,
               fingerprint: str, rounds: list[Round], digest: str | None = None, shard: dict[str, Any] | None = None,
               cache: dict[str, int] | None = None, performance: dict[str, Any] | None = None,
               models: dict[str, Any] | None = None) -> RunRecord:
    """The sidecar run file: everything simpleaudit's results file leaves out (never a key)."""
    manifest = pack.manifest or {}
    return RunRecord(
        auditpacks=_version("auditpacks"),
        simpleaudit=version("simpleaudit"),
        pack=PackRef(name=pack.path.name, sha256=pack.sha256, builder=manifest.get("builder"),
                     scenarios_in_pack=len(pack.scenarios)),
        model=model,
        model_digest=digest,
        provider="decision:" + config.target.decision if config.target.decision else config.target.provider,
        base_url=public_url(base_url),
        embedded=embedded,
        judge=judge,
        judge_model=config.roles.judge_model,
        models=models or {"judge": None, "auditor": None},
        parameters=config.public(),
        fingerprint=fingerprint,
        shard=shard,
        cache=cache,
        performance=performance,
        seed=config.selection.seed,
        repeats=len(rounds),
        rounds=rounds,
        started=started.replace(microsecond=0).isoformat(),
        seconds=round(seconds, 2),
        summary=summary,
    )


def _version(dist: str) -> str:
    try:
        return version(dist)
    except Exception:
        return "0+unknown"
