"""The cutoff: what of the graph was available before a target's decision. The one filter.

``cut(graph, cutoff)`` keeps, for a cutoff date D (the target's ``target_decision_date``):

* documents dated strictly before D (an undated document is dropped); the target case's own
  earlier filings are documents like any other and stay when they are older than D;
* passages of kept documents;
* cases with a kept document or cited by one (external cases and citation targets);
* instruments dated before D or undated, and the provisions of kept instruments;
* resolutions adopted before D (undated: dropped) and their passages;
* every link whose creating side is kept: document→case, document→provision and
  document→resolution by the citing document, resolution→resolution by the citing resolution, a
  judge's seat by the document; a link also needs both ends kept. A link made by a later document
  goes even when both ends are older;
* judges whose term began before D (undated: only those who sat on a kept document); a term end
  on or after D is not yet known and is blanked.

A record listed more than once (one id on several rows) is one record, dated by its **latest**
date: it is kept, as its latest row, only when that date is before D, so an earlier duplicate row
can never carry it past the cut (an undated row of a document or resolution counts as later than
any date; of an instrument or judge, any dated row wins).

Derived values are recomputed on the cut graph: documents and citations per case, first and last
document dates, citations per provision and per resolution.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import pyarrow as pa
import pyarrow.compute as pc

from auditpacks.packs.icj.graph.graphdb import one_per_key
from auditpacks.packs.icj.graph.reader import Graph


def before(dates: pa.ChunkedArray | pa.Array, cutoff: str) -> pa.Array:
    """True where an ISO date is strictly before ``cutoff`` (null dates: False)."""
    return pc.fill_null(pc.less(dates, pa.scalar(cutoff)), False)


def _keep(table: pa.Table, mask) -> pa.Table:
    return table.filter(mask)


def _in(table: pa.Table, column: str, values) -> pa.Array:
    known = pa.array(sorted(v for v in values if v is not None), pa.string())
    return pc.fill_null(pc.is_in(table[column], value_set=known), False)




#: sorts after every ISO date: an undated row of a dated record makes it later than any cutoff
UNDATED = "9999-99-99"


def latest_rows(table: pa.Table, key: str, column: str, *, undated_last: bool = True) -> pa.Table:
    """One row per key: the row with the latest ``column`` date (ties: the first). An undated row counts as
    the latest (``undated_last``, where undated records are dropped) or the earliest (where they may stay)."""
    best: dict = {}
    for i, (value, day) in enumerate(zip(table[key].to_pylist(), table[column].to_pylist())):
        if value is None:
            continue
        rank = day if day is not None else UNDATED if undated_last else ""
        if value not in best or rank > best[value][0]:
            best[value] = (rank, i)
    return table.take(pa.array(sorted(i for _, i in best.values()), pa.int64()))


def _dated_before(table: pa.Table, key: str, column: str, cutoff: str, *, undated: bool = False) -> pa.Table:
    """Records (one row each, their latest) dated before ``cutoff``; ``undated``: records with no date at all
    are kept too."""
    table = latest_rows(table, key, column, undated_last=not undated)
    mask = before(table[column], cutoff)
    return table.filter(pc.or_(pc.is_null(table[column]), mask) if undated else mask)


def _with(table: pa.Table, name: str, values: list, kind=pa.int64()) -> pa.Table:
    return table.append_column(name, pa.array(values, kind))


def cut(graph: Graph, cutoff: str) -> Graph:
    """The part of ``graph`` available before ``cutoff`` (``YYYY-MM-DD``), with derived values recomputed."""
    t = graph.tables
    docs = _dated_before(t["documents"], "document_id", "date", cutoff)
    doc_ids = set(docs["document_id"].to_pylist())
    cites = _keep(t["document_case_links"], _in(t["document_case_links"], "document_id", doc_ids))
    case_ids = set(docs["case_id"].to_pylist()) | set(cites["cited_case_id"].to_pylist())
    cases = one_per_key(_keep(t["cases"], _in(t["cases"], "case_id", case_ids)), "case_id")
    cites = _keep(cites, _in(cites, "cited_case_id", set(cases["case_id"].to_pylist())))

    instruments = _dated_before(t["instruments"], "instrument_id", "date", cutoff, undated=True)
    provisions = one_per_key(_keep(t["provisions"], _in(t["provisions"], "instrument_id",
                                                    set(instruments["instrument_id"].to_pylist()))), "provision_key")
    resolutions = _dated_before(t["resolutions"], "symbol", "date", cutoff)
    symbols = set(resolutions["symbol"].to_pylist())

    def links(role: str, end: str, kept: set) -> pa.Table:
        table = t[role]
        return _keep(table, pc.and_(_in(table, "document_id", doc_ids), _in(table, end, kept)))

    doc_prov = links("document_provision_links", "provision_key", set(provisions["provision_key"].to_pylist()))
    doc_res = links("document_resolution_links", "symbol", symbols)
    res_res = t["resolution_links"]
    res_res = _keep(res_res, pc.and_(_in(res_res, "source_symbol", symbols), _in(res_res, "target_symbol", symbols)))

    judges = t["judges"]
    seated = t["judge_links"].filter(_in(t["judge_links"], "document_id", doc_ids))
    sat = set(seated["judge_id"].to_pylist())
    judges = latest_rows(judges, "judge_id", "term_start", undated_last=False)
    judges = _keep(judges, pc.if_else(pc.is_null(judges["term_start"]), _in(judges, "judge_id", sat),
                                      before(judges["term_start"], cutoff)))
    ended = before(judges["term_end"], cutoff)
    judges = judges.set_column(judges.column_names.index("term_end"), "term_end",
                               pc.if_else(ended, judges["term_end"], pa.scalar(None, pa.string())))
    seated = _keep(seated, _in(seated, "judge_id", set(judges["judge_id"].to_pylist())))

    passages = _keep(t["passages"], _in(t["passages"], "document_id", doc_ids))
    res_passages = _keep(t["resolution_passages"], _in(t["resolution_passages"], "symbol", symbols))
    tables = {"cases": _derive_cases(cases, docs, cites), "documents": docs, "passages": passages,
              "instruments": instruments,
              "provisions": _with(provisions, "cited_by", _counts_for(provisions["provision_key"],
                                                                      doc_prov["provision_key"])),
              "resolutions": _derive_resolutions(resolutions, doc_res, res_res),
              "resolution_passages": res_passages, "document_case_links": cites,
              "document_provision_links": doc_prov, "document_resolution_links": doc_res,
              "resolution_links": res_res, "judges": judges, "judge_links": seated}
    return dataclasses.replace(graph, tables=tables)


def _counts_for(keys, cited) -> list[int]:
    counts = Counter(cited.to_pylist())
    return [counts.get(k, 0) for k in keys.to_pylist()]


def _derive_cases(cases: pa.Table, docs: pa.Table, cites: pa.Table) -> pa.Table:
    dates: dict[str, list[str]] = {}
    for case_id, day in zip(docs["case_id"].to_pylist(), docs["date"].to_pylist()):
        dates.setdefault(case_id, []).append(day)
    ids = cases["case_id"].to_pylist()
    cases = _with(cases, "documents", [len(dates.get(c, [])) for c in ids])
    cases = _with(cases, "cited_by", _counts_for(cases["case_id"], cites["cited_case_id"]))
    cases = _with(cases, "first_date", [min(dates[c]) if c in dates else None for c in ids], pa.string())
    return _with(cases, "last_date", [max(dates[c]) if c in dates else None for c in ids], pa.string())


def _derive_resolutions(resolutions: pa.Table, doc_res: pa.Table, res_res: pa.Table) -> pa.Table:
    resolutions = _with(resolutions, "cited_by_documents", _counts_for(resolutions["symbol"], doc_res["symbol"]))
    return _with(resolutions, "cited_by_resolutions", _counts_for(resolutions["symbol"], res_res["target_symbol"]))
