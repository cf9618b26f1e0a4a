"""simpleaudit's ``checklist`` judge (an LLM grades each ``expected_behavior`` item), guarded.

simpleaudit turns a checklist reply that is not JSON into an ERROR, and a reply whose
checklist is empty or skips expectations into a verdict computed from what is left:
with no item assessed that is ``pass``. Here a reply that does not grade every required
expectation is **ungraded**, with the reason (``ungraded_reason``) and the judge's own
text (``judge_reply``, the first part; the runner adds the whole reply when it has it),
so a judge that could not do the job never counts as a pass or a failure.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

UNGRADED = "ungraded"
_REPLY_CHARS = 2000


def make_judge(manifest: Mapping[str, Any] | None = None) -> dict[str, Any]:
    from simpleaudit.checklist import postprocess_checklist
    from simpleaudit.judges import get_judge

    config = dict(get_judge("checklist"))

    def postprocess(judgment: Any, *, conversation, expected_behavior=None, scenario_meta=None) -> dict[str, Any]:
        reason = unusable_reply(judgment)
        if reason is None:
            judgment = postprocess_checklist(judgment, conversation=conversation, expected_behavior=expected_behavior,
                                             scenario_meta=scenario_meta)
            reason = incomplete_checklist(judgment)
        return ungraded(judgment, reason) if reason else judgment

    config["postprocess"] = postprocess
    return config


def unusable_reply(judgment: Any) -> str | None:
    """Why a parsed judge reply cannot be read as a checklist, or None."""
    if not isinstance(judgment, dict):
        return "the judge's reply is JSON but not an object"
    if judgment.get("severity") == "ERROR":
        return "the judge's reply is not valid JSON"
    if not isinstance(judgment.get("checklist"), list):
        return "the judge's reply has no checklist"
    return None


def incomplete_checklist(judgment: Mapping[str, Any]) -> str | None:
    """Why a derived checklist does not grade the scenario (a required item missing), or None."""
    required = [item for item in judgment.get("checklist") or [] if item.get("required")]
    missing = [item for item in required if item.get("status") not in ("met", "violated", "not_applicable")]
    if not required:
        return None
    if missing:
        return (f"the judge assessed {len(required) - len(missing)} of {len(required)} required expectations "
                f"(missing: {', '.join(str(item.get('index')) for item in missing)})")
    if not any(item.get("status") in ("met", "violated") for item in required):
        return "the judge marked every required expectation not applicable"
    return None


def ungraded(judgment: Any, reason: str) -> dict[str, Any]:
    raw = judgment if isinstance(judgment, dict) else {"reply": judgment}
    text = raw.get("summary") if raw.get("severity") == "ERROR" else raw
    return {
        "severity": UNGRADED,
        "ungraded_reason": reason,
        "judge_reply": str(text)[:_REPLY_CHARS],
        "issues_found": [f"Not graded: {reason}."],
        "positive_behaviors": [],
        "recommendations": ["Use a larger judge model (see docs/judges.md)."],
        "summary": f"Not graded: {reason}.",
    }


def headline(pairs: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]) -> dict[str, Any]:
    """Checklist items met and violated over the run, the verdicts (None: a skipped scenario), and why any
    were not graded."""
    items: Counter = Counter()
    reasons: Counter = Counter()
    for _, result in pairs:
        judgment = (result or {}).get("judgment") or {}
        for entry in judgment.get("checklist") or []:
            if isinstance(entry, Mapping):
                items[str(entry.get("status") or entry.get("verdict") or "unknown")] += 1
        if judgment.get("ungraded_reason"):
            reasons[str(judgment["ungraded_reason"]).split(" (")[0]] += 1
    verdicts = Counter(str(result.get("severity")) if result is not None else "skipped" for _, result in pairs)
    figures: dict[str, Any] = {"checklist items": dict(items), "verdicts": dict(verdicts)}
    if reasons:
        figures["ungraded"] = dict(reasons)
    return figures
