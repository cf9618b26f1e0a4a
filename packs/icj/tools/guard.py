"""The run-time leak guard: every tool result is checked against the cutoff before a model sees it.

It is a second check, independent of the filter in ``graph.cutoff``: it knows, from the full graph,
which identifiers date from the cutoff or later (``later_identifiers``, plain date comparisons) and
every other value that only later material holds (``withheld_values``: titles, names, provision
keys..., any text of a later record's row that no other row holds; long texts by their sha256;
passages are left to the cut corpus, the only place tools read them from), and refuses a result that holds one of them, or a date (a date-typed value,
a value that is exactly an ISO date, or any value under a date-named key) on or after the cutoff. A
refused result is an error for the tool call; the model never sees its content.
"""

from __future__ import annotations

import hashlib
import re
from datetime import date, datetime
from typing import Any, Iterable

import pyarrow as pa

from auditpacks.core.errors import UserError
from auditpacks.packs.icj.graph.reader import Graph
from auditpacks.packs.icj.graph.schema import iso_date

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?$")
DATE_KEYS = {"date", "term_start", "term_end", "first_date", "last_date", "source_dates"}


class LeakError(UserError):
    """A tool result that holds something dated on or after the cutoff."""


def _later(values: Iterable[tuple[Any, Any]], cutoff: str) -> set[str]:
    return {key for key, when in values if key is not None and (iso_date(when) is None or iso_date(when) >= cutoff)}


def later_identifiers(graph: Graph, cutoff: str) -> set[str]:
    """Documents, resolutions and judges of the full graph that were not available before ``cutoff``."""
    t = graph.tables
    pairs = [zip(t["documents"]["document_id"].to_pylist(), t["documents"]["date"].to_pylist()),
             zip(t["resolutions"]["symbol"].to_pylist(), t["resolutions"]["date"].to_pylist())]
    later = set().union(*(_later(p, cutoff) for p in pairs))
    judges = [(j, s) for j, s in zip(t["judges"]["judge_id"].to_pylist(), t["judges"]["term_start"].to_pylist())
              if s is not None]
    return later | _later(judges, cutoff)


#: texts longer than this are withheld (and looked up) by their sha256
LONG = 96


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


#: role → (the column naming its record, the record set it belongs to): what a later record takes with it
#: (passages are not: no tool returns a passage but from the cut corpus, and their texts are most of a graph)
_OWNED = {"documents": ("document_id", "documents"), "resolutions": ("symbol", "resolutions"),
          "instruments": ("instrument_id", "instruments"), "provisions": ("instrument_id", "instruments"),
          "judges": ("judge_id", "judges"), "cases": ("case_id", "cases")}
_PASSAGES = ("passages", "resolution_passages")


def _later_records(graph: Graph, cutoff: str) -> dict[str, set]:
    """Records of the full graph not available before ``cutoff``, by plain date comparisons (any row of a
    record dated on or after it makes it later; cases: those no earlier document has or cites)."""
    t = graph.tables
    later = {"documents": _later(zip(t["documents"]["document_id"].to_pylist(), t["documents"]["date"].to_pylist()),
                                 cutoff),
             "resolutions": _later(zip(t["resolutions"]["symbol"].to_pylist(), t["resolutions"]["date"].to_pylist()),
                                   cutoff),
             "instruments": {i for i, d in zip(t["instruments"]["instrument_id"].to_pylist(),
                                               t["instruments"]["date"].to_pylist()) if d and iso_date(d) >= cutoff},
             "judges": {j for j, d in zip(t["judges"]["judge_id"].to_pylist(), t["judges"]["term_start"].to_pylist())
                        if d and iso_date(d) >= cutoff}}
    earlier_docs = [r for r in t["documents"].select(["document_id", "case_id"]).to_pylist()
                    if r["document_id"] not in later["documents"]]
    earlier_ids = {r["document_id"] for r in earlier_docs}
    known = {r["case_id"] for r in earlier_docs} | {c for d, c in zip(
        t["document_case_links"]["document_id"].to_pylist(), t["document_case_links"]["cited_case_id"].to_pylist())
        if d in earlier_ids}
    later["cases"] = set(t["cases"]["case_id"].to_pylist()) - known
    return later


def _string_columns(table: pa.Table) -> list[str]:
    return [n for n in table.column_names
            if pa.types.is_string(table.schema.field(n).type) or pa.types.is_large_string(table.schema.field(n).type)]


def withheld_values(graph: Graph, cutoff: str) -> set[str]:
    """Every text of the full graph that only later material holds (titles, names, provision keys, ...),
    worked out from the full graph alone (long ones as their sha256; passage tables left out)."""
    later = _later_records(graph, cutoff)
    only_later: set[str] = set()
    elsewhere: set[str] = set()
    for role, table in graph.tables.items():
        if role in _PASSAGES:
            continue
        owner = _OWNED.get(role)
        columns = _string_columns(table)
        for row in table.select(columns).to_pylist():
            values = {v for v in row.values() if v}
            (only_later if owner and row.get(owner[0]) in later[owner[1]] else elsewhere).update(values)
    return {digest(v) if len(v) > LONG else v for v in only_later - elsewhere}


_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_TEXT_DATE = re.compile(rf"\b(\d{{4}})-(\d{{2}})-(\d{{2}})\b|\b(\d{{1,2}}) ({_MONTHS}) (\d{{4}})\b|"
                        rf"\b({_MONTHS}) (\d{{1,2}}), (\d{{4}})\b")


def text_dates(text: str) -> list[str]:
    """The dates written in free text (``2004-07-09``, ``9 July 2004``, ``July 9, 2004``), as ISO dates."""
    months = _MONTHS.split("|")
    out = []
    for m in _TEXT_DATE.finditer(text):
        if m.group(1):
            parts = (m.group(1), m.group(2), m.group(3))
        elif m.group(4):
            parts = (m.group(6), f"{months.index(m.group(5)) + 1:02d}", f"{int(m.group(4)):02d}")
        else:
            parts = (m.group(9), f"{months.index(m.group(7)) + 1:02d}", f"{int(m.group(8)):02d}")
        day = iso_date("-".join(parts))
        if day is not None:
            out.append(day)
    return out


def _date_of(value: Any) -> str | None:
    if isinstance(value, (date, datetime)):
        return iso_date(value)
    if isinstance(value, str) and _ISO_DATE.match(value.strip()):
        return iso_date(value)
    return None


class Guard:
    """Checks results for one cutoff; ``check`` raises :class:`LeakError` naming the first violation."""

    def __init__(self, cutoff: str, withheld: Iterable[str]) -> None:
        self.cutoff = cutoff
        self.withheld = frozenset(withheld)

    def violations(self, value: Any, where: str = "result", dated: bool = False) -> Iterable[str]:
        if isinstance(value, dict):
            for key, item in value.items():
                name = str(key)
                yield from self.violations(item, f"{where}.{name}",
                                           dated or name in DATE_KEYS or name.endswith("_date"))
            return
        if isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                yield from self.violations(item, f"{where}[{i}]", dated)
            return
        day = _date_of(value)
        if dated and day is None and isinstance(value, (str, int)) and not isinstance(value, bool):
            day = iso_date(value)
        if day is not None and day >= self.cutoff:
            yield f"{where} is dated {day}, not before the cutoff {self.cutoff}"
        elif isinstance(value, str) and (value if len(value) <= LONG else digest(value)) in self.withheld:
            shown = value if len(value) <= 60 else value[:57] + "..."
            yield f"{where} holds {shown!r}, which only material of the cutoff {self.cutoff} or later holds"

    def check(self, result: Any) -> Any:
        """``result`` unchanged when it is clean; else :class:`LeakError`."""
        for problem in self.violations(result):
            raise LeakError(f"leak refused: {problem}")
        return result
