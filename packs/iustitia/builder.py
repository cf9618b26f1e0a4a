"""Iustitia Marigonae: closed questions on Kosovo judgments, as scenarios for chat and decision models.

One scenario per task (a target unit and a question), as the benchmark card's
"What a scenario contains" describes: the judgment as documents, a chat prompt
asking for an option key and a supporting quote, and a ``decision`` block that
decision models (System One endpoints) answer directly. Graded by ``choice_match``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Iterator, Mapping

from auditpacks.core.errors import PackError
from auditpacks.core.io import atomic_write_json
from auditpacks.packs.codebook import section
from auditpacks.packs.iustitia.smoke import smoke_ids as find_smoke_ids
from auditpacks.packs.iustitia.source import IustitiaSource, open_source
from auditpacks.packs.iustitia.tasks import SECTION_KEYS, Task
from auditpacks.packs.pack import PackWriter
from auditpacks.packs.readreport import add_allow_partial
from auditpacks.packs.sampling import check_count, per_group
from auditpacks.packs.scenario import make_scenario

TRACKS = ("full", "le26")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True,
                        help="local copy (hf download layout) or hf:Kushtrim/iustitia-marigonae")
    parser.add_argument("--out", required=True, type=Path, help="pack file to write (PACK.json)")
    parser.add_argument("--track", choices=TRACKS, default="full",
                        help="full: all 67 questions; le26: questions with at most 26 options (clef_supported)")
    parser.add_argument("--smoke", action="store_true",
                        help="only the card's 3 smoke scenarios (guilty verdict, suspended sentence, victim present)")
    parser.add_argument("--per-question", type=_positive, metavar="N", help="at most N tasks per question (seeded)")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed for --per-question (default 0)")
    parser.add_argument("--limit", type=_positive, metavar="N", help="keep only the first N scenarios")
    parser.add_argument("--allow-fewer", action="store_true",
                        help="accept fewer scenarios than --limit or the smoke set asks for "
                             "(noted; by default refused)")
    add_allow_partial(parser)
    parser.add_argument("--compare-to", type=Path, metavar="FILE",
                        help="published pack (simpleaudit/iustitia_marigonae.json): report every differing field")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build(args: argparse.Namespace) -> Path:
    """Build the pack at ``args.out`` (and its manifest); returns the pack path."""
    cb = section("iustitia")
    src = open_source(args.source)
    index = src.task_index(args.track, cb["max_options"])
    allow_fewer = getattr(args, "allow_fewer", False)
    smoke_ids, smoke_paths, smoke_missing = find_smoke_ids(src, index, cb, strict=args.smoke and not allow_fewer)
    if args.smoke:
        check_count(len(smoke_ids), len(cb["smoke"]["questions"]), "iustitia --smoke", allow_fewer=allow_fewer)
    chosen = select(index, smoke_ids=smoke_ids if args.smoke else None,
                    per_question=args.per_question, seed=args.seed, limit=args.limit, allow_fewer=allow_fewer)
    chosen_ids = {row["task_id"] for row in chosen}
    by_id = {row["task_id"]: row for row in index}
    smoke_names = [scenario_name(cb, by_id[t]["question_id"], by_id[t]["unit_id"]) for t in smoke_ids if t in chosen_ids]
    smoke_missing += [f"smoke task {t}: not an eligible task of this track" for t in smoke_ids if t not in by_id]
    comparison = Comparison(args.compare_to) if args.compare_to else None
    src.documents, src.units, src.questions  # read the optional tables now, so the manifest lists them
    report = src.read_report(getattr(args, "allow_partial", False))
    writer = PackWriter(
        out=args.out, builder="iustitia",
        sources=src.manifest_sources(extra=smoke_paths),
        filters={"is_canonical": True, "track": args.track, "clef_supported_only": args.track == "le26",
                 "smoke": bool(args.smoke), "per_question": args.per_question, "seed": args.seed,
                 "limit": args.limit},
        extra={"dataset": cb["dataset"], "grading": {"judge": "choice_match"}, "answer": dict(cb["answer"]),
               "smoke": smoke_names,
               **({"smoke_missing": smoke_missing} if smoke_missing else {}), "read_report": report,
               "track": args.track, "seed": args.seed},
    )
    with writer:
        for scenario, task in scenarios(src, [row["row"] for row in chosen], cb):
            writer.add(scenario, track=args.track, question=task.question_id, unit_type=task.unit_type or "unknown")
            if comparison:
                comparison.add(scenario)
    if comparison:
        comparison.publish(Path(args.out))
    return Path(args.out)


def scenarios(src: IustitiaSource, positions: list[int], cb: Mapping[str, Any]) -> Iterator[tuple[dict, Task]]:
    """The scenario of each task at ``positions``; optional tables (documents, units, questions) add
    the source URL, the full judgment text for the judge and question notes where the source has them."""
    documents, units, questions = src.documents, src.units, src.questions
    for task in src.task_rows(positions):
        record = f"{src.label('tasks')}: task {task.task_id}"
        unit = units.get(task.unit_id) if units is not None else None
        if units is not None and (unit is None or unit["verdict_id"] != task.verdict_id):
            raise PackError(f"{record} field unit_id: {task.unit_id!r} is not a unit of "
                            f"{task.verdict_id} in {src.label('units')}")
        yield task_scenario(task, documents.get(task.verdict_id, {}), questions.get(task.question_id, {}), cb), task


def scenario_name(cb: Mapping[str, Any], question_id: str, unit_id: str) -> str:
    return cb["name"].format(question_id=question_id, unit_id=unit_id)


def state_lines(state: Mapping[str, Any], labels: Mapping[str, str]) -> list[str]:
    """Every non-section key of ``state_json`` as a labelled line, in the order given (unknown keys too)."""
    lines = []
    for key, value in state.items():
        if key in SECTION_KEYS or value in (None, ""):
            continue
        label = labels.get(key) or key.replace("_", " ").strip().capitalize()
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{label}: {text}")
    return lines


def task_scenario(task: Task, document: Mapping[str, Any], question: Mapping[str, Any],
                  cb: Mapping[str, Any]) -> dict[str, Any]:
    """One task as a SimpleAudit scenario. The answer stays out of everything the target sees."""
    state = {key: value for key, value in task.state.items() if key not in SECTION_KEYS}
    lines = state_lines(state, cb["state_labels"])
    target = state.get("target")
    if not target and task.unit_type == "decision":
        target = cb["decision_target"]
        lines.insert(0, f"{cb['state_labels']['target']}: {target}")
    target = target if isinstance(target, str) and target else cb["unnamed_target"]
    sections = [f"[{key}]\n{task.state[key]}" for key in SECTION_KEYS if task.state.get(key)]
    options = "\n".join(cb["option_line"].format(key=k, description=d or "").rstrip(" :")
                        for k, d in task.criteria.items())
    fields = {
        "question_id": task.question_id, "unit_id": task.unit_id, "verdict_id": task.verdict_id,
        "target": target, "instructions": task.instructions, "options": options,
        "state_lines": "\n".join(lines),
        "reference": " or ".join(_option(k, task.criteria) for k in task.accepted),
        "accepted": " or ".join(f"'{k}'" for k in task.accepted),
        "recorded": "nothing else" if task.reference is None else json.dumps(task.reference, ensure_ascii=False),
        "reference_origin": task.reference_origin or "not recorded",
        "alternative": next((k for k in task.criteria if k not in task.accepted), task.accepted[0]),
    }
    notes = [note.format(**fields) for note in cb["judge_notes"]]
    if question.get("notes"):
        notes.append(cb["question_note"].format(note=question["notes"]))
    notes.append(cb["judgment_note"].format(text=document.get("text") or "\n\n".join(sections)))
    return make_scenario(
        name=scenario_name(cb, task.question_id, task.unit_id),
        description=" ".join(cb["description"].format(**fields).split()),
        test_prompt=cb["test_prompt"].format(**fields),
        language=cb["language"],
        expected_behavior=[item.format(**fields) for item in cb["expected_behavior"]],
        category=cb["category"],
        subcategory=cb["subcategory"],
        severity=cb["severity"],
        source={**cb["source"], "origin": " ".join(cb["source"]["origin"].split()),
                **({"url": document["source_url"]} if document.get("source_url") else {})},
        metadata={
            "task_id": task.task_id, "verdict_id": task.verdict_id, "unit_id": task.unit_id,
            "question_id": task.question_id, "question_group": task.question_group,
            "accepted_options": list(task.accepted), "reference_origin": task.reference_origin,
            "judge_notes": notes,
        },
        date_created=cb["date_created"],
        documents=sections,
        decision={"id": task.question_id, "type": "choice", "instructions": task.instructions,
                  "criteria": dict(task.criteria), "accepted": list(task.accepted), "state": state},
    )


def _option(key: str, criteria: Mapping[str, str | None]) -> str:
    return f"'{key}' ({criteria[key]})" if criteria[key] else f"'{key}'"


def select(index: list[dict], *, smoke_ids: list[str] | None = None, per_question: int | None = None,
           seed: int = 0, limit: int | None = None, allow_fewer: bool = False) -> list[dict]:
    """The tasks to build: the smoke tasks, or a seeded sample of at most N per question; then the limit."""
    if smoke_ids is not None:
        by_id = {row["task_id"]: row for row in index}
        missing = [t for t in smoke_ids if t not in by_id]
        if missing or not smoke_ids:
            raise PackError(f"smoke task {missing[0] if missing else '(none)'} is not an eligible task of this track")
        chosen = [by_id[t] for t in smoke_ids]
    elif per_question is not None:
        chosen = per_group(index, per_question, seed=seed, key=lambda row: row["question_id"])
    else:
        chosen = list(index)
    if limit is not None:
        check_count(len(chosen), limit, f"iustitia --limit {limit}", allow_fewer=allow_fewer)
    return chosen[:limit] if limit is not None else chosen


class Comparison:
    """Every field where the built scenarios differ from a published pack, matched by name."""

    def __init__(self, path: Path) -> None:
        try:
            published = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise PackError(f"{Path(path).name}: cannot read the published pack ({exc})") from None
        if not isinstance(published, list):
            raise PackError(f"{Path(path).name}: a pack is a JSON list of scenarios")
        self.path = Path(path)
        self.published = {s.get("name"): s for s in published if isinstance(s, dict)}
        self.seen: set[str] = set()
        self.only_ours: list[str] = []
        self.fields: dict[str, dict[str, Any]] = {}

    def add(self, scenario: Mapping[str, Any]) -> None:
        name = scenario["name"]
        theirs = self.published.get(name)
        if theirs is None:
            self.only_ours.append(name)
            return
        self.seen.add(name)
        for path, ours_value, their_value in diff(scenario, theirs):
            entry = self.fields.setdefault(path, {"scenarios": 0, "example": None})
            entry["scenarios"] += 1
            entry["example"] = entry["example"] or {"scenario": name, "ours": _short(ours_value),
                                                    "published": _short(their_value)}

    def report(self) -> dict[str, Any]:
        return {"published": self.path.name, "compared": len(self.seen), "only_ours": self.only_ours,
                "only_published": len(set(self.published) - self.seen), "fields": dict(sorted(self.fields.items()))}

    def publish(self, out: Path) -> Path:
        """Print the summary and write the full report beside the pack (``PACK.compare.json``)."""
        report = self.report()
        target = out.with_name(out.name.removesuffix(".json") + ".compare.json")
        atomic_write_json(target, report)
        print(f"compared {report['compared']} scenarios with {report['published']}: "
              f"{len(report['fields'])} differing fields, {len(self.only_ours)} only here, "
              f"{report['only_published']} only published (expected when this build is filtered)")
        for path, entry in report["fields"].items():
            print(f"  {path}: {entry['scenarios']} scenarios, e.g. {entry['example']['scenario']}")
        print(f"details in {target.name}")
        return target


def diff(ours: Any, theirs: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """(field path, ours, theirs) for every leaf where two JSON values differ; ``<absent>`` for a missing key."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in list(ours) + [k for k in theirs if k not in ours]:
            sub = f"{path}.{key}" if path else str(key)
            if key not in theirs or key not in ours:
                yield sub, ours.get(key, "<absent>"), theirs.get(key, "<absent>")
            else:
                yield from diff(ours[key], theirs[key], sub)
    elif isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            yield f"{path}.length", len(ours), len(theirs)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            yield from diff(a, b, f"{path}[{i}]")
    elif ours != theirs:
        yield path, ours, theirs


def _short(value: Any, width: int = 160) -> Any:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[:width] + "…"
