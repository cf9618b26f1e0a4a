"""The leak audit's dated markers, planted in a small hand-made graph: every row planted for a cutoff, their
dates (the cutoff, the day after, witnesses 400 days before), the markers' tags and the witnesses' counts."""

from __future__ import annotations

import hashlib

import pyarrow as pa
import pytest

from auditpacks.packs.icj.graph.reader import Graph
from auditpacks.packs.icj.tools.canaries import EARLY, MARK, WORDS, _long, plant

COLUMNS = {
    "cases": ["case_id", "name", "case_type"],
    "documents": ["document_id", "case_id", "date", "doc_type", "title", "court"],
    "passages": ["document_id", "passage_id", "ordinal", "text"],
    "document_case_links": ["document_id", "cited_case_id"],
    "document_provision_links": ["document_id", "provision_key"],
    "document_resolution_links": ["document_id", "symbol"],
    "judge_links": ["document_id", "judge_id"],
    "instruments": ["instrument_id", "name", "date"],
    "provisions": ["provision_key", "instrument_id", "label"],
    "resolutions": ["symbol", "date", "title"],
    "resolution_passages": ["symbol", "passage_id", "text"],
    "resolution_links": ["source_symbol", "target_symbol"],
    "judges": ["judge_id", "name", "term_start"],
}
DOCUMENTS = [
    {"document_id": None, "case_id": "070", "date": "2005-01-01", "title": "no id"},
    {"document_id": "ICJ_131_2004", "case_id": "131", "date": "2004-07-09", "title": "Wall"},
    {"document_id": "ICJ_131_2004", "case_id": "131", "date": "2004-07-10", "title": "Wall, corrected"},
    {"document_id": "ICJ_070_1986", "case_id": "070", "date": "1986-06-27", "title": "Nicaragua"},
    {"document_id": "ICJ_070_1984", "case_id": "070", "date": "1984-11-26", "title": "Nicaragua, jurisdiction"},
]


def make_graph(rows=None, source_hash="abc"):
    rows = {"cases": [{"case_id": None, "name": "no id"}, {"case_id": "070", "name": "Nicaragua"}],
            "documents": DOCUMENTS, "provisions": [{"provision_key": "charter:article_51"}],
            "resolutions": [{"symbol": "A/RES/2625(XXV)", "date": "1970-10-24"}], **(rows or {})}
    tables = {role: pa.table({c: pa.array([r.get(c) for r in rows.get(role, [])], pa.string()) for c in columns})
              for role, columns in COLUMNS.items()}
    return Graph(tables=tables, source_hash=source_hash)


@pytest.fixture
def planted():  # planted anew for each test, so that each test is known to run the planting
    return plant(make_graph(), ["1986-06-27"])


def added(planted, role):
    """The rows planted in ``role`` (after the graph's own), with only the columns set."""
    before = make_graph().tables[role].num_rows
    return [{k: v for k, v in row.items() if v is not None} for row in planted.graph.tables[role].to_pylist()[before:]]


def test_the_nonce_comes_from_the_copy():
    one, again, other = plant(make_graph(), ["1986-06-27"]), plant(make_graph(), ["2004-07-09"]), \
        plant(make_graph(source_hash="def"), ["1986-06-27"])
    assert one.nonce == again.nonce == hashlib.sha256(b"CANARY:abc").hexdigest()[:6] != other.nonce


def test_the_planted_copy_has_a_source_hash_of_its_own():
    graph = make_graph()
    hashes = {tuple(c): plant(graph, c).graph.source_hash for c in (["1986-06-27"], ["1986-06-27", "1986-06-27"],
                                                                    ["2004-07-09", "1986-06-27"], ["1986-06-27",
                                                                                                   "2004-07-09"])}
    assert hashes[("1986-06-27",)] == hashes[("1986-06-27", "1986-06-27")] == hashlib.sha256(
        b"CANARY:abc:1986-06-27").hexdigest()
    assert hashes[("2004-07-09", "1986-06-27")] == hashes[("1986-06-27", "2004-07-09")] == hashlib.sha256(
        b"CANARY:abc:1986-06-27,2004-07-09").hexdigest()
    assert graph.source_hash == "abc" and plant(graph, ["1986-06-27"]).graph is not graph


@pytest.mark.parametrize("day, text", [("1986-06-27", "27 June 1986"), ("2004-07-09", "9 July 2004"),
                                       ("1949-12-15", "15 December 1949")])
def test_dates_in_free_text(day, text):
    assert _long(day) == text


def test_markers_are_dated_on_the_cutoff_the_day_after_and_witnesses_long_before():
    planted = plant(make_graph(), ["2004-07-09", "1986-06-27", "1986-06-27"])
    tag = f"{MARK}{planted.nonce}"
    assert planted.markers == {
        f"{tag}N0W": "1985-05-23", f"{tag}N0X0": "1986-06-27", f"{tag}N0X1": "1986-06-28", f"{tag}N0E": "1986-06-27",
        f"{tag}N1W": "2003-06-05", f"{tag}N1X0": "2004-07-09", f"{tag}N1X1": "2004-07-10",
        f"{tag}N1E": "2004-07-10"}  # the Wall's latest row: its early row may be seen only from then


def test_what_was_planted_is_listed_for_the_report(planted):
    tag = f"{MARK}{planted.nonce}N0"
    assert planted.listing == [
        {"cutoff": "1986-06-27", "tag": f"{tag}W", "date": "1985-05-23",
         "what": "witnesses (case, provision, resolution) cited only by the later markers"},
        {"cutoff": "1986-06-27", "tag": f"{tag}X0", "date": "1986-06-27", "what": (
            "2 documents (an existing and a new case), a plain-id document tagged in its passage, a document "
            "listed twice (its earlier row first), a resolution, an instrument with a provision, a judge")},
        {"cutoff": "1986-06-27", "tag": f"{tag}X1", "date": "1986-06-28", "what": (
            "2 documents (an existing and a new case), a plain-id document tagged in its passage, a document "
            "listed twice (its earlier row first), a resolution, an instrument with a provision, a judge")},
        {"cutoff": "1986-06-27", "tag": f"{tag}E", "date": "1986-06-27",
         "what": "an early row of the copy's document ICJ_070_1986"},
    ]


def test_the_witnesses_counts_on_the_cut_graph(planted):
    w = f"{MARK}{planted.nonce}N0W"
    assert planted.witnesses == {"1986-06-27": {
        f"{w.lower()}-case": ("case_id", {"documents": 1, "cited_by": 0, "first_date": "1985-05-23",
                                          "last_date": "1985-05-23"}),
        f"{w.lower()}:article_1": ("provision_key", {"cited_by": 1}),
        f"A/RES/{w}": ("symbol", {"cited_by_documents": 1, "cited_by_resolutions": 0})}}


def test_the_ids_worth_asking_the_tools_for(planted):
    x0, x1 = (f"{MARK}{planted.nonce}N0X{k}" for k in (0, 1))
    assert planted.probes == [
        f"{x0}_DOC0_1986-06-27", f"{x0}_DOC1_1986-06-27", f"{x0.lower()}-case", f"ICJ_AUDIT_{planted.nonce}_0_0",
        f"{x0}_TWIN", f"A/RES/{x0}", f"{x0.lower()}:article_1", f"{x0}_judge",
        f"{x1}_DOC0_1986-06-28", f"{x1}_DOC1_1986-06-28", f"{x1.lower()}-case", f"ICJ_AUDIT_{planted.nonce}_0_1",
        f"{x1}_TWIN", f"A/RES/{x1}", f"{x1.lower()}:article_1", f"{x1}_judge", "ICJ_070_1986"]


def document(doc, case, day, title):
    return {"document_id": doc, "case_id": case, "date": day, "doc_type": "judgment", "title": title, "court": "ICJ"}


def test_the_planted_cases_documents_and_passages(planted):
    w, x0, x1 = (f"{MARK}{planted.nonce}N0{s}" for s in ("W", "X0", "X1"))
    plain0, plain1 = f"ICJ_AUDIT_{planted.nonce}_0_0", f"ICJ_AUDIT_{planted.nonce}_0_1"
    assert added(planted, "cases") == [
        {"case_id": f"{w.lower()}-case", "name": f"{w} witness case", "case_type": "contentious"},
        {"case_id": f"{x0.lower()}-case", "name": f"{x0} case", "case_type": "contentious"},
        {"case_id": f"{x1.lower()}-case", "name": f"{x1} case", "case_type": "contentious"}]
    assert added(planted, "documents") == [
        document(f"{w}_DOC", f"{w.lower()}-case", "1985-05-23", f"{w} witness judgment"),
        document(f"{x0}_DOC0_1986-06-27", "070", "1986-06-27", f"{x0} judgment"),
        document(f"{x0}_DOC1_1986-06-27", f"{x0.lower()}-case", "1986-06-27", f"{x0} judgment"),
        document(plain0, "070", "1986-06-27", "Judgment"),
        document(f"{x0}_TWIN", "070", EARLY, f"{x0} twin, its earlier row"),
        document(f"{x0}_TWIN", "070", "1986-06-27", f"{x0} twin, its latest row"),
        document(f"{x1}_DOC0_1986-06-28", "070", "1986-06-28", f"{x1} judgment"),
        document(f"{x1}_DOC1_1986-06-28", f"{x1.lower()}-case", "1986-06-28", f"{x1} judgment"),
        document(plain1, "070", "1986-06-28", "Judgment"),
        document(f"{x1}_TWIN", "070", EARLY, f"{x1} twin, its earlier row"),
        document(f"{x1}_TWIN", "070", "1986-06-28", f"{x1} twin, its latest row"),
        {"document_id": "ICJ_070_1986", "case_id": "070", "date": EARLY,
         "title": f"{MARK}{planted.nonce}N0E early row of ICJ_070_1986"}]
    texts = {row["passage_id"]: row["text"] for row in added(planted, "passages")}
    assert texts == {
        f"{w}_DOC#p0": f"{w} {WORDS}",
        f"{x0}_DOC0_1986-06-27#p0": f"{x0} {WORDS} {x0}, delivered on 27 June 1986.",
        f"{x0}_DOC1_1986-06-27#p0": f"{x0} {WORDS} {x0}, delivered on 27 June 1986.",
        f"{plain0}#p0": f"{WORDS} ({x0}).", f"{x0}_TWIN#p0": f"{x0} twin {WORDS}",
        f"{x1}_DOC0_1986-06-28#p0": f"{x1} {WORDS} {x1}, delivered on 28 June 1986.",
        f"{x1}_DOC1_1986-06-28#p0": f"{x1} {WORDS} {x1}, delivered on 28 June 1986.",
        f"{plain1}#p0": f"{WORDS} ({x1}).", f"{x1}_TWIN#p0": f"{x1} twin {WORDS}"}
    assert all(row["ordinal"] == "0" and row["passage_id"] == f"{row['document_id']}#p0"
               for row in added(planted, "passages"))
    assert len(added(planted, "passages")) == 11  # a passage per document row, the twins' two rows each


def test_the_planted_citations(planted):
    w, x0, x1 = (f"{MARK}{planted.nonce}N0{s}" for s in ("W", "X0", "X1"))
    documents = [row["document_id"] for row in added(planted, "documents")[:-1]]
    # the day's two documents cite the witnesses (the witness document its own provision and resolution, and the
    # copy's first case); every other document the copy's first case, provision and resolution
    day = [f"{x0}_DOC0_1986-06-27", f"{x0}_DOC1_1986-06-27"]
    assert added(planted, "document_case_links") == [
        {"document_id": d, "cited_case_id": f"{w.lower()}-case" if d in day else "070"} for d in documents]
    assert added(planted, "document_provision_links") == [
        {"document_id": d, "provision_key": f"{w.lower()}:article_1" if d in day + [f"{w}_DOC"] else
         "charter:article_51"} for d in documents]
    assert added(planted, "document_resolution_links") == [
        {"document_id": d, "symbol": f"A/RES/{w}" if d in day + [f"{w}_DOC"] else "A/RES/2625(XXV)"}
        for d in documents]
    assert added(planted, "judge_links") == [
        {"document_id": f"{x0}_DOC0_1986-06-27", "judge_id": f"{x0}_judge"},
        {"document_id": f"{x0}_DOC1_1986-06-27", "judge_id": f"{x0}_judge"},
        {"document_id": f"{x1}_DOC0_1986-06-28", "judge_id": f"{x1}_judge"},
        {"document_id": f"{x1}_DOC1_1986-06-28", "judge_id": f"{x1}_judge"}]
    assert added(planted, "resolution_links") == [
        {"source_symbol": f"A/RES/{x0}", "target_symbol": f"A/RES/{w}"},
        {"source_symbol": f"A/RES/{x1}", "target_symbol": "A/RES/2625(XXV)"}]


def test_the_planted_instruments_provisions_resolutions_and_judges(planted):
    w, x0, x1 = (f"{MARK}{planted.nonce}N0{s}" for s in ("W", "X0", "X1"))
    assert added(planted, "instruments") == [
        {"instrument_id": w.lower(), "name": f"{w} witness treaty", "date": "1985-05-23"},
        {"instrument_id": x0.lower(), "name": f"{x0} treaty", "date": "1986-06-27"},
        {"instrument_id": x1.lower(), "name": f"{x1} treaty", "date": "1986-06-28"}]
    assert added(planted, "provisions") == [
        {"provision_key": f"{t.lower()}:article_1", "instrument_id": t.lower(), "label": f"{t} Article 1"}
        for t in (w, x0, x1)]
    assert added(planted, "resolutions") == [
        {"symbol": f"A/RES/{w}", "date": "1985-05-23", "title": f"{w} witness resolution"},
        {"symbol": f"A/RES/{x0}", "date": "1986-06-27", "title": f"{x0} resolution"},
        {"symbol": f"A/RES/{x1}", "date": "1986-06-28", "title": f"{x1} resolution"}]
    assert added(planted, "resolution_passages") == [
        {"symbol": f"A/RES/{x0}", "passage_id": f"A/RES/{x0}#p0",
         "text": f"{x0} {WORDS} resolution adopted on 27 June 1986"},
        {"symbol": f"A/RES/{x1}", "passage_id": f"A/RES/{x1}#p0",
         "text": f"{x1} {WORDS} resolution adopted on 28 June 1986"}]
    assert added(planted, "judges") == [
        {"judge_id": f"{x0}_judge", "name": f"{x0} judge", "term_start": "1986-06-27"},
        {"judge_id": f"{x1}_judge", "name": f"{x1} judge", "term_start": "1986-06-28"}]


def test_an_empty_copy_is_cited_through_stand_ins_and_has_no_early_row():
    planted = plant(make_graph({"cases": [], "documents": [], "provisions": [{"provision_key": ""}],
                                "resolutions": []}), ["1986-06-27"])
    x1 = f"{MARK}{planted.nonce}N0X1"
    links = [r for r in planted.graph.tables["document_case_links"].to_pylist() if r["document_id"].startswith(x1)]
    assert {r["cited_case_id"] for r in links} == {"001"}
    provisions = planted.graph.tables["document_provision_links"].to_pylist()
    assert {r["provision_key"] for r in provisions if r["document_id"].startswith(x1)} == {"statute:article_36"}
    resolutions = planted.graph.tables["document_resolution_links"].to_pylist()
    assert {r["symbol"] for r in resolutions if r["document_id"].startswith(x1)} == {"A/RES/1(I)"}
    assert not any(tag.endswith("E") for tag in planted.markers)
    assert len(planted.listing) == 3 and planted.probes[-1] == f"{x1}_judge"


def test_no_early_row_when_every_document_is_older():
    planted = plant(make_graph(), ["2010-01-01"])
    assert sorted(t[-2:] for t in planted.markers) == ["0W", "X0", "X1"]


def test_the_planted_tables_keep_the_copy_s_columns_and_types():
    graph = make_graph()
    graph.tables["documents"] = graph.tables["documents"].append_column("language", pa.array(["en"] * 5, pa.string()))
    graph.tables["judges"] = graph.tables["judges"].append_column("rank", pa.array([], pa.int64()))
    planted = plant(graph, ["1986-06-27"])
    for role in ("documents", "judges"):
        assert planted.graph.tables[role].schema == graph.tables[role].schema
    languages = planted.graph.tables["documents"].column("language").to_pylist()[5:]
    assert set(languages[:-1]) == {None} and languages[-1] == "en"  # the early row is a copy of the real one
