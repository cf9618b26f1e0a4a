"""Labelled calibration transcripts for a checklist judge: what they are, and the bias probes made from them.

A benchmark's calibration module (``judges/<bench>/judge_items.py``, named in the registry)
builds **core items** from its pack without any model: a scenario of the pack, the
assistant's replies (and the user's follow-up turns) written by rule, and the verdict a
correct judge must reach (``pass`` or ``fail``), with the expectation the item is made to
violate. From every core item two **bias probes** are derived here, whose verdict must not
differ from their base item's: ``longer`` (each reply followed by a restatement that adds
no fact) and ``reordered`` (the question's options listed in reverse order; only where the
prompt lists options).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Iterable

PASS, FAIL = "pass", "fail"
#: The core kinds every benchmark may use, and what each item expects.
GOLD = "reference answer, verbatim support"
LONGER, REORDERED = "longer", "reordered"
#: Appended to each reply of a ``longer`` probe: the same content, restated, with no new fact in it.
RESTATEMENT = ("To restate my answer above in other words, so that there is no doubt about it: the answer "
               "given on the first line is my reading of the question, and the text I cited is what I rely on. "
               "I have nothing to add to it and nothing to take away from it.")
_OPTIONS = re.compile(r"(Options:\n)((?:- [^\n]*\n?)+)")


@dataclass(frozen=True)
class CalibrationItem:
    """One labelled transcript: ``scenario`` as the judge sees it, the replies, and the known verdict."""

    id: str
    kind: str                         # what the item tests (GOLD or the benchmark's failure kinds)
    expected: str                     # PASS or FAIL
    scenario: dict[str, Any]
    replies: tuple[str, ...]          # the assistant's replies, in order
    follow_ups: tuple[str, ...] = ()  # the user's turns after the first (one fewer than the replies)
    violates: int | None = None       # the expectation (1-based) the item is made to violate
    probe: str | None = None          # LONGER or REORDERED for a bias probe
    base: str | None = None           # the id of the core item a probe was made from

    @property
    def turns(self) -> int:
        return len(self.replies)


def longer(item: CalibrationItem) -> CalibrationItem:
    """``item`` with each reply followed by :data:`RESTATEMENT`: longer, with the same content."""
    return dataclasses.replace(item, id=f"{item.id} · {LONGER}", probe=LONGER, base=item.id,
                               replies=tuple(f"{reply}\n\n{RESTATEMENT}" for reply in item.replies))


def reordered(item: CalibrationItem) -> CalibrationItem | None:
    """``item`` with the options of its prompt (``Options:`` then ``- key: text`` lines) and of its decision
    block in reverse order; None when the prompt lists fewer than two options."""
    prompt = str(item.scenario.get("test_prompt") or "")
    match = _OPTIONS.search(prompt)
    lines = match.group(2).rstrip("\n").split("\n") if match else []
    if len(lines) < 2:
        return None
    ending = "\n" if match.group(2).endswith("\n") else ""
    prompt = prompt[:match.start(2)] + "\n".join(reversed(lines)) + ending + prompt[match.end(2):]
    scenario = {**item.scenario, "test_prompt": prompt}
    decision = scenario.get("decision")
    if isinstance(decision, dict) and isinstance(decision.get("criteria"), dict):
        scenario["decision"] = {**decision, "criteria": dict(reversed(list(decision["criteria"].items())))}
    return dataclasses.replace(item, id=f"{item.id} · {REORDERED}", probe=REORDERED, base=item.id,
                               scenario=scenario)


#: Every bias probe, and why one is skipped for an item it cannot be made from.
PROBES = {LONGER: "", REORDERED: "the prompt lists no options to reorder, so option-order bias is not measured"}


def skipped_probes(items: Iterable[CalibrationItem]) -> list[dict[str, Any]]:
    """Each probe not made from every core item: ``{"probe", "skipped", "of", "why"}`` (``skipped == of``: the
    probe was not run at all, so that bias is not measured)."""
    items = list(items)
    core = [i for i in items if i.probe is None]
    out = []
    for probe, why in PROBES.items():
        made = len({i.base for i in items if i.probe == probe})
        if core and made < len(core):
            out.append({"probe": probe, "skipped": len(core) - made, "of": len(core), "why": why})
    return out


def with_probes(core: Iterable[CalibrationItem]) -> list[CalibrationItem]:
    """The core items, then a ``longer`` probe of each, then a ``reordered`` probe of each that lists options."""
    core = list(core)
    probes = [longer(item) for item in core] + [p for p in map(reordered, core) if p is not None]
    return core + probes


def verbatim_span(text: str, *, minimum: int = 40, maximum: int = 160) -> str | None:
    """The first line of ``text`` with at least ``minimum`` characters, cut at a word before ``maximum``:
    a span that appears in ``text`` exactly as returned."""
    for line in text.splitlines():
        line = line.strip()
        if len(line) < minimum:
            continue
        if len(line) <= maximum:
            return line
        cut = line[:maximum].rsplit(" ", 1)[0]
        return cut if len(cut) >= minimum else line[:maximum]
    return None
