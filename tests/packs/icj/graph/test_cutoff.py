"""The cutoff filter on the fixture graph; expected rows worked out by hand from scripts/build_icj_graph_fixture.py."""

from __future__ import annotations

import pyarrow as pa
import pytest

from auditpacks.packs.icj.graph.cutoff import cut
from auditpacks.packs.icj.graph.reader import read_graph
from auditpacks.packs.icj.tools.guard import later_identifiers
from tests.support.icj_graph import GRAPH, NICARAGUA_MERITS


@pytest.fixture(scope="module")
def graph():
    return read_graph(GRAPH)


def _ids(graph, role, key):
    return sorted(graph.tables[role][key].to_pylist())


def test_documents_strictly_before_the_decision_with_the_targets_own_filings(graph):
    g = cut(graph, "1986-06-27")
    dates = sorted(g.tables["documents"]["date"].to_pylist())
    assert len(dates) == 13 and dates[-1] == "1984-11-26"
    own = [d for d, c in zip(g.tables["documents"]["date"].to_pylist(), g.tables["documents"]["case_id"].to_pylist())
           if c == "070"]
    assert sorted(own) == ["1984-05-10", "1984-11-26"]  # the order and the preliminary objections
    assert NICARAGUA_MERITS not in g.tables["documents"]["document_id"].to_pylist()
    assert g.tables["passages"].num_rows == 12 * 3  # passages of the 12 kept ICJ documents (Lotus has none)


def test_a_document_of_the_cutoff_day_is_not_available(graph):
    docs = cut(graph, "1949-04-11").tables["documents"]
    assert "1949-04-09" in docs["date"].to_pylist() and "1949-04-11" not in docs["date"].to_pylist()


def test_links_made_by_a_later_document_are_gone_though_both_ends_are_older(graph):
    g = cut(graph, "1986-06-27")
    cited = dict(zip(g.tables["cases"]["case_id"].to_pylist(), g.tables["cases"]["cited_by"].to_pylist()))
    assert cited["001"] == 2  # 064 merits (1980) and 070 preliminary objections (1984); the 1986 judgment's is cut
    assert cited["pcij-a10"] == 0  # Lotus (1927) stays, the 1986 citation of it does not
    by_docs = dict(zip(g.tables["resolutions"]["symbol"].to_pylist(),
                       g.tables["resolutions"]["cited_by_documents"].to_pylist()))
    assert by_docs["A/RES/2625(XXV)"] == 0 and by_docs["A/RES/1514(XV)"] == 1
    assert sorted(zip(g.tables["resolution_links"]["source_symbol"].to_pylist(),
                      g.tables["resolution_links"]["target_symbol"].to_pylist())) == [
        ("A/RES/2625(XXV)", "A/RES/1514(XV)"), ("A/RES/3292(XXIX)", "A/RES/1514(XV)"),
        ("A/RES/3314(XXIX)", "A/RES/2625(XXV)"), ("S/RES/242 (1967)", "A/RES/181(II)")]


def test_resolutions_by_adoption_date_and_instruments_by_date(graph):
    g = cut(graph, "1948-05-28")
    assert _ids(g, "resolutions", "symbol") == ["A/RES/181(II)"]
    assert _ids(g, "instruments", "instrument_id") == ["charter", "rules", "statute"]  # VCLT (1969) not yet
    assert "vclt:article_31" not in g.tables["provisions"]["provision_key"].to_pylist()
    assert _ids(g, "cases", "case_id") == ["001", "pcij-a10"]  # 003 is decided on the cutoff day itself


def test_judges_by_term_start_with_later_term_ends_blanked(graph):
    judges = {r["judge_id"]: r["term_end"] for r in cut(graph, "1986-06-27").rows("judges")}
    assert judges == {"guerrero": "1958-10-25", "basdevant": "1964-02-05", "hackworth": "1961-02-05",
                      "nagendra_singh": None, "schwebel": None, "bedjaoui": None}


def test_derived_case_values_are_recomputed(graph):
    case = next(r for r in cut(graph, "1949-12-15").rows("cases") if r["case_id"] == "001")
    assert (case["documents"], case["first_date"], case["last_date"]) == (3, "1947-12-01", "1949-04-09")


def test_undated_documents_and_resolutions_are_dropped(graph):
    docs = graph.tables["documents"]
    dates = docs["date"].to_pylist()
    dates[0] = None  # Corfu Channel's written pleading, 1947
    tables = dict(graph.tables, documents=docs.set_column(2, "date", pa.array(dates, pa.string())))
    undated = type(graph)(tables, graph.source_hash)
    assert cut(undated, "1948-05-28").tables["documents"].num_rows == 2
    assert docs["document_id"][0].as_py() in later_identifiers(undated, "1948-05-28")


def test_the_guards_list_is_computed_without_the_filter(graph):
    later = later_identifiers(graph, "1986-06-27")
    assert NICARAGUA_MERITS in later and "A/RES/ES-10/14" in later and "shi" in later
    assert "schwebel" not in later and "A/RES/3314(XXIX)" not in later
