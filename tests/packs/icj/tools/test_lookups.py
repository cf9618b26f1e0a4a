"""The designed lookups on the 1986-06-27 snapshot: the scorer's spelling and nothing from later."""

from __future__ import annotations

import pytest

from auditpacks.packs.icj.tools.lookups import Lookups
from tests.support.icj_graph import NICARAGUA_MERITS, snapshots


@pytest.fixture(scope="module")
def look(tmp_path_factory):
    return Lookups(snapshots(tmp_path_factory, "1986-06-27")["1986-06-27"])


def test_cases_by_name_or_unpadded_number(look):
    assert [c["case_id"] for c in look.find_case("Nicaragua")["cases"]] == ["070"]
    case = look.get_case("70")
    assert [d["date"] for d in case["documents"]] == ["1984-05-10", "1984-11-26"]
    assert case["source_dates"] == ["1984-05-10", "1984-11-26"]


def test_case_citations_hold_only_earlier_links(look):
    cites = look.get_case_citations("001")
    assert cites["cites_provisions"] == ["rules:article_68", "statute:article_36", "statute:article_48",
                                         "statute:article_53", "statute:article_57"]
    assert [d["case_id"] for d in cites["cited_by_documents"]] == ["064", "070"]  # not the 1986 judgment


def test_documents_and_their_links(look):
    doc = look.get_document("ICJ_061_WesternSahara_UNGA_NA_1975-10-16_ADV_01_NA_00_EN")
    assert doc["cites_cases"] == ["053"] and doc["cites_resolutions"] == ["A/RES/1514(XV)", "A/RES/3292(XXIX)"]
    assert doc["judges"] == ["nagendra_singh"]
    assert look.get_document(NICARAGUA_MERITS) == {"error": "no document with that id before the cutoff",
                                                   "source_dates": []}
    assert len(look.get_passages("ICJ_061_WesternSahara_UNGA_NA_1975-10-16_ADV_01_NA_00_EN", 2)["passages"]) == 2


def test_find_document_within_a_case(look):
    hits = look.find_document("self-defence Nicaragua", case_id="070")["passages"]
    assert hits and {h["document_id"][:7] for h in hits} == {"ICJ_070"}


def test_provisions_resolutions_and_judges(look):
    assert look.find_provision("charter 51")["provisions"][0]["provision_key"] == "charter:article_51"
    assert look.get_provision("charter:article_51")["cited_by_documents"] == []  # cited first in 1986
    res = look.get_resolution("A/RES/2625(XXV)")
    assert res["cites_resolutions"] == ["A/RES/1514(XV)"] and res["cited_by_resolutions"] == ["A/RES/3314(XXIX)"]
    assert res["cited_by_documents"] == []
    assert look.get_resolution("A/RES/ES-10/14")["error"]  # adopted in 2003
    assert [j["judge_id"] for j in look.find_judge("Schwebel")["judges"]] == ["schwebel"]
    assert look.get_judge("schwebel")["judge"]["term_end"] is None  # his term ended in 2000
    assert "error" in look.get_judge("shi")  # elected in 1994


# --- each lookup on a small fake snapshot whose answers are worked out by hand ---------------------------------------

def _doc(document_id: str, case_id: str, date: str, doc_type: str) -> dict:
    return {"document_id": document_id, "case_id": case_id, "date": date, "doc_type": doc_type, "title": "t"}


def _links(key: str, out: str, pairs: str) -> list[dict]:
    return [{key: a, out: b} for a, b in (pair.split(">") for pair in pairs.split())]


CASES = [{"case_id": "002", "name": "Corfu Channel Compensation", "case_type": "contentious", "court": "ICJ", "x": 1},
         {"case_id": "001", "name": "Corfu Channel", "case_type": "contentious", "court": "ICJ", "x": 1},
         {"case_id": "070", "name": "Military Activities in Nicaragua", "case_type": "contentious", "court": "ICJ"},
         {"case_id": "061", "name": "Western Sahara", "case_type": "advisory", "court": "ICJ"}]
TABLES = {
    "cases": CASES + [{"case_id": f"{n}", "name": f"Fisheries {n}", "case_type": "c", "court": "ICJ"}
                      for n in range(100, 130)],
    "documents": [_doc("D3", "070", "1984-05-10", "ORD"), _doc("D2", "070", "1984-11-26", "JUD"),
                  _doc("D1", "001", "1949-04-09", "JUD"), _doc("D4", "061", "1975-10-16", "ADV")],
    "document_case_links": _links("document_id", "cited_case_id", "D2>061 D2>001 D3>061 D4>001"),
    "document_provision_links": _links("document_id", "provision_key",
                                       "D2>statute:article_36 D2>charter:article_51 D3>statute:article_36"),
    "document_resolution_links": _links("document_id", "symbol", "D2>A/RES/2625(XXV) D4>A/RES/1514(XV)"),
    "resolution_links": _links("source_symbol", "target_symbol", "A/RES/2625(XXV)>A/RES/1514(XV) "
                                                                 "A/RES/3314(XXIX)>A/RES/2625(XXV)"),
    "resolutions": [{"symbol": "A/RES/1514(XV)", "title": "Granting of independence", "date": "1960-12-14"},
                    {"symbol": "A/RES/2625(XXV)", "title": "Friendly relations", "date": "1970-10-24"},
                    {"symbol": "A/RES/3314(XXIX)", "title": "Definition of aggression", "date": "1974-12-14"},
                    {"symbol": "A/RES/9(I)", "title": "Undated relations", "date": None},
                    {"symbol": "A/RES/10(I)", "title": None, "date": "1946-01-01"}],
    "provisions": [{"provision_key": "statute:article_36", "instrument_id": "statute", "label": "Article 36"},
                   {"provision_key": "charter:article_51", "instrument_id": "un_charter", "label": "Article 51"}],
    "judges": [{"judge_id": "schwebel", "name": "Stephen Schwebel", "nationality": "United States"},
               {"judge_id": "nagendra_singh", "name": "Nagendra Singh", "nationality": "India"}],
    "judge_links": _links("judge_id", "document_id", "schwebel>D2 schwebel>D3 nagendra_singh>D4"),
    "passages": [{"document_id": "D2", "ordinal": o, "text": f"p{o}"} for o in ("2", "x", "10", "1")]
                + [{"document_id": "D3", "ordinal": "1", "text": "other"}],
}
HITS = [{"kind": "document", "source": "D2", "date": "1984-11-26", "text": "a", "score": 3.0},
        {"kind": "resolution", "source": "A/RES/2625(XXV)", "date": "1970-10-24", "text": "b", "score": 2.5},
        {"kind": "document", "source": "D4", "date": "1975-10-16", "text": "c", "score": 2.0},
        {"kind": "document", "source": "D3", "date": "1984-05-10", "text": "d", "score": 1.0}]


class FakeSnapshot:
    """The tables above; a lexical index that answers ``HITS`` and records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, int]] = []
        self.lexical = self

    def rows(self, role: str) -> list[dict]:
        return TABLES[role]

    def rows_where(self, role: str, column: str, value: str) -> list[dict]:
        return [dict(r) for r in TABLES[role] if r[column] == value]

    def search(self, query: str, k: int) -> list[dict]:
        self.asked.append((query, k))
        return HITS


@pytest.fixture
def fake() -> Lookups:
    return Lookups(FakeSnapshot())


NO_CASE = {"error": "no case with that id before the cutoff", "source_dates": []}
NO_DOCUMENT = {"error": "no document with that id before the cutoff", "source_dates": []}


@pytest.mark.parametrize("query, ids", [
    (" corfu channel ", ["001", "002"]),   # the exact name first, though both share two words
    ("Corfu", ["002", "001"]),             # ties in table order
    ("070", ["070"]), ("western sahara nicaragua", ["061", "070"]), ("Gulf", []), ("", []),
])
def test_find_case_ranks_by_shared_words_with_an_exact_match_first(fake, query, ids):
    assert [c["case_id"] for c in fake.find_case(query)["cases"]] == ids


def test_find_case_gives_four_fields_and_no_dates(fake):
    assert fake.find_case("Corfu", limit=1) == {"cases": [{"case_id": "002", "name": "Corfu Channel Compensation",
                                                           "case_type": "contentious", "court": "ICJ"}],
                                                "source_dates": []}


@pytest.mark.parametrize("limit, count", [(None, 25), (3, 3), (0, 1), (-5, 1), (25, 25), (26, 25), (99, 25),
                                          (True, 25), ("3", 25), (2.0, 25)])
def test_a_list_is_capped_at_25_and_holds_at_least_one(fake, limit, count):
    found = fake.find_case("Fisheries") if limit is None else fake.find_case("Fisheries", limit=limit)
    assert [c["case_id"] for c in found["cases"]] == [str(n) for n in range(100, 100 + count)]


@pytest.mark.parametrize("case_id", ["70", " 070 ", "070"])
def test_get_case_lists_its_documents_by_date(fake, case_id):
    assert fake.get_case(case_id) == {
        "case": CASES[2], "source_dates": ["1984-05-10", "1984-11-26"],
        "documents": [{"document_id": "D3", "case_id": "070", "date": "1984-05-10", "doc_type": "ORD"},
                      {"document_id": "D2", "case_id": "070", "date": "1984-11-26", "doc_type": "JUD"}]}


@pytest.mark.parametrize("method", ["get_case", "get_case_citations"])
def test_an_unknown_case_is_an_error(fake, method):
    assert getattr(fake, method)("999") == NO_CASE


def test_case_citations_gather_every_own_documents_links(fake):
    assert fake.get_case_citations(" 70") == {
        "case_id": "070", "cites_cases": ["001", "061"],
        "cites_provisions": ["charter:article_51", "statute:article_36"], "cites_resolutions": ["A/RES/2625(XXV)"],
        "cited_by_documents": [], "source_dates": ["1984-05-10", "1984-11-26"]}
    cited = fake.get_case_citations("1")
    assert [d["document_id"] for d in cited["cited_by_documents"]] == ["D4", "D2"]
    assert cited["source_dates"] == ["1949-04-09", "1975-10-16", "1984-11-26"]


@pytest.mark.parametrize("case_id, limit, ids", [(None, 10, ["D2", "D4", "D3"]), ("70", 10, ["D2", "D3"]),
                                                 (" 061", 10, ["D4"]), (None, 2, ["D2", "D4"]), ("", 0, ["D2"])])
def test_find_document_keeps_document_passages_of_the_case_asked(fake, case_id, limit, ids):
    found = fake.find_document("self-defence", case_id=case_id, limit=limit)
    assert [p["document_id"] for p in found["passages"]] == ids
    assert found["source_dates"] == sorted(h["date"] for h in HITS if h["source"] in ids)
    assert fake.snapshot.asked == [("self-defence", 40)]


def test_find_document_gives_each_passage_with_its_date_and_score(fake):
    assert fake.find_document("x", limit=1)["passages"] == [{"document_id": "D2", "date": "1984-11-26", "text": "a",
                                                             "score": 3.0}]


def test_get_document_lists_its_links(fake):
    assert fake.get_document(" D2 ") == {
        "document": TABLES["documents"][1], "cites_cases": ["001", "061"],
        "cites_provisions": ["charter:article_51", "statute:article_36"], "cites_resolutions": ["A/RES/2625(XXV)"],
        "judges": ["schwebel"], "source_dates": ["1984-11-26"]}


@pytest.mark.parametrize("method", ["get_document", "get_passages"])
def test_an_unknown_document_is_an_error(fake, method):
    assert getattr(fake, method)("D9") == NO_DOCUMENT


@pytest.mark.parametrize("limit, texts", [(10, ["p1", "p2", "p10", "px"]), (2, ["p1", "p2"]), (0, ["p1"])])
def test_passages_come_in_numeric_order_unnumbered_last(fake, limit, texts):
    assert fake.get_passages(" D2", limit) == {"document_id": "D2", "date": "1984-11-26", "passages": texts,
                                               "source_dates": ["1984-11-26"]}


def test_provisions_are_found_by_key_instrument_or_label(fake):
    assert fake.find_provision("charter") == {"provisions": [TABLES["provisions"][1]], "source_dates": []}
    assert fake.find_provision("Article", limit=1)["provisions"] == [TABLES["provisions"][0]]
    assert fake.get_provision(" statute:article_36") == {
        "provision": TABLES["provisions"][0], "source_dates": ["1984-05-10", "1984-11-26"],
        "cited_by_documents": [{"document_id": "D3", "case_id": "070", "date": "1984-05-10", "doc_type": "ORD"},
                               {"document_id": "D2", "case_id": "070", "date": "1984-11-26", "doc_type": "JUD"}]}


def test_resolutions_are_found_with_their_dates_and_links(fake):
    found = fake.find_resolution("relations")
    assert found == {"resolutions": [TABLES["resolutions"][1], TABLES["resolutions"][3]],
                     "source_dates": ["1970-10-24"]}
    assert fake.find_resolution("relations", limit=1)["resolutions"] == [TABLES["resolutions"][1]]
    assert fake.get_resolution(" A/RES/2625(XXV) ") == {
        "resolution": TABLES["resolutions"][1], "cites_resolutions": ["A/RES/1514(XV)"],
        "cited_by_resolutions": ["A/RES/3314(XXIX)"],
        "cited_by_documents": [{"document_id": "D2", "case_id": "070", "date": "1984-11-26", "doc_type": "JUD"}],
        "source_dates": ["1960-12-14", "1970-10-24", "1974-12-14", "1984-11-26"]}


def test_judges_are_found_by_name_or_nationality_with_the_documents_they_sat_on(fake):
    assert fake.find_judge("india") == {"judges": [TABLES["judges"][1]], "source_dates": []}
    assert fake.find_judge("stephen nagendra", limit=1)["judges"] == [TABLES["judges"][0]]
    assert fake.get_judge(" schwebel ") == {
        "judge": TABLES["judges"][0], "source_dates": ["1984-05-10", "1984-11-26"],
        "sat_on": [{"document_id": "D3", "case_id": "070", "date": "1984-05-10", "doc_type": "ORD"},
                   {"document_id": "D2", "case_id": "070", "date": "1984-11-26", "doc_type": "JUD"}]}


@pytest.mark.parametrize("method, kind", [("get_provision", "provision"), ("get_resolution", "resolution"),
                                          ("get_judge", "judge")])
def test_an_unknown_id_is_an_error_naming_its_kind(fake, method, kind):
    assert getattr(fake, method)("nobody") == {"error": f"no {kind} with that id before the cutoff", "source_dates": []}


@pytest.mark.parametrize("method, query, key, found", [
    ("find_provision", "article_51", "provision_key", ["charter:article_51"]),   # a word of the key only
    ("find_provision", "un_charter", "provision_key", ["charter:article_51"]),   # the instrument only
    ("find_resolution", "2625", "symbol", ["A/RES/2625(XXV)"]),                  # a word of the symbol only
    ("find_judge", "nagendra_singh", "judge_id", ["nagendra_singh"]),            # the id only
    ("find_resolution", "xxxx", "symbol", []),                                   # a missing title matches nothing
    ("find_case", "STRASSE", "case_id", []),                                     # words compared in lower case
])
def test_each_searched_field_is_matched_word_for_word(fake, method, query, key, found):
    TABLES["cases"].append({"case_id": "200", "name": "Straße", "case_type": "c", "court": "ICJ"})
    try:
        rows = next(v for k, v in getattr(fake, method)(query).items() if k != "source_dates")
    finally:
        TABLES["cases"].pop()
    assert [row[key] for row in rows] == found


def test_a_passage_of_a_document_outside_the_cut_is_left_out_of_a_cases_search(fake):
    outside = {"kind": "document", "source": "D9", "date": "1999-01-01", "text": "x", "score": 9.0}
    fake.snapshot.search = lambda query, k: [outside, *HITS]
    assert [p["document_id"] for p in fake.find_document("x", case_id="70")["passages"]] == ["D2", "D3"]
