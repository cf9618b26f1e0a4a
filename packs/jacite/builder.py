"""jacite-bench: do the statute articles a model cites exist in the official e-Gov registry?

One scenario per question. Questions come from the dataset's questions.json when it is
present; otherwise they are generated from the registry exactly as jacite-bench's own
generator does (templates and settings in ``codebook.yaml``), so the same registry gives
the same 600 questions. Grading is the ``grounding`` judge, which resolves every cited
article against the law's registry carried in the manifest.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any, Iterator

from auditpacks.core.io import read_json
from auditpacks.packs.codebook import section
from auditpacks.packs.jacite import source as jacite_source
from auditpacks.packs.jacite.citations import normalise_article_ref
from auditpacks.packs.jacite.registry import load_registry, registry_to_manifest
from auditpacks.packs.pack import PackWriter
from auditpacks.packs.sampling import check_count
from auditpacks.packs.scenario import make_scenario
from auditpacks.packs.readreport import ReadReport, add_allow_partial
from auditpacks.packs.sources import resolve_source

BENCHMARK = "jacite"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="PACK.json to write")
    parser.add_argument("--source", help="local jacite-bench copy or hf:raihan-js/jacite-bench "
                                         "(default: the bundled 民法 registry)")
    parser.add_argument("--language", choices=("ja", "en"), help="only questions in this language")
    parser.add_argument("--limit", type=int, help="only the first N questions (after the language filter)")
    parser.add_argument("--allow-fewer", action="store_true",
                        help="accept fewer scenarios than --limit asks for (noted; by default refused)")
    add_allow_partial(parser)


def generate_questions(registry: dict[str, Any], book: dict[str, Any]) -> list[dict[str, Any]]:
    """jacite-bench's generator: captioned, parseable titles in registry order, JA then EN each."""
    rng = random.Random(book["seed"])
    quota = book["per_language"]
    english = {law["title"]: law["en"] for law in book["laws"]}
    templates = book["templates"]
    questions: list[dict[str, Any]] = []
    counts = {"ja": 0, "en": 0}
    for law in registry["laws"]:
        law_en = english.get(law["title"], law["title"])
        for article in law["articles"]:
            if min(counts.values()) >= quota:
                return questions
            caption, ref = article.get("caption", ""), article["article"]
            # a 附則 article marked as such (our registry) would repeat a main article's question
            canonical = normalise_article_ref(ref, mode="upstream") if caption and not article.get("supplementary") else None
            if canonical is None:
                continue
            for language, law_name, shown_ref in (("ja", law["title"], ref),
                                                  ("en", law_en, book["en_ref"].format(canonical=canonical))):
                if counts[language] >= quota:
                    continue
                questions.append({
                    "id": f"q{len(questions):04d}", "language": language, "law": law_name,
                    "law_id": law["law_id"], "article": ref,
                    "question": rng.choice(templates[language]).format(law=law_name, ref=shown_ref),
                    "gold_article": canonical, "revision_id": law.get("revision_id"), "caption": caption,
                })
                counts[language] += 1
    return questions


def article_texts(registry_path: Path) -> dict[tuple[str, str], str]:
    """(law id, article id) → text, where the source carries texts (the bundled 民法 file does)."""
    data = read_json(registry_path)
    if not isinstance(data, dict) or not isinstance(data.get("articles"), list):
        return {}
    return {(data.get("law_id"), a["number"]): a.get("text", "") for a in data["articles"]
            if isinstance(a, dict) and not a.get("supplementary") and "number" in a}


def scenario(question: dict[str, Any], book: dict[str, Any], law_titles: dict[str, str], text: str | None) -> dict[str, Any]:
    """The scenario for one question."""
    law = law_titles.get(question["law_id"], question["law"])
    english = {entry["law_id"]: entry["en"] for entry in book["laws"]}
    caption = question.get("caption") or ""
    fields = {
        "law": law, "law_en": english.get(question["law_id"], question["law"]), "gold": question["gold_article"],
        "language": question["language"], "id": question["id"],
        "caption_note": f" {caption}" if caption else "",
    }
    notes = [f"The question's own article is {law} Article {question['gold_article']} ({question['article']})."]
    if text:
        notes.append(f"Its text in the registry: {text}")
    return make_scenario(
        name=book["name"].format(**fields),
        description=" ".join(book["description"].split()).format(**fields),
        test_prompt=question["question"],
        language=question["language"],
        expected_behavior=[item.format(**fields) for item in book["expected_behavior"]],
        category=book["category"],
        subcategory=book["subcategory"],
        severity=book["severity"],
        source=dict(book["source"]),
        date_created=book["date_created"],
        metadata={
            "question_id": question["id"], "law_id": question["law_id"], "law": law,
            "article": question["article"], "gold_article": question["gold_article"],
            "caption": caption, "language": question["language"],
            "revision_id": question.get("revision_id"), "judge_notes": notes,
        },
    )


def smoke_names(scenarios: list[dict[str, Any]]) -> list[str]:
    """The first Japanese, the first English and the first branch-article (の) question."""
    picks: list[str] = []
    tests = (lambda m: m["language"] == "ja", lambda m: m["language"] == "en", lambda m: "-" in m["gold_article"])
    for test in tests:
        name = next((s["name"] for s in scenarios if test(s["metadata"]) and s["name"] not in picks), None)
        if name:
            picks.append(name)
    return picks


def select(questions: list[dict[str, Any]], args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    chosen = [q for q in questions if args.language in (None, q["language"])]
    if args.limit is not None:
        check_count(len(chosen), args.limit, f"jacite --limit {args.limit}",
                    allow_fewer=getattr(args, "allow_fewer", False))
    return iter(chosen[: args.limit] if args.limit is not None else chosen)


def build(args: argparse.Namespace) -> Path:
    book = section(BENCHMARK)
    source = resolve_source(args.source, allow_patterns=["*.json", "*.jsonl", "*.parquet"]) if args.source else None
    english = {law["law_id"]: law["en"] for law in book["laws"]}
    report = ReadReport(source.root) if source is not None else None
    registry, questions, entries, registry_path = jacite_source.load(source, english, report)
    if report is not None:
        report.check(getattr(args, "allow_partial", False))
    generated = questions is None
    if generated:
        questions = generate_questions(registry, book)
    index = load_registry(registry_path)
    texts = article_texts(registry_path)
    law_titles = {law["law_id"]: law["title"] for law in registry["laws"]}
    scenarios = []
    for question in select(questions, args):
        law_text = texts.get((question["law_id"], question["gold_article"]))
        scenarios.append(scenario(question, book, law_titles, law_text))
    used_laws = {s["metadata"]["law_id"] for s in scenarios}
    extra = {
        "grading": {"judge": "grounding",
                    "registry": registry_to_manifest({k: v for k, v in index.items() if k in used_laws})},
        "smoke": smoke_names(scenarios),
        "run": dict(book["run"]),
        "answer": dict(book["answer"]),
        "questions": "generated (seed %d, %d per language)" % (book["seed"], book["per_language"])
        if generated else ", ".join(e["name"] for e in entries[1:]),
        **({"read_report": report.as_dict()} if report is not None else {}),
    }
    filters = {"language": args.language, "limit": args.limit}
    with PackWriter(args.out, builder=BENCHMARK, sources=entries, filters=filters, extra=extra) as writer:
        for item in scenarios:
            writer.add(item, language=item["language"], law=item["metadata"]["law_id"])
    return args.out
