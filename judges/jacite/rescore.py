"""Re-score a published jacite-bench benchmark.json and print the card's tables.

``auditpacks rescore jacite BENCHMARK.json [--registry REGISTRY.json] [--mode full|upstream]
[--deleted-as real|invented] [--out RESCORED.json] [--summary SUMMARY.json]``

Each row's ``response`` is extracted again and checked against the registry with the
same extractor a run's ``grounding`` judge uses by default (``full``; ``--mode upstream``
reproduces the published figures); the first-release fields (``*_v1``) are kept (filled
from the row's own fields when absent). Printed per model and language: first release
vs corrected invented counts, rate with Wilson and question-level bootstrap 95%
intervals, the real-but-not-gold rate with its Wilson interval, gold hits; then
Fisher's exact test Japanese vs English. Every output names the extractor.
"""

from __future__ import annotations

import argparse
import ast
from collections import defaultdict
from pathlib import Path
from typing import Any, Mapping

from auditpacks.core.errors import PackError
from auditpacks.core.io import atomic_write_json, read_json
from auditpacks.judges.jacite.grounding import ground_reply, pooled
from auditpacks.judges.statistics.stats import fisher_exact_2x2, ratio_bootstrap, wilson_interval
from auditpacks.packs.jacite.citations import extract_citations_v1
from auditpacks.packs.jacite.numerals import DEFAULT_MODE, MODES
from auditpacks.packs.jacite.registry import DELETED_AS, LawIndex, load_registry
from auditpacks.packs.jacite.source import join_law

#: Fields a row must carry; ``model``, ``language`` and ``id`` are optional, and the law joins on
#: ``law_id``, else on its name (``law``), else on the registry's only law.
REQUIRED = ("gold_article",)
LANGUAGE_ORDER = {"ja": 0, "en": 1}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("benchmark", type=Path, help="a jacite-bench benchmark.json (list of response rows)")
    parser.add_argument("--registry", type=Path,
                        help="a jacite registry.json (default: the bundled 民法 text, packs/data/minpo.json)")
    parser.add_argument("--mode", choices=MODES, default=DEFAULT_MODE,
                        help=f"extractor: ours (full) or jacite-bench's published one (upstream); default "
                             f"{DEFAULT_MODE}, the one a run's grounding judge uses")
    parser.add_argument("--deleted-as", choices=DELETED_AS, default="real",
                        help="how a citation of a deleted placeholder article counts (default real, as published)")
    parser.add_argument("--out", type=Path, help="write the re-scored rows here (JSON list)")
    parser.add_argument("--summary", type=Path,
                        help="write the pooled figures per model and language here (the run summary's shape)")


def main(args: argparse.Namespace) -> int:
    rows = load_benchmark(args.benchmark)
    registry = load_registry(args.registry)
    rescored = rescore_rows(rows, registry, mode=args.mode, deleted_as=args.deleted_as, name=args.benchmark.name)
    source = args.registry.name if args.registry else "bundled 民法 text"
    if args.out:
        atomic_write_json(args.out, rescored)
    if args.summary:
        atomic_write_json(args.summary, summary(rescored, mode=args.mode, deleted_as=args.deleted_as, registry=source))
    print(f"{args.benchmark.name}: {len(rescored)} rows, {args.mode} extractor, registry {source}, "
          f"deleted placeholders count as {args.deleted_as}")
    print(format_tables(aggregate(rescored)))
    same = sum(extract_citations_v1(r["response"]) == r["cited_v1"] for r in rescored)
    print(f"\nFirst-release extractor reproduces the recorded cited_v1 in {same}/{len(rescored)} rows.")
    for path in (args.out, args.summary):
        if path:
            print(f"wrote {path}")
    return 0


def summary(rows: list[dict[str, Any]], *, mode: str, deleted_as: str, registry: str) -> dict[str, Any]:
    """model → the pooled figures a run summary's headline gives, for the rescored rows."""
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_model[row["model"]].append({**row, "question": row["id"], "gold_hit": row["gold_article"] in set(row["cited"])})
    return {"extractor": mode, "deleted_as": deleted_as, "registry": registry,
            "models": {model: pooled(group) for model, group in sorted(by_model.items())}}


def load_benchmark(path: Path) -> list[dict[str, Any]]:
    """The rows of a benchmark.json, checked; ``cited_v1`` given as a string is parsed (never evaluated)."""
    data = read_json(path, "benchmark file")
    if not isinstance(data, list):
        raise PackError(f"{Path(path).name}: a benchmark file is a JSON list of rows, found a {type(data).__name__}")
    return [_checked_row(Path(path).name, i, row) for i, row in enumerate(data)]


def _checked_row(name: str, i: int, row: Any) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise PackError(f"{name}: row {i} is a {type(row).__name__}, not an object")
    where = f"{name}: row {i} (id {row.get('id', '?')})"
    for key in REQUIRED:
        if not isinstance(row.get(key), str):
            raise PackError(f"{where}: field {key!r} is missing or not a string")
    row = {**row, "id": str(row.get("id") or f"row{i}"), "model": str(row.get("model") or "unknown"),
           "language": str(row.get("language") or "?")}
    if not isinstance(row.get("response"), (str, type(None))):
        raise PackError(f"{where}: field 'response' is not a string")
    row = dict(row, response=row.get("response") or "")
    if "cited_v1" not in row:  # an unrescored file: its own fields are the first release's
        for key in ("cited", "invented", "n_cited", "n_invented"):
            if key not in row:
                raise PackError(f"{where}: field {key!r} is missing (and there is no cited_v1)")
            row[f"{key}_v1"] = row[key]
    for key in ("cited_v1", "invented_v1"):
        row[key] = _id_list(where, key, row.get(key))
    for key in ("n_cited_v1", "n_invented_v1"):
        value = row.get(key, len(row[key[2:]]))
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise PackError(f"{where}: field {key!r} is not a count")
        row[key] = value
    return row


def _id_list(where: str, key: str, value: Any) -> list[str]:
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise PackError(f"{where}: field {key!r} is a string that is not a list literal") from None
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise PackError(f"{where}: field {key!r} is missing or not a list of article ids")
    return value


def rescore_rows(rows: list[dict[str, Any]], registry: Mapping[str, LawIndex], *, mode: str = "upstream",
                 deleted_as: str = "real", name: str = "benchmark.json") -> list[dict[str, Any]]:
    """Rows with ``cited``, ``invented``, ``real_not_gold`` and ``n_*`` recomputed (other fields kept)."""
    out = []
    laws = [{"law_id": law_id, "title": law.title} for law_id, law in registry.items()]
    for i, row in enumerate(rows):
        law = registry[join_law(row, laws, f"{name}: row {i} (id {row['id']})")["law_id"]]
        found = ground_reply(row["response"], law, row["gold_article"], mode=mode, deleted_as=deleted_as)
        found.pop("gold_hit")
        out.append({**row, "law_id": law.law_id, **found, "extractor": mode, "deleted_as": deleted_as})
    return out


def aggregate(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Sums per (model short name, language), with per-question counts for the bootstrap."""
    groups: dict[tuple[str, str], dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        g = groups[(row["model"].split("/")[-1], row["language"])]
        g["q"] += 1
        g["n"] += row["n_cited"]
        g["inv"] += row["n_invented"]
        g["real"] += row["n_real_not_gold"]
        g["n_v1"] += row["n_cited_v1"]
        g["inv_v1"] += row["n_invented_v1"]
        g["gold"] += row["gold_article"] in set(row["cited"])
        g["gold_v1"] += row["gold_article"] in set(row["cited_v1"])
        g.setdefault("per_question", []).append((row["n_invented"], row["n_cited"]))
    return dict(sorted(groups.items(), key=lambda kv: (kv[0][0], LANGUAGE_ORDER.get(kv[0][1], 9), kv[0][1])))


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def format_tables(groups: Mapping[tuple[str, str], Mapping[str, Any]]) -> str:
    """The card's tables as plain text."""
    width = max([len(m) for m, _ in groups] + [5])
    lines = [f"{'model':{width}s} lang | first release | corrected   | rate    Wilson 95%       "
             f"| question bootstrap 95% | real not gold, Wilson 95%     | gold hit"]
    for (model, lang), g in groups.items():
        rate, boot, real = "   n/a", "n/a", "n/a"
        if g["n"]:
            rlo, rhi = wilson_interval(g["real"], g["n"])
            real = f"{g['real']}/{g['n']} {100 * g['real'] / g['n']:.2f}% [{_pct(rlo)}, {_pct(rhi)}]"
            lo, hi = wilson_interval(g["inv"], g["n"])
            _, blo, bhi = ratio_bootstrap(*zip(*g["per_question"]))
            rate = f"{100 * g['inv'] / g['n']:5.2f}% [{_pct(lo)}, {_pct(hi)}]"
            boot = f"[{_pct(blo)}, {_pct(bhi)}]"
        lines.append(f"{model:{width}s} {lang:4s} | {g['inv_v1']:>4d}/{g['n_v1']:<7d} | {g['inv']:>4d}/{g['n']:<6d} "
                     f"| {rate:23s} | {boot:22s} | {real:29s} | {g['gold']}/{g['q']} "
                     f"({_pct(g['gold'] / g['q'])}; first release {g['gold_v1']})")
    lines.append("\nFisher exact, Japanese vs English (per mention):")
    for model in sorted({m for m, _ in groups}):
        ja, en = groups.get((model, "ja")), groups.get((model, "en"))
        if not ja or not en:
            continue
        p = fisher_exact_2x2(ja["inv"], ja["n"], en["inv"], en["n"])
        ratio = (ja["inv"] / ja["n"]) / (en["inv"] / en["n"]) if en["inv"] and ja["n"] else None
        lines.append(f"  {model:{width}s} JA {ja['inv']}/{ja['n']} vs EN {en['inv']}/{en['n']}  "
                     f"ratio {'n/a' if ratio is None else f'{ratio:.2f}'}  p = {'n/a' if p != p else f'{p:.2g}'}")
    return "\n".join(lines)
