"""The card's smoke set (guilty verdict, suspended sentence, victim present in court), found by content.

The source's published smoke pack (``simpleaudit/iustitia_marigonae_smoke3.json``) is used when it
has one. Otherwise each smoke question of the codebook is found by what it asks, whatever its id in
this copy of the dataset: the question whose id and instructions match every pattern of its entry,
asked about targets of its unit type; among several, the one with the fewest options (the closed
yes/no question rather than a count or a range). Ids under the entry's ``ids`` are taken first when
the source has them, a way to pin them in ``codebook.yaml``. The first eligible task of each
question is its smoke task. A question that matches nothing, or several equally, stops a smoke
build with one line naming it; a full build only notes it (it never needs the smoke set).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

from auditpacks.core.errors import PackError
from auditpacks.packs.iustitia.source import IustitiaSource, smoke_task_ids


def smoke_ids(src: IustitiaSource, index: list[dict], cb: Mapping[str, Any], *,
              strict: bool = True) -> tuple[list[str], list[Path], list[str]]:
    """(smoke task ids, files read for them, why a smoke question was not found): the published smoke
    pack, else found by content. ``strict``: a question not found stops the build; else it is noted."""
    path = src.smoke_file(cb["smoke"]["file"])
    if path is not None:
        return smoke_task_ids(path), [path], []
    questions = question_summaries(index, src.questions)
    first: dict[str, str] = {}
    for row in index:
        first.setdefault(row["question_id"], row["task_id"])
    found, missing = [], []
    for entry in cb["smoke"]["questions"]:
        try:
            found.append(first[find_question(entry, questions)])
        except PackError as exc:
            if strict:
                raise
            missing.append(str(exc))
    return found, [], missing


def question_summaries(index: list[dict], table: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """question_id → its instructions, the unit types it is asked about and its number of options."""
    out: dict[str, dict[str, Any]] = {}
    for row in index:
        q = out.setdefault(row["question_id"], {"instructions": "", "units": set(), "options": len(row["option_keys"])})
        q["instructions"] = q["instructions"] or row.get("instructions") or \
            (table.get(row["question_id"]) or {}).get("instructions") or ""
        q["units"].add(row.get("unit_type"))
    return out


def _content(question_id: str, instructions: Any) -> str:
    return f"{re.sub(r'[._]+', ' ', question_id)} {instructions if isinstance(instructions, str) else ''}"


def find_question(entry: Mapping[str, Any], questions: Mapping[str, Mapping[str, Any]]) -> str:
    """The question id an entry (``about``, ``unit``, ``match`` patterns, pinned ``ids``) names in this source."""
    for pinned in entry.get("ids") or ():
        if pinned in questions:
            return pinned
    unit, patterns = entry.get("unit"), list(entry.get("match") or ())
    matched = [qid for qid, q in questions.items()
               if (unit is None or unit in q["units"] or q["units"] == {None})
               and all(re.search(p, _content(qid, q["instructions"]), re.IGNORECASE) for p in patterns)]
    what = f"smoke question '{entry['about']}'"
    pin = "pin its id under iustitia.smoke.questions in codebook.yaml"
    if not matched:
        raise PackError(f"{what}: no eligible question of the tasks asks it ({unit or 'any'} targets, instructions "
                        f"matching {' and '.join(repr(p) for p in patterns)}); {pin}")
    fewest = min(questions[qid]["options"] for qid in matched)
    best = [qid for qid in matched if questions[qid]["options"] == fewest]
    if len(best) > 1:
        raise PackError(f"{what}: several questions fit equally ({', '.join(sorted(best))}); {pin}")
    return best[0]
