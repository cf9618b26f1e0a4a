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
