"""Citation grader for ICJ citation prediction: parse the JSON answer, count TP/FP/FN per family.

The answer asked for is one JSON object with ``citation_case_ids``,
``citation_provision_keys`` and ``citation_resolution_symbols`` (lists of
strings). :func:`parse_prediction` finds it in a reply (code fences, text
around it, a ``<think>`` block); anything it cannot read becomes an empty list
with the validation issue recorded, as the benchmark's "partial" answers do.
The judgment keeps the identifiers, the parsed prediction and the counts, so a
run can be exported and scored from its results file alone.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from functools import partial
from typing import Any, Iterable, Mapping

from auditpacks.core.reasoning import strip_reasoning
from auditpacks.core.runs.run_files import is_error
from auditpacks.judges.base import code_judge, designed_severity, last_reply
from auditpacks.judges.icj.score import prf
from auditpacks.judges.icj.truncation import is_truncated, salvage
from auditpacks.packs.icj.targets import (
    FAMILIES,
    GOLD_FIELDS,
    PRED_FIELDS,
    normalise_case_id,
)

NAME = "citations"
#: Used when the pack manifest records no ``grading.pass_f1`` (the builder copies codebook.yaml's value).
DEFAULT_PASS_F1 = 0.5
EMPTY_ANSWER_HINT = "Reply with one JSON object holding the three citation lists."

_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.S)


def _objects(text: str) -> Iterable[dict]:
    """JSON objects in ``text``: fenced blocks first, then every decodable ``{...}`` left to right."""
    decoder = json.JSONDecoder()
    for chunk in [*_FENCE.findall(text), text]:
        start = chunk.find("{")
        while start != -1:
            try:
                value, end = decoder.raw_decode(chunk, start)
            except json.JSONDecodeError:
                start = chunk.find("{", start + 1)
                continue
            if isinstance(value, dict):
                yield value
                yield from (v for v in value.values() if isinstance(v, dict))
            start = chunk.find("{", end)


def _read_list(answer: Mapping[str, Any], family: str, issues: list[str]) -> list[str]:
    key = PRED_FIELDS[family]
    if key not in answer:
        issues.append(f"missing field {key}")
        return []
    value = answer[key]
    if isinstance(value, str):
        issues.append(f"{key} is a string, not a list; read as one citation")
        value = [value]
    elif not isinstance(value, list):
        issues.append(f"{key} is {json.dumps(value)[:40]}, not a list")
        return []
    out: list[str] = []
    for i, item in enumerate(value):
        if family == "case_ids" and type(item) is int:
            issues.append(f"{key}[{i}] is the number {item}, not a string")
            item = str(item)
        if not isinstance(item, str):
            issues.append(f"{key}[{i}] is {json.dumps(item)[:40]}, not a string; dropped")
            continue
        item = normalise_case_id(item) if family == "case_ids" else item
        if item not in out:
            out.append(item)
    return out


def parse_prediction(text: Any) -> tuple[dict[str, list[str]], list[str]]:
    """The prediction in a reply and its validation issues (an empty list means a valid answer)."""
    empty = {PRED_FIELDS[f]: [] for f in FAMILIES}
    text = strip_reasoning(text) if isinstance(text, str) else ""
    if not text:
        return empty, ["empty reply"]
    objects = list(_objects(text))
    if not objects:
        return empty, ["invalid or truncated JSON object in the reply" if "{" in text else "no JSON object in the reply"]
    answer = next((o for o in objects if any(k in o for k in empty)), None)
    if answer is None:
        return empty, ["the JSON object has none of the citation fields"]
    issues: list[str] = []
    return {PRED_FIELDS[f]: _read_list(answer, f, issues) for f in FAMILIES}, issues


TRUNCATED_ISSUE = "the reply was cut off at the output-token limit; citations after the cut are lost"


def read_answer(text: Any, finish_reason: Any = None) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """The prediction and its validation {status, issues}: ``valid``, ``partial`` (readable with issues)
    or ``truncated`` (cut off at the token limit; what was written before the cut is kept)."""
    prediction, issues = parse_prediction(text)
    body = strip_reasoning(text) if isinstance(text, str) else ""
    if not is_truncated(body, finish_reason):
        return prediction, {"status": "partial" if issues else "valid", "issues": issues}
    if not any(prediction.values()):
        rescued = salvage(body)
        if rescued is not None and any(k in rescued for k in prediction):
            issues = []
            prediction = {PRED_FIELDS[f]: _read_list(rescued, f, issues) for f in FAMILIES}
    return prediction, {"status": "truncated", "issues": [TRUNCATED_ISSUE, *issues]}


def family_counts(predicted: Iterable[str], gold: Iterable[str]) -> dict[str, int]:
    """TP/FP/FN by exact set matching (duplicates count once)."""
    pred, ref = set(predicted), set(gold)
    tp = len(pred & ref)
    return {"tp": tp, "fp": len(pred) - tp, "fn": len(ref) - tp}


def _gold(meta: Mapping[str, Any]) -> dict[str, list[str]] | None:
    lists = {f: meta.get(GOLD_FIELDS[f]) for f in FAMILIES}
    if not all(isinstance(v, list) for v in lists.values()):
        return None
    lists["case_ids"] = [normalise_case_id(str(c)) for c in lists["case_ids"]]
    return lists


def citation_verdict(
    scenario: Mapping[str, Any], reply: Mapping[str, Any], *, pass_f1: float = DEFAULT_PASS_F1
) -> dict[str, Any]:
    """Per-scenario judgment: counts per family, the parsed prediction and a severity.

    Severity: ``pass`` for a valid answer whose F1 pooled over the three
    families is at least ``pass_f1`` (or that cites nothing where the reference
    lists are empty); otherwise the scenario's designed severity.
    """
    meta = scenario.get("metadata") or {}
    gold = _gold(meta)
    ids = {k: meta.get(k) for k in ("case_id", "target_document_id", "condition")}
    if gold is None:
        note = "The scenario carries no gold citation lists; not graded."
        return {"severity": "ungraded", **ids, "summary": note, "issues_found": [], "positive_behaviors": [],
                "recommendations": []}
    prediction, validation = read_answer(reply.get("content"), reply.get("finish_reason"))
    issues = validation["issues"]
    counts = {f: family_counts(prediction[PRED_FIELDS[f]], gold[f]) for f in FAMILIES}
    tp, fp, fn = (sum(c[k] for c in counts.values()) for k in ("tp", "fp", "fn"))
    f1_all = float(prf(tp, fp, fn)[2]) if tp + fp + fn else None
    designed = designed_severity(scenario)
    passed = not issues and (f1_all is None or f1_all >= pass_f1)
    shown = "n/a (nothing to cite, nothing cited)" if f1_all is None else f"{f1_all:.3f}"
    misses = [f"{c['fp']} unmatched and {c['fn']} missed {f.replace('_', ' ')}" for f, c in counts.items()
              if c["fp"] or c["fn"]]
    return {
        "severity": "pass" if passed else designed,
        "designed_severity": designed,
        **ids,
        "prediction": prediction,
        "validation": validation,
        "counts": counts,
        "f1_all": f1_all,
        "pass_f1": pass_f1,
        "summary": f"TP {tp}, FP {fp}, FN {fn}; F1 over all families {shown}; "
                   f"{'pass' if passed else 'rated ' + designed}.",
        "issues_found": issues + misses,
        "positive_behaviors": [f"{c['tp']} correct {f.replace('_', ' ')}" for f, c in counts.items() if c["tp"]],
        "recommendations": [EMPTY_ANSWER_HINT] if issues else [],
    }


def make_judge(manifest: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The simpleaudit judge config; the pass threshold comes from the pack manifest's ``grading``."""
    grading = (manifest or {}).get("grading") or {}
    pass_f1 = float(grading.get("pass_f1", DEFAULT_PASS_F1))
    description = (
        "Exact set match of the predicted ICJ citations (cases, provisions, UN resolutions) against the "
        f"reference lists; per-family TP/FP/FN in the judgment; pass at pooled F1 >= {pass_f1}."
    )
    return code_judge(NAME, description, partial(citation_verdict, pass_f1=pass_f1))


def headline(pairs: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> dict[str, Any]:
    """Pooled P/R/F1 per family over a run (None where nothing divides: no citation given, none in the
    reference) with F1's interval over targets, and valid/partial/truncated/error/skipped counts.

    ``pairs`` are (scenario, saved result dict). A result graded by another judge
    is re-graded here from its last reply; ERROR results are counted, not scored.
    """
    totals = {f: Counter() for f in FAMILIES}
    per_target: dict[str, dict[str, Counter]] = {}   # the clusters of the F1 interval
    tally: Counter = Counter()
    for scenario, result in pairs:
        tally["scenarios"] += 1
        if result is None:  # skipped before it ran: no answer
            tally["skipped"] += 1
            continue
        judgment = result.get("judgment") or {}
        if is_error(result):
            tally["errors"] += 1
            continue
        if "counts" not in judgment:
            judgment = citation_verdict(scenario, last_reply(result.get("conversation") or []))
        if "counts" not in judgment:
            tally["ungraded"] += 1
            continue
        tally["scored"] += 1
        tally[judgment["validation"]["status"]] += 1
        tally["passed"] += judgment["severity"] == "pass"
        cells = per_target.setdefault(target_of(scenario), {f: Counter() for f in FAMILIES})
        for family in FAMILIES:
            totals[family].update(judgment["counts"][family])
            cells[family].update(judgment["counts"][family])
    out: dict[str, Any] = {k: tally[k] for k in ("scenarios", "scored", "valid", "partial", "truncated", "errors",
                                                 "skipped", "ungraded", "passed")}
    for family, c in totals.items():
        tp, fp, fn = c["tp"], c["fp"], c["fn"]
        p, r, f1 = prf(tp, fp, fn)
        out[family] = {"tp": tp, "fp": fp, "fn": fn,   # 0/0 is undefined (None), not 0
                       "precision": float(p) if tp + fp else None, "recall": float(r) if tp + fn else None,
                       "f1": float(f1) if tp + fp + fn else None,
                       "f1_bootstrap95": f1_interval([per_target[t][family] for t in sorted(per_target)])}
    return out


def target_of(scenario: Mapping[str, Any]) -> str:
    """The target a scenario predicts the citations of (the bootstrap's cluster)."""
    return (scenario.get("metadata") or {}).get("target_document_id") or scenario["name"]


def f1_interval(targets: list[Mapping[str, int]]) -> list[float] | None:
    """The 95% percentile interval of the pooled F1 (2TP / (2TP + FP + FN)), resampling targets (B = 2,000,
    seed 0); None when there is nothing to divide."""
    from auditpacks.judges.statistics.stats import ratio_bootstrap

    _, low, high = ratio_bootstrap([2 * c["tp"] for c in targets], [2 * c["tp"] + c["fp"] + c["fn"] for c in targets])
    return [low, high] if math.isfinite(low) and math.isfinite(high) else None
