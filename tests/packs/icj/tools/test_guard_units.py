"""The run-time guard on a small hand-made graph: which records are later, which texts only they hold, the dates
written in free text, and each violation as the trace names it."""

from __future__ import annotations

import hashlib
from datetime import date, datetime

import pyarrow as pa
import pytest

from auditpacks.packs.icj.graph.reader import Graph
from auditpacks.packs.icj.tools.guard import Guard, digest, later_identifiers, text_dates, withheld_values

CUTOFF = "1986-06-27"


def strings(**columns):
    return pa.table({name: pa.array(values, pa.string()) for name, values in columns.items()})


def graph():
    return Graph(tables={
        "documents": strings(document_id=["D1949", "D1986", "D1990", "D1990", "DNONE"],
                             case_id=["001", "070", "187", "187", "070"],
                             date=["1949-04-09", "1986-06-27", "1990-01-01", "1980-01-01", None],
                             title=["Corfu Channel", "Nicaragua merits", "Later case", "Later case, earlier row",
                                    "Undated"]),
        "resolutions": strings(symbol=["A/RES/2625(XXV)", "A/RES/ES-10/14"], date=["1970-10-24", "2003-12-08"],
                               title=["Friendly relations", "Wall request"]),
        "instruments": strings(instrument_id=["charter", "new_treaty", "undated"],
                               date=["1945-06-26", "1986-06-27", None], name=["UN Charter", "New Treaty", "Old Pact"]),
        "provisions": strings(provision_key=["charter:article_51", "new_treaty:article_1"],
                              instrument_id=["charter", "new_treaty"]),
        "judges": strings(judge_id=["J_OLD", "J_NEW", "J_NONE"], term_start=["1979-02-06", "1986-06-27", None],
                          name=["Old Judge", "New Judge", "Unknown Judge"]),
        "cases": strings(case_id=["001", "070", "187", "200"],
                         name=["Corfu Channel case", "Nicaragua case", "Later case name", "Cited case name"]),
        "document_case_links": strings(document_id=["D1949", "D1990"], cited_case_id=["200", "001"]),
        "passages": strings(document_id=["D1990"], text=["a passage only the later document holds"]),
        "resolution_passages": strings(symbol=["A/RES/ES-10/14"], text=["a later resolution passage"]),
    })


def test_later_identifiers_are_documents_resolutions_and_judges_from_the_cutoff_on():
    assert later_identifiers(graph(), CUTOFF) == {"D1986", "D1990", "DNONE", "A/RES/ES-10/14", "J_NEW"}


def test_the_texts_only_later_records_hold():
    withheld = withheld_values(graph(), CUTOFF)
    assert withheld == {
        "D1986", "Nicaragua merits", "Later case", "Later case, earlier row", "DNONE", "Undated",
        "187", "Later case name", "070", "Nicaragua case",    # cases no earlier document has or cites
        "A/RES/ES-10/14", "2003-12-08", "Wall request",
        "new_treaty", "New Treaty", "new_treaty:article_1",   # an instrument dated the cutoff day, its provision
        "J_NEW", "New Judge", "1986-06-27", "1990-01-01", "1980-01-01"}
    # cited by an earlier document: case 200 is known before the cutoff; case 001 is an earlier document's;
    # D1990 is also in a link row, which no record owns (later identifiers name it)
    assert not {"Cited case name", "200", "Corfu Channel case", "Old Pact", "Unknown Judge", "D1990"} & withheld
    assert "a passage only the later document holds" not in withheld  # passages: the cut corpus decides


def test_long_texts_are_withheld_by_their_digest_and_large_strings_are_read():
    g = graph()
    long_title = "A later title " + "x" * 100
    g.tables["documents"] = pa.table({"document_id": pa.array(["D1990"], pa.large_string()),
                                      "case_id": pa.array(["187"], pa.large_string()),
                                      "date": pa.array(["1990-01-01"], pa.large_string()),
                                      "title": pa.array([long_title], pa.large_string())})
    withheld = withheld_values(g, CUTOFF)
    assert digest(long_title) in withheld and long_title not in withheld


def test_a_text_of_up_to_96_characters_is_withheld_as_it_is():
    g = graph()
    title = "A later title " + "x" * 82  # 96 characters
    g.tables["documents"] = strings(document_id=["D1990"], case_id=["187"], date=["1990-01-01"], title=[title])
    withheld = withheld_values(g, CUTOFF)
    assert title in withheld and digest(title) not in withheld
    assert list(Guard(CUTOFF, withheld).violations({"title": title}))


def test_a_digest_is_the_sha256_of_the_utf8_text():
    assert digest("abc") == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert digest("arrêt") == "sha256:" + hashlib.sha256("arrêt".encode()).hexdigest()


@pytest.mark.parametrize("text, dates", [
    ("delivered on 2004-07-09.", ["2004-07-09"]), ("delivered on 9 July 2004.", ["2004-07-09"]),
    ("on July 9, 2004 and on 27 June 1986", ["2004-07-09", "1986-06-27"]),
    ("on 09 December 1949", ["1949-12-09"]), ("on December 15, 1949", ["1949-12-15"]),
    ("on 31 February 2004 and 2004-13-01", []), ("on 9 Juillet 2004, in 2004, July 2004", []),
    ("A/RES/2625(XXV) of 1970-10-24", ["1970-10-24"]), ("no date", []),
])
def test_dates_written_in_free_text(text, dates):
    assert text_dates(text) == dates


GUARD = Guard(CUTOFF, {"Later case", "x" * 96, digest("y" * 97), "z" * 61})


@pytest.mark.parametrize("result, problem", [
    ({"rows": [["070", "1990-01-01"]]}, "result.rows[0][1] is dated 1990-01-01, not before the cutoff 1986-06-27"),
    ({"case": {"decision_date": 1990}}, "result.case.decision_date is dated 1990-12-31, not before the cutoff "
                                        "1986-06-27"),
    ({"source_dates": ["1950", "1987"]}, "result.source_dates[1] is dated 1987-12-31, not before the cutoff "
                                         "1986-06-27"),
    ({"judges": [{"term_start": "1986"}]}, "result.judges[0].term_start is dated 1986-12-31, not before the cutoff "
                                           "1986-06-27"),
    ({"rows": (datetime(1986, 6, 27, 9),)}, "result.rows[0] is dated 1986-06-27, not before the cutoff 1986-06-27"),
    ({"rows": [[" 1986-06-27T10:00:00Z "]]}, "result.rows[0][0] is dated 1986-06-27, not before the cutoff "
                                             "1986-06-27"),
    ({"rows": [["Later case"]]}, "result.rows[0][0] holds 'Later case', which only material of the cutoff "
                                 "1986-06-27 or later holds"),
    ({"t": "x" * 96}, f"result.t holds {'x' * 57 + '...'!r}, which only material of the cutoff 1986-06-27 or later "
                      "holds"),
    ({"t": "y" * 97}, f"result.t holds {'y' * 57 + '...'!r}, which only material of the cutoff 1986-06-27 or later "
                      "holds"),
    ({"t": "z" * 61}, f"result.t holds {'z' * 57 + '...'!r}, which only material of the cutoff 1986-06-27 or later "
                      "holds"),
    ({7: {"date": "1990-01-01"}}, "result.7.date is dated 1990-01-01, not before the cutoff 1986-06-27"),
])
def test_a_violation_names_where_it_is_and_what(result, problem):
    assert list(GUARD.violations(result))[:1] == [problem]


@pytest.mark.parametrize("result", [
    {"count": 2000, "note": "1990", "title": "1999", "n": [1990]},  # numbers and years under other keys
    {"date": True}, {"date": None}, {"date": "soon"}, {"date": 3.5}, {"date": date(1986, 6, 26)},
    {"rows": [["Later case, in a longer text"]]}, {"t": "x" * 95}, {"t": "y" * 96}, {"t": "z" * 60},
    {"decision_dates": ["1980"]},
])
def test_what_passes(result):
    assert list(GUARD.violations(result)) == []


def test_a_short_withheld_value_is_shown_whole():
    guard = Guard(CUTOFF, {"w" * 60})
    assert list(guard.violations(["w" * 60])) == [
        f"result[0] holds {'w' * 60!r}, which only material of the cutoff 1986-06-27 or later holds"]
