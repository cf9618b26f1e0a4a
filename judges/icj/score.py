"""Scorer for the ICJ citation benchmark: ``auditpacks score icj --pred P --test T``.

Standard library only, like the benchmark's own ``score.py``. Each citation
family (cases, provisions, resolutions) is scored separately by exact set
matching; TP/FP/FN are pooled over the targets of one model/condition/round,
and the summary gives the mean and sample standard deviation (n-1) of
precision, recall and F1 across rounds. A zero denominator gives 0. Metrics are
computed exactly from the counts (``fractions.Fraction``); the only rounding is
the final conversion to float (and the square root of the variance).

The file formats and every choice the card leaves open are in ``docs/icj.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections import Counter
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

from auditpacks.core.errors import FormatError
from auditpacks.core.io import atomic_write_text, read_jsonl
from auditpacks.packs.icj.targets import (
    FAMILIES,
    PRED_FIELDS,
    Target,
    case_id_set,
    load_targets,
    required_str,
    string_list,
    validation_status,
)

METRICS = ("precision", "recall", "f1")


def prf(tp: int, fp: int, fn: int) -> tuple[Fraction, Fraction, Fraction]:
    """Exact precision, recall and F1; a zero denominator gives 0 (F1 = 2TP / (2TP + FP + FN))."""
    return (
        Fraction(tp, tp + fp) if tp + fp else Fraction(0),
        Fraction(tp, tp + fn) if tp + fn else Fraction(0),
        Fraction(2 * tp, 2 * tp + fp + fn) if tp else Fraction(0),
    )


def mean_std(values: Sequence[Fraction]) -> tuple[float, float | None]:
    """Mean and sample standard deviation (n-1); the deviation is null for a single round."""
    mean = sum(values, Fraction(0)) / len(values)
    if len(values) < 2:
        return float(mean), None
    variance = sum(((v - mean) ** 2 for v in values), Fraction(0)) / (len(values) - 1)
    return float(mean), math.sqrt(variance)


def _check_prediction(record: Any, label: str, targets: Mapping[str, Target]) -> tuple[tuple, Target, dict]:
    """Validate one prediction record; returns its group key, its target and its predicted sets."""
    if type(record) is not dict:
        raise FormatError(f"{label}: a {type(record).__name__}, not a JSON object")
    doc_id = required_str(record, "target_document_id", label)
    target = targets.get(doc_id)
    if target is None:
        raise FormatError(f"{label}: target_document_id {doc_id} is not a target in the test file")
    case_id = required_str(record, "case_id", label)
    if case_id != target.case_id:
        raise FormatError(f"{label}: case_id {case_id!r} does not match target {doc_id} (case {target.case_id})")
    model, condition = required_str(record, "model_id", label), required_str(record, "condition", label)
    rnd = record.get("round")
    if type(rnd) is not int or rnd < 1:
        raise FormatError(f"{label}: field round is {rnd!r}, not a positive integer")
    label = f"{label} ({model}/{condition}/round {rnd}, {doc_id})"
    prediction = record.get("prediction")
    if type(prediction) is not dict:
        state = "missing" if "prediction" not in record else f"a {type(prediction).__name__}, not an object"
        raise FormatError(f"{label}: field prediction is {state}")
    cases, provisions, resolutions = (string_list(prediction, PRED_FIELDS[f], f"{label} prediction") for f in FAMILIES)
    sets = {"case_ids": case_id_set(cases), "provision_keys": set(provisions), "resolution_symbols": set(resolutions)}
    return (model, condition, rnd), target, sets


def score(predictions: Iterable[Any], gold: Iterable[Target | Mapping[str, Any]], allow_partial: bool = False, *,
          source: str = "predictions", lines: Sequence[int] | None = None) -> dict[str, Any]:
    """Score prediction records against the test targets; raises :class:`FormatError` on bad input.

    ``lines`` gives each record's line number for error messages (else records are numbered).
    """
    targets: dict[str, Target] = {}
    for i, t in enumerate(gold):
        t = t if isinstance(t, Target) else Target.from_record(t, f"gold record #{i + 1}")
        targets[t.target_document_id] = t
    gold_sets = {d: {f: frozenset(t.gold[f]) for f in FAMILIES} for d, t in targets.items()}
    counts: dict[tuple, dict[str, list[int]]] = {}
    seen: dict[tuple, str] = {}
    statuses: Counter = Counter()
    n = 0
    for i, record in enumerate(predictions):
        label = f"{source} line {lines[i]}" if lines else f"{source} record #{i + 1}"
        key, target, sets = _check_prediction(record, label, targets)
        if (key, target.target_document_id) in seen:
            raise FormatError(
                f"{label}: duplicate answer for {'/'.join(map(str, key))} and {target.target_document_id} "
                f"(first at {seen[key, target.target_document_id]})"
            )
        seen[key, target.target_document_id] = label[len(source) + 1:]
        group = counts.setdefault(key, {f: [0, 0, 0] for f in FAMILIES})
        for family, gold_set in gold_sets[target.target_document_id].items():
            pred = sets[family]
            tp = len(pred & gold_set)
            tally = group[family]
            tally[0] += tp
            tally[1] += len(pred) - tp
            tally[2] += len(gold_set) - tp
        statuses[validation_status(record, label)] += 1
        n += 1
    if not n:
        raise FormatError(f"{source}: no prediction records; nothing to score")
    answered = Counter(key for key, _ in seen)
    for key, got in answered.items():
        if got < len(targets) and not allow_partial:
            missing = next(d for d in targets if (key, d) not in seen)
            raise FormatError(
                f"{source}: {'/'.join(map(str, key))} answers {got} of {len(targets)} targets "
                f"(first missing: {missing}); pass --allow-partial to score a subset"
            )
    return {
        "families": list(FAMILIES),
        "allow_partial": allow_partial,
        "targets": len(targets),
        "records": n,
        "validation": dict(sorted(statuses.items())),
        "results": _summarise(counts, answered, len(targets)),
    }


def _summarise(counts: Mapping[tuple, Mapping[str, list[int]]], answered: Counter, n_targets: int) -> dict:
    """model -> condition -> {rounds, answered, missing, family -> {tp, fp, fn, metric -> {mean, std, per_round}}}."""
    results: dict[str, dict[str, Any]] = {}
    for model, condition in sorted({key[:2] for key in counts}):
        rounds = sorted(key[2] for key in counts if key[:2] == (model, condition))
        keys = [(model, condition, r) for r in rounds]
        entry: dict[str, Any] = {
            "rounds": rounds,
            "answered": [answered[k] for k in keys],
            "missing": [n_targets - answered[k] for k in keys],
        }
        for family in FAMILIES:
            tallies = [counts[k][family] for k in keys]
            fam: dict[str, Any] = {name: [t[j] for t in tallies] for j, name in enumerate(("tp", "fp", "fn"))}
            per_round = [prf(*t) for t in tallies]
            for j, metric in enumerate(METRICS):
                values = [m[j] for m in per_round]
                mean, std = mean_std(values)
                fam[metric] = {"mean": mean, "std": std, "per_round": [float(v) for v in values]}
            entry[family] = fam
        results.setdefault(model, {})[condition] = entry
    return results


def score_files(pred_path: str | os.PathLike, test_path: str | os.PathLike, allow_partial: bool = False) -> dict:
    """Read both files and score them."""
    targets = load_targets(test_path)
    rows = read_jsonl(pred_path)
    return score(
        [r for _, r in rows], targets, allow_partial,
        source=os.path.basename(pred_path), lines=[n for n, _ in rows],
    )


def format_table(scores: Mapping[str, Any]) -> str:
    """A plain-text table: one line per model/condition, F1 mean ± std per family."""
    lines = [f"{'model':<28} {'condition':<20} {'rounds':>6}  " + "  ".join(f"{f + ' F1':>22}" for f in FAMILIES)]
    for model, conditions in scores["results"].items():
        for condition, entry in conditions.items():
            cells = []
            for family in FAMILIES:
                f1 = entry[family]["f1"]
                std = "n/a" if f1["std"] is None else f"{f1['std']:.4f}"
                cells.append(f"{f1['mean']:.4f} ± {std}".rjust(22))
            note = f"  ({sum(entry['missing'])} missing)" if any(entry["missing"]) else ""
            lines.append(f"{model:<28} {condition:<20} {len(entry['rounds']):>6}  " + "  ".join(cells) + note)
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pred", required=True, help="predictions.jsonl (one record per model/condition/round/target)")
    parser.add_argument("--test", required=True, help="data/test.jsonl with the reference citations")
    parser.add_argument("--allow-partial", action="store_true", help="score a subset; report missing targets")
    parser.add_argument("--out", help="also write the scores as JSON here (--json: print them)")


def main(args: argparse.Namespace) -> int:
    """``auditpacks score icj``: print the figures' table (and write the scores as JSON with --out)."""
    scores = score_files(args.pred, args.test, args.allow_partial)
    print(format_table(scores))
    line = f"{scores['records']} records, {scores['targets']} targets; validation {scores['validation']}"
    if args.out:
        atomic_write_text(args.out, json.dumps(scores, indent=2) + "\n")
        if not getattr(args, "json", False):  # with --json the scores go to stdout (and --out) from the command
            line += f"; wrote {args.out}"
    print(line)
    return 0
