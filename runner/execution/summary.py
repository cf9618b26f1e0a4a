"""The run file and its summary: what ran, how, how much of it answered, and the grader's headline figures."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from importlib.metadata import version
from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import urlsplit, urlunsplit

from simpleaudit import AuditResult, AuditResults

if TYPE_CHECKING:
    from auditpacks.packs.pack import Pack
    from auditpacks.runner.execution.config import RunConfig


def summarize(
    scenarios: list[dict[str, Any]],
    results: list[dict[str, Any]],
    headline: Mapping[str, Any],
    *,
    skipped: Mapping[str, int] | None = None,
    resumed: int = 0,
    notes: list[str] | None = None,
) -> dict[str, Any]:
    """Counts over the run plus the judge's pooled figures, as a JSON-ready dict (``notes``: lines worth
    reading, such as a decision batch that fell back to single questions; only when there are some)."""
    audit = AuditResults([AuditResult(**r) for r in results])
    verdicts = Counter(str(r.get("severity")) for r in results)
    errors = verdicts.get("ERROR", 0)
    summary: dict[str, Any] = {
        "scenarios": len(scenarios),
        "completed": len(results) - errors,
        "errors": errors,
        "completion": round((len(results) - errors) / len(scenarios), 4) if scenarios else 0.0,
        "verdicts": dict(sorted(verdicts.items())),
        "simpleaudit_score": audit.score,
        "skipped": dict(skipped or {}),
        "resumed": resumed,
        "tokens": audit.token_usage,
        "headline": dict(headline),
    }
    if notes:
        summary["notes"] = list(notes)
    return summary


def performance_record(config: "RunConfig", *, documents: int, target_stats: Mapping[str, Any] | None) -> dict[str, Any]:
    """How the run saved work: prompt order, document scheduling, slot pinning, batching, server prefill."""
    return {"prompt_order": config.prompt_order, "scheduling": "by document", "documents": documents,
            "concurrency": config.concurrency, "slot_pinning": config.slot_pinning, **dict(target_stats or {})}


def run_record(config: "RunConfig", pack: "Pack", *, model: str, base_url: str | None, judge: str,
               started: dt.datetime, seconds: float, embedded: bool, summary: dict[str, Any],
               fingerprint: str, digest: str | None = None, shard: dict[str, Any] | None = None,
               cache: dict[str, int] | None = None, performance: dict[str, Any] | None = None,
               models: dict[str, Any] | None = None) -> dict[str, Any]:
    """The sidecar run file: everything simpleaudit's results file leaves out (never a key)."""
    manifest = pack.manifest or {}
    return {
        "auditpacks": _version("auditpacks"),
        "simpleaudit": version("simpleaudit"),
        "pack": {"name": pack.path.name, "sha256": pack.sha256, "builder": manifest.get("builder"),
                 "scenarios_in_pack": len(pack.scenarios)},
        "model": model,
        "model_digest": digest,
        "provider": "decision:" + config.decision if config.decision else config.provider,
        "base_url": public_url(base_url),
        "embedded": embedded,
        "judge": judge,
        "judge_model": config.judge_model,
        "models": models or {"judge": None, "auditor": None},   # judge and auditor: settings, requests, tokens
        "parameters": config.public(),
        "fingerprint": fingerprint,
        "shard": shard,
        "cache": cache,
        "performance": performance,
        "seed": config.seed,
        "repeat": 1,
        "started": started.replace(microsecond=0).isoformat(),
        "seconds": round(seconds, 2),
        "summary": summary,
    }


def public_url(url: str | None) -> str | None:
    """``url`` without any user name or password in it."""
    if not url:
        return url
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _version(dist: str) -> str:
    try:
        return version(dist)
    except Exception:
        return "0+unknown"


def format_summary(run: Mapping[str, Any]) -> str:
    """Plain lines for the terminal."""
    s = run["summary"]
    lines = [
        f"pack        {run['pack']['name']} (sha256 {run['pack']['sha256'][:12]}…)",
        f"model       {run['model']} via {run['provider']}" + (f" at {run['base_url']}" if run.get("base_url") else ""),
        f"judge       {run['judge']}" + _judge_model((run.get("models") or {}).get("judge")),
        f"scenarios   {s['scenarios']} run, {s['completed']} completed, {s['errors']} errors"
        + "".join(f", {n} skipped ({why})" for why, n in s["skipped"].items())
        + (f" ({s['resumed']} reused from the journal)" if s.get("resumed") else ""),
        f"completion  {s['completion']:.1%}",
        "verdicts    " + ", ".join(f"{k} {v}" for k, v in s["verdicts"].items()),
    ]
    lines.extend(_performance_lines(run.get("performance")))
    for key, value in s["headline"].items():
        lines.append(f"{key:<11} {_fmt(value)}")
    lines.extend(f"note        {note}" for note in s.get("notes", []))
    return "\n".join(lines)


def _judge_model(judge: Mapping[str, Any] | None) -> str:
    if not judge:
        return ""
    return (f" by {judge['model']} ({judge['provider']}; {judge['requests']} requests, {judge['cache_hits']} "
            f"from the cache)")


def _performance_lines(perf: Mapping[str, Any] | None) -> list[str]:
    if not perf:
        return []
    lines = []
    if perf.get("prompt_order"):
        lines.append(f"prompts     {perf['prompt_order']}, {perf.get('documents', 0)} documents run"
                     + (", llama.cpp slots pinned" if perf.get("slot_pinning") else ""))
    tokens = perf.get("server_prompt_tokens")
    if tokens:
        lines.append(f"prefill     {tokens['prompt_n']} prompt tokens evaluated, {tokens['cache_n']} reused "
                     f"from the server's cache ({tokens['requests']} requests)")
    batching = perf.get("decision_batching")
    if batching:
        sizes = ", ".join(f"{n}×{size}" for size, n in batching["batch_sizes"].items()) or "none"
        lines.append(f"batching    {batching['requests']} decision requests: batches {sizes}; "
                     f"{batching['single_calls']} single")
    return lines


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_fmt(v)}" for k, v in value.items())
    return str(value)
