"""Dated markers for the leak audit: records planted on and after each cutoff, each carrying a tag.

For every cutoff D (all cutoffs planted together, so a later cutoff sees the earlier ones' markers,
as it may) the planted graph gains, dated D (the decision day itself, which is not "before") and the
day after, each tagged ``CANARY<nonce>N<n>X<k>`` (the nonce comes from the copy, so markers a copy
already holds are never taken for this audit's): a document of an existing case and one of a new
case, with passages sharing words with the corpus and their date in free text; a document whose id
is plain (its tag only in its passage, a field other than the id); a document listed twice, its
earlier row first and dated long before (cut by its latest date, it must go); a resolution with a
passage and a link to an older one; an instrument with a provision; a judge whose term begins then;
links from the documents to existing records. Where the copy holds a document dated on or after D,
an early row is added for it too, tagged in its title. **Witnesses** (tag ``...N<n>W``) are dated
long before D and cited only by the later documents: on the cut graph their derived counts must be
those of the cut (a case: 1 document, cited by none; a provision and a resolution: cited by none).

``markers`` maps each tag to the date from which its record may be seen; seeing a tag at a cutoff on
or before that date is a leak.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from datetime import date, timedelta

import pyarrow as pa

from auditpacks.packs.icj.graph.reader import Graph

MARK = "CANARY"
WORDS = "Court judgment self-defence armed attack Charter resolution treaty sovereignty"
EARLY = "1900-01-01"
WITNESS_DAYS = 400


@dataclass
class Planted:
    graph: Graph
    nonce: str
    markers: dict[str, str] = field(default_factory=dict)   # tag → from when it may be seen
    #: cutoff → witness key → (its key column, derived column → value on the cut graph)
    witnesses: dict[str, dict[str, tuple[str, dict]]] = field(default_factory=dict)
    listing: list[dict] = field(default_factory=list)       # what was planted, for the report
    probes: list[str] = field(default_factory=list)         # ids worth asking the tools for


def _first(graph: Graph, role: str, column: str, fallback: str) -> str:
    values = [v for v in graph.tables[role][column].to_pylist() if v]
    return values[0] if values else fallback


def _long(day: str) -> str:
    d = date.fromisoformat(day)
    return f"{d.day} {d.strftime('%B')} {d.year}"


class _Rows:
    def __init__(self, graph: Graph) -> None:
        self.rows: dict[str, list[dict]] = {role: [] for role in graph.tables}

    def add(self, role: str, **row) -> None:
        self.rows[role].append(row)

    def document(self, doc: str, case: str, day: str, title: str, text: str, cites: dict[str, str]) -> None:
        self.add("documents", document_id=doc, case_id=case, date=day, doc_type="judgment", title=title, court="ICJ")
        self.add("passages", document_id=doc, passage_id=f"{doc}#p0", ordinal="0", text=text)
        self.add("document_case_links", document_id=doc, cited_case_id=cites["case"])
        self.add("document_provision_links", document_id=doc, provision_key=cites["provision"])
        self.add("document_resolution_links", document_id=doc, symbol=cites["resolution"])


def _witnesses(out: _Rows, planted: Planted, n: int, cutoff: str, existing_case: str) -> dict[str, str]:
    tag = f"{MARK}{planted.nonce}N{n}W"
    day = (date.fromisoformat(cutoff) - timedelta(days=WITNESS_DAYS)).isoformat()
    case, instrument, symbol = f"{tag.lower()}-case", tag.lower(), f"A/RES/{tag}"
    provision = f"{instrument}:article_1"
    out.add("cases", case_id=case, name=f"{tag} witness case", case_type="contentious")
    out.document(f"{tag}_DOC", case, day, f"{tag} witness judgment", f"{tag} {WORDS}",
                 {"case": existing_case, "provision": provision, "resolution": symbol})
    out.add("instruments", instrument_id=instrument, name=f"{tag} witness treaty", date=day)
    out.add("provisions", provision_key=provision, instrument_id=instrument, label=f"{tag} Article 1")
    out.add("resolutions", symbol=symbol, date=day, title=f"{tag} witness resolution")
    planted.markers[tag] = day
    # on the cut graph the witness's own document cites its provision and resolution (1 each); the later
    # documents' citations of the three are cut
    planted.witnesses[cutoff] = {
        case: ("case_id", {"documents": 1, "cited_by": 0, "first_date": day, "last_date": day}),
        provision: ("provision_key", {"cited_by": 1}),
        symbol: ("symbol", {"cited_by_documents": 1, "cited_by_resolutions": 0})}
    planted.listing.append({"cutoff": cutoff, "tag": tag, "date": day, "what": "witnesses (case, provision, "
                            "resolution) cited only by the later markers"})
    return {"case": case, "provision": provision, "resolution": symbol}


def _plant_cutoff(out: _Rows, planted: Planted, graph: Graph, n: int, cutoff: str) -> None:
    existing = {"case": _first(graph, "cases", "case_id", "001"),
                "provision": _first(graph, "provisions", "provision_key", "statute:article_36"),
                "resolution": _first(graph, "resolutions", "symbol", "A/RES/1(I)")}
    witness = _witnesses(out, planted, n, cutoff, existing["case"])
    for k, day in enumerate([cutoff, (date.fromisoformat(cutoff) + timedelta(days=1)).isoformat()]):
        tag = f"{MARK}{planted.nonce}N{n}X{k}"
        own_case = f"{tag.lower()}-case"
        planted.markers[tag] = day
        out.add("cases", case_id=own_case, name=f"{tag} case", case_type="contentious")
        cites = witness if k == 0 else existing
        for j, of_case in enumerate((existing["case"], own_case)):
            doc = f"{tag}_DOC{j}_{day}"
            out.document(doc, of_case, day, f"{tag} judgment", f"{tag} {WORDS} {tag}, delivered on {_long(day)}.",
                         cites)
            out.add("judge_links", document_id=doc, judge_id=f"{tag}_judge")
            planted.probes.append(doc)
        plain = f"ICJ_AUDIT_{planted.nonce}_{n}_{k}"
        out.document(plain, existing["case"], day, "Judgment", f"{WORDS} ({tag}).", existing)
        twin = f"{tag}_TWIN"
        out.document(twin, existing["case"], EARLY, f"{tag} twin, its earlier row", f"{tag} twin {WORDS}", existing)
        out.document(twin, existing["case"], day, f"{tag} twin, its latest row", f"{tag} twin {WORDS}", existing)
        symbol = f"A/RES/{tag}"
        out.add("resolutions", symbol=symbol, date=day, title=f"{tag} resolution")
        out.add("resolution_passages", symbol=symbol, passage_id=f"{symbol}#p0",
                text=f"{tag} {WORDS} resolution adopted on {_long(day)}")
        out.add("resolution_links", source_symbol=symbol, target_symbol=cites["resolution"])
        out.add("instruments", instrument_id=tag.lower(), name=f"{tag} treaty", date=day)
        out.add("provisions", provision_key=f"{tag.lower()}:article_1", instrument_id=tag.lower(),
                label=f"{tag} Article 1")
        out.add("judges", judge_id=f"{tag}_judge", name=f"{tag} judge", term_start=day)
        planted.probes += [own_case, plain, twin, symbol, f"{tag.lower()}:article_1", f"{tag}_judge"]
        planted.listing.append({"cutoff": cutoff, "tag": tag, "date": day, "what": (
            "2 documents (an existing and a new case), a plain-id document tagged in its passage, a document "
            "listed twice (its earlier row first), a resolution, an instrument with a provision, a judge")})
    _early_rows_of_later_documents(out, planted, graph, n, cutoff)


def _early_rows_of_later_documents(out: _Rows, planted: Planted, graph: Graph, n: int, cutoff: str) -> None:
    """An early row (tagged in its title) for the copy's first document dated on or after ``cutoff``."""
    docs = graph.tables["documents"].to_pylist()
    later = sorted((r for r in docs if r.get("date") and r["date"] >= cutoff and r.get("document_id")),
                   key=lambda r: (r["date"], r["document_id"]))
    if not later:
        return
    real, tag = later[0], f"{MARK}{planted.nonce}N{n}E"
    out.add("documents", **{**real, "date": EARLY, "title": f"{tag} early row of {real['document_id']}"})
    planted.markers[tag] = max(r["date"] for r in docs if r.get("document_id") == real["document_id"] and r["date"])
    planted.probes.append(real["document_id"])
    planted.listing.append({"cutoff": cutoff, "tag": tag, "date": planted.markers[tag],
                            "what": f"an early row of the copy's document {real['document_id']}"})


def plant(graph: Graph, cutoffs: list[str]) -> Planted:
    """``graph`` with dated markers for every cutoff added (the source hash changes with them)."""
    nonce = hashlib.sha256(f"{MARK}:{graph.source_hash}".encode()).hexdigest()[:6]
    planted = Planted(graph, nonce)
    out = _Rows(graph)
    for n, cutoff in enumerate(sorted(set(cutoffs))):
        _plant_cutoff(out, planted, graph, n, cutoff)
    tables = {}
    for role, table in graph.tables.items():
        extra = pa.Table.from_pylist([{c: r.get(c) for c in table.column_names} for r in out.rows[role]],
                                     schema=table.schema)
        tables[role] = pa.concat_tables([table, extra])
    source = hashlib.sha256(f"{MARK}:{graph.source_hash}:{','.join(sorted(set(cutoffs)))}".encode()).hexdigest()
    planted.graph = dataclasses.replace(graph, tables=tables, source_hash=source)
    return planted
