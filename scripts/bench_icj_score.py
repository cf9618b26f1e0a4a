"""Time the ICJ scorer on a published-size run: 199 targets x 45 answers (5 models x 3 conditions x 3 rounds).

    python scripts/bench_icj_score.py [--seed 0] [--repeat 3]

Writes synthetic ``test.jsonl`` and ``predictions.jsonl`` (8,955 records) to a
temporary folder, then times reading and scoring them with
``judges.icj_score.score_files`` against a naive per-record, list-based
implementation of the same pooled counts, checks that both agree, and prints
both times and their ratio. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from auditpacks.judges.icj.score import score_files

from auditpacks.packs.icj.targets import FAMILIES, GOLD_FIELDS, PRED_FIELDS, normalise_case_id

MODELS = ["gpt-5.6-luna", "deepseek-v4-flash-0731", "deepseek-v4.1-flash", "muse-spark-1.3-contributor", "gpt-5-mini"]
CONDITIONS = ["parametric", "cypher_semantic", "designed_tools"]
ROUNDS = [1, 2, 3]


def pools(rng: random.Random) -> dict[str, list[str]]:
    """Citation strings in the benchmark's shapes."""
    resolutions = [f"A/RES/{n}({rng.choice(['II', 'V', 'XXV', 'XXIX'])})" for n in range(100, 3400, 17)]
    resolutions += [f"A/RES/{s}/{n}" for s in range(31, 80) for n in range(1, 6)]
    resolutions += [f"S/RES/{n} ({1946 + n // 40})" for n in range(1, 2700, 11)]
    return {
        "case_ids": [f"{n:03d}" for n in range(1, 200) if n != 2],
        "provision_keys": [f"{i}:article_{n}" for i, top in (("statute", 70), ("charter", 111), ("rules", 109))
                           for n in range(1, top + 1)],
        "resolution_symbols": resolutions,
    }


def make_data(folder: Path, rng: random.Random) -> tuple[Path, Path]:
    pool = pools(rng)
    sizes = {"case_ids": 25, "provision_keys": 59, "resolution_symbols": 35}
    gold = []
    for n in range(1, 200):
        date = f"{rng.randrange(1948, 2026)}-0{rng.randrange(1, 10)}-1{rng.randrange(0, 10)}"
        row = {"case_id": f"{n:03d}", "target_document_id": f"ICJ_{n:03d}_Case{n}_AAA_BBB_{date}_JUD_01_ME_00_EN",
               "target_decision_date": date + "T00:00:00", "citation_eligible": True}
        for f in FAMILIES:
            row[GOLD_FIELDS[f]] = sorted(rng.sample(pool[f], rng.randrange(0, sizes[f] + 1)))
        gold.append(row)
    test = folder / "test.jsonl"
    test.write_text("".join(json.dumps(r) + "\n" for r in gold))
    lines = []
    for model in MODELS:
        for condition in CONDITIONS:
            for rnd in ROUNDS:
                for row in gold:
                    prediction = {}
                    for f in FAMILIES:
                        right = [g for g in row[GOLD_FIELDS[f]] if rng.random() < 0.5]
                        prediction[PRED_FIELDS[f]] = right + rng.sample(pool[f], rng.randrange(0, 6))
                    lines.append(json.dumps({"case_id": row["case_id"], "target_document_id": row["target_document_id"],
                                             "model_id": model, "condition": condition, "round": rnd,
                                             "prediction": prediction, "validation": {"status": "valid"}}))
    pred = folder / "predictions.jsonl"
    pred.write_text("\n".join(lines) + "\n")
    return pred, test


def naive_counts(pred: Path, test: Path) -> dict:
    """The baseline: lists everywhere, a linear search per record, a list of seen keys for duplicates."""
    gold = [json.loads(line) for line in test.read_text().splitlines() if line.strip()]
    seen, counts = [], {}
    for line in pred.read_text().splitlines():
        record = json.loads(line)
        key = (record["model_id"], record["condition"], record["round"], record["target_document_id"])
        if key in seen:
            raise ValueError(f"duplicate {key}")
        seen.append(key)
        target = next(g for g in gold if g["target_document_id"] == record["target_document_id"])
        group = counts.setdefault(key[:3], {f: [0, 0, 0] for f in FAMILIES})
        for f in FAMILIES:
            predicted, reference = [], []
            for value in record["prediction"][PRED_FIELDS[f]]:
                value = normalise_case_id(value) if f == "case_ids" else value
                if value not in predicted:
                    predicted.append(value)
            for value in target[GOLD_FIELDS[f]]:
                value = normalise_case_id(value) if f == "case_ids" else value
                if value not in reference:
                    reference.append(value)
            tp = sum(1 for value in predicted if value in reference)
            group[f][0] += tp
            group[f][1] += len(predicted) - tp
            group[f][2] += len(reference) - tp
    return counts


def best_of(repeat: int, fn, *args):
    """Best wall-clock and best CPU seconds over ``repeat`` runs, and the last result."""
    wall, cpu, result = [], [], None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn(*args)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return (min(wall), min(cpu)), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="runs per implementation; the best time is shown")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pred, test = make_data(Path(tmp), random.Random(args.seed))
        ours_s, scores = best_of(args.repeat, score_files, pred, test)
        naive_s, naive = best_of(args.repeat, naive_counts, pred, test)
    for (model, condition, rnd), families in naive.items():
        entry = scores["results"][model][condition]
        i = entry["rounds"].index(rnd)
        for f, (tp, fp, fn) in families.items():
            assert (entry[f]["tp"][i], entry[f]["fp"][i], entry[f]["fn"][i]) == (tp, fp, fn), (model, condition, rnd, f)
    print(f"records: {scores['records']} ({scores['targets']} targets x {len(MODELS)} models x "
          f"{len(CONDITIONS)} conditions x {len(ROUNDS)} rounds); counts agree")
    print(f"{'':<48} {'wall s':>8} {'CPU s':>8}")
    print(f"{'auditpacks score icj (read + validate + score)':<48} {ours_s[0]:8.3f} {ours_s[1]:8.3f}")
    print(f"{'naive per-record list baseline (counts only)':<48} {naive_s[0]:8.3f} {naive_s[1]:8.3f}")
    print(f"{'ratio (baseline / ours)':<48} {naive_s[0] / ours_s[0]:8.1f} {naive_s[1] / ours_s[1]:8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
