"""One scenario's result in words: its outcome, the answer read from the reply, the prompt, documents and cost."""

from __future__ import annotations

import json
from typing import Any, Mapping

from auditpacks.core.numbers import token_count
from auditpacks.core.registry import own_outcomes
from auditpacks.core.runs.run_files import is_error
from auditpacks.judges.base import last_reply
from auditpacks.judges.figures import WRONG, question_group
from auditpacks.judges.reader import Reader


def bad(word: str) -> bool:
    """Whether a verdict word is one the "wrong only" filter keeps: wrong, or a benchmark's own kind of wrong."""
    return word == WRONG or word in own_outcomes()


def answer(reader: Reader, result: Mapping[str, Any]) -> str:
    """What was read from the reply, in the words of the run's benchmark (its report module's ``answer``);
    else the judgment's summary."""
    judgment = result.get("judgment") or {}
    if is_error(result):
        return str(judgment.get("error") or "the scenario did not complete")
    said = reader.report.answer(judgment) if reader.report is not None else None
    return str(judgment.get("summary") or "") if said is None else said


def group(reader: Reader, scenario: Mapping[str, Any]) -> str:
    """The question (or target) a scenario belongs to, for per-question tables and filters."""
    return reader.report.group(scenario) if reader.report is not None else question_group(scenario, reader.question)


def answer_key(reader: Reader, result: Mapping[str, Any]) -> str:
    """What two runs must share to agree on a scenario: outcome and the answer read."""
    return f"{reader.outcome(result)}|{answer(reader, result)}"


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


def document_names(scenario: Mapping[str, Any], count: int, reader: Reader) -> list[str | None]:
    """What each of a scenario's ``count`` documents is called in its source: the document's own ``id`` or
    ``title``, else the source document its benchmark names (numbered when it has several documents); None:
    no name known."""
    named = reader.document(scenario)
    source = str(named) if named else None
    docs = scenario.get("documents") or []
    names: list[str | None] = []
    for i in range(count):
        doc = docs[i] if i < len(docs) else None
        own = next((str(doc[k]) for k in ("id", "title", "name") if doc.get(k)), None) if isinstance(doc, Mapping) \
            else None
        names.append(own or (source if count == 1 or source is None else f"{source} ({i + 1})"))
    return names


#: Shown after a reply that stopped at the output-token cap (its judgment's ``truncated``), for every benchmark.
CUT_MARK = "[stopped at the output-token cap: the answer may be cut short]"

#: The most characters of one reply a report shows (the results file keeps what the run stored).
MAX_REPORT_REPLY_CHARS = 20_000


def reply(result: Mapping[str, Any]) -> str:
    """The last reply, cut at :data:`MAX_REPORT_REPLY_CHARS` with a note; a decision model's structured
    answer is shown as JSON after its text; a reply stopped at the token cap ends with :data:`CUT_MARK`."""
    last = last_reply(result.get("conversation") or [])
    text = _text(last.get("content"))
    if len(text) > MAX_REPORT_REPLY_CHARS:
        text = (text[:MAX_REPORT_REPLY_CHARS] + f"\n[… {len(text) - MAX_REPORT_REPLY_CHARS} more characters in "
                "the results file]")
    if isinstance(last.get("decision"), Mapping):
        text += "\n" + json.dumps(last["decision"], ensure_ascii=False, sort_keys=True)
    if (result.get("judgment") or {}).get("truncated"):
        text += "\n" + CUT_MARK
    return text


def cost(result: Mapping[str, Any]) -> dict[str, int]:
    """Tokens spent on the scenario: the model's prompt and reply, and any judge or auditor calls."""
    def tokens(prefix: str) -> int:
        return sum(token_count(result.get(f"{prefix}_{kind}_tokens")) or 0 for kind in ("input", "output"))

    return {"input": token_count(result.get("target_input_tokens")) or 0,
            "output": token_count(result.get("target_output_tokens")) or 0,
            "judge": tokens("judge") + tokens("auditor")}
