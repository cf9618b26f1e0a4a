"""One scenario's result in words: its outcome, the answer read from the reply, the prompt, documents and cost."""

from __future__ import annotations

import json
from typing import Any, Mapping

from auditpacks.judges.base import last_reply
from auditpacks.judges.figures import OUTCOMES
from auditpacks.judges.figures import outcome as verdict_word

#: The summary's verdict words; ``BAD`` are the ones the "wrong only" filter keeps.
CORRECT, WRONG, INVENTED, UNGRADED, ERROR = OUTCOMES
BAD = {WRONG, INVENTED}


def outcome(kind: str, result: Mapping[str, Any]) -> str:
    """The run summary's verdict word (correct, wrong, invented, ungraded, error); an ERROR judgment counts."""
    if (result.get("judgment") or {}).get("severity") == "ERROR":
        return ERROR
    return verdict_word(result)


def answer(kind: str, result: Mapping[str, Any]) -> str:
    """What was read from the reply: the chosen option, the cited articles or the predicted citations."""
    judgment = result.get("judgment") or {}
    if judgment.get("severity") == "ERROR" or result.get("severity") == "ERROR":
        return str(judgment.get("error") or "the scenario did not complete")
    if kind == "choice":
        choice = judgment.get("choice")
        how = judgment.get("choice_method") or judgment.get("choice_source")
        return ("no choice read" if choice is None else f"chose {choice}") + (f" ({how})" if how else "")
    if kind == "jacite" and "cited" in judgment:
        cited = ", ".join(judgment.get("cited") or []) or "none"
        invented = ", ".join(judgment.get("invented") or [])
        return f"cited {cited}" + (f"; invented {invented}" if invented else "")
    if kind == "icj" and isinstance(judgment.get("prediction"), Mapping):
        parts = [f"{k.removeprefix('citation_').replace('_', ' ')}: {', '.join(v) or 'none'}"
                 for k, v in judgment["prediction"].items() if isinstance(v, list)]
        return "; ".join(parts) + f" (F1 {_num(judgment.get('f1_all'))})"
    return str(judgment.get("summary") or "")


def group(kind: str, scenario: Mapping[str, Any]) -> str:
    """The question (or target) a scenario belongs to, for per-question tables and filters."""
    meta = scenario.get("metadata") or {}
    if kind == "icj":
        return str(meta.get("case_id") or scenario.get("name"))
    question = meta.get("question_id") or (scenario.get("decision") or {}).get("id")
    return str(question or scenario.get("category") or "all")


def answer_key(kind: str, result: Mapping[str, Any]) -> str:
    """What two runs must share to agree on a scenario: outcome and the answer read."""
    return f"{outcome(kind, result)}|{answer(kind, result)}"


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(p.get("text", "") if isinstance(p, Mapping) else str(p) for p in content)
    return "" if content is None else str(content)


def prompt(scenario: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    """The first user turn as sent (the scenario's test_prompt when the transcript is empty)."""
    first = next((m for m in result.get("conversation") or [] if m.get("role") == "user"), None)
    return _text(first.get("content")) if first else str(scenario.get("test_prompt") or "")


def documents(scenario: Mapping[str, Any], result: Mapping[str, Any]) -> list[str]:
    """The documents given with the prompt, as text."""
    first = next((m for m in result.get("conversation") or [] if m.get("role") == "user"), {}) or {}
    docs = first.get("documents") or scenario.get("documents") or []
    return [d.get("text", "") if isinstance(d, Mapping) else str(d) for d in docs]


def reply(result: Mapping[str, Any]) -> str:
    """The last reply; a decision model's structured answer is shown as JSON after its text."""
    last = last_reply(result.get("conversation") or [])
    text = _text(last.get("content"))
    if isinstance(last.get("decision"), Mapping):
        text += "\n" + json.dumps(last["decision"], ensure_ascii=False, sort_keys=True)
    return text


def cost(result: Mapping[str, Any]) -> dict[str, int]:
    """Tokens spent on the scenario: the model's prompt and reply, and any judge or auditor calls."""
    def tokens(prefix: str) -> int:
        return int(result.get(f"{prefix}_input_tokens") or 0) + int(result.get(f"{prefix}_output_tokens") or 0)

    return {"input": int(result.get("target_input_tokens") or 0),
            "output": int(result.get("target_output_tokens") or 0),
            "judge": tokens("judge") + tokens("auditor")}


def _num(value: Any) -> str:
    return "n/a" if value is None else f"{value:.3f}"
