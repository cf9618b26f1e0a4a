"""The graph's roles and columns: the shipped mapping.yaml, a user's overrides with one-line errors, date reading
and the value checks that tell a column's kind."""

from __future__ import annotations

from datetime import date, datetime

import pytest
import yaml

from auditpacks.core.errors import FormatError
from auditpacks.packs.icj.graph.schema import DEFAULT_MAPPING, Role, iso_date, load_mapping, norm, values_fit

SHIPPED = yaml.safe_load(DEFAULT_MAPPING.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name, normal", [("case_id", "case_id"), (" Case-No ", "case_no"),
                                          ("Decision  Date", "decision_date"), ("a - b_c", "a_b_c"), (12, "12")])
def test_column_names_are_compared_loosely(name, normal):
    assert norm(name) == normal


def test_the_shipped_mapping_as_loaded():
    mapping = load_mapping()
    assert list(mapping.roles) == list(SHIPPED["roles"]) and len(mapping.roles) == 13
    assert mapping.roles["documents"] == Role("documents", ("document_id", "case_id", "date"),
                                              ("doc_type", "title", "court", "language"), ("document", "doc"))
    assert mapping.roles["documents"].columns == ("document_id", "case_id", "date", "doc_type", "title", "court",
                                                  "language")
    assert mapping.roles["judge_links"].optional == () and mapping.roles["judge_links"].hints == (
        "sat", "bench", "judge_document")
    assert mapping.aliases["case_id"] == ("case_id", "caseno", "case_no", "case_number", "case")
    assert mapping.values["term_start"] == "date" and mapping.values["symbol"] == "symbol"
    assert (mapping.tables, mapping.columns) == ({}, {})


def override(tmp_path, text):
    path = tmp_path / "mine.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_user_s_tables_columns_and_aliases_are_laid_over_the_shipped_ones(tmp_path):
    path = override(tmp_path, "tables: {documents: data/docs_v2.parquet, judges: 7}\n"
                              "columns: {documents: {date: Issued-On, title: 5}}\n"
                              "aliases: {date: [Date Delivered, handed_down]}\n")
    mapping = load_mapping(path)
    assert mapping.tables == {"documents": "data/docs_v2.parquet", "judges": "7"}
    assert mapping.columns == {"documents": {"date": "Issued-On", "title": "5"}}
    assert mapping.aliases["date"][:3] == ("date_delivered", "handed_down", "date")
    assert mapping.aliases["case_id"] == load_mapping().aliases["case_id"]


@pytest.mark.parametrize("text", ["", "tables: {}\n", "tables:\ncolumns:\naliases:\n"])
def test_an_empty_override_changes_nothing(tmp_path, text):
    mapping = load_mapping(override(tmp_path, text))
    assert (mapping.tables, mapping.columns) == ({}, {}) and mapping.aliases == load_mapping().aliases


@pytest.mark.parametrize("text, error", [
    ("roles: {}\n", "unknown key 'roles' (expected tables, columns or aliases)"),
    ("tables: {rulings: x.parquet}\n", "tables.rulings is not a table role (cases, documents, passages, "),
    ("columns: {rulings: {date: d}}\n", "columns.rulings is not a table role (cases, "),
    ("columns: {documents: [date]}\n", "columns.documents must map canonical columns to the copy's names"),
    ("columns: {documents: {symbol: s}}\n", "columns.documents.symbol is not a column of documents (document_id, "
                                            "case_id, date, doc_type, title, court, language)"),
    ("aliases: {when: [date]}\n", "aliases.when is not a canonical column"),
    ("- tables\n", "a mapping file holds a YAML object"),
    ("tables: [unclosed\n", "not valid YAML (while parsing a flow sequence)"),
])
def test_a_bad_override_is_one_line_naming_the_file(tmp_path, text, error):
    path = override(tmp_path, text)
    with pytest.raises(FormatError) as err:
        load_mapping(path)
    assert str(err.value).startswith(f"{path}: {error}") and "\n" not in str(err.value)


@pytest.mark.parametrize("value, year_end, iso", [
    (None, True, None), (datetime(1986, 6, 27, 10, 30), True, "1986-06-27"), (date(1949, 4, 9), True, "1949-04-09"),
    ("1986-06-27", True, "1986-06-27"), (" 1986-06-27T10:30:00Z ", True, "1986-06-27"),
    ("1986-06-27 10:30", True, "1986-06-27"), ("1986", True, "1986-12-31"), ("1986", False, "1986-01-01"),
    (1986, True, "1986-12-31"), (1986, False, "1986-01-01"), (1000, True, "1000-12-31"), (9999, True, "9999-12-31"),
    (999, True, None), (10000, True, None), (True, True, None), (1986.0, True, None), (["1986"], True, None),
    ("1986-02-30", True, None), ("1986-6-27", True, None), ("86-06-27", True, None), ("1986-06", True, None),
    ("27 June 1986", True, None), ("", True, None), ("1986-06-27x", True, None),
])
def test_dates_are_read_as_iso_days(value, year_end, iso):
    assert iso_date(value, year_end=year_end) == iso


def test_a_bare_year_is_its_last_day_by_default():
    assert iso_date("2004") == "2004-12-31" and iso_date(2004) == "2004-12-31"


@pytest.mark.parametrize("kind, sample, fits", [
    (None, ["anything", 3, None], True), (None, [], True),
    ("date", [], True), ("date", [None, None], False),
    ("date", ["1986-06-27", "1949", 1986, date(2004, 7, 9), "soon"], True),          # 4 of 5: 80%
    ("date", ["1986-06-27", "1949", "later", "soon"], False),                       # 2 of 4
    ("date", ["1986-06-27", "1949-04-09", "1950-01-01", "soon", None], False),      # 3 of 4: 75%
    ("text", ["a passage of twenty+ chars", "another passage, long enough", "short", "x" * 30], False),
    ("text", ["a passage of twenty+ chars"] * 4 + ["short"], True),
    ("text", ["nineteen chars here"], False), ("text", ["twenty chars here!!!"], True),
    ("symbol", ["A/RES/2625(XXV)", "a/res/1(i)", "S/RES/242", "A/RES/377(V)", "A/75/1"], True),
    ("symbol", ["A/RES/2625(XXV)", "A/75/1"], False), ("symbol", [2625], False),
    ("provision_key", ["charter:article_51", "statute:article_36"], True), ("provision_key", ["article 51"], False),
    ("organ", ["General Assembly"], True), ("organ", [3], False),
])
def test_values_fit_when_most_look_like_their_kind(kind, sample, fits):
    assert values_fit(kind, sample) is fits


def test_a_mapping_may_leave_out_optional_columns_hints_and_value_checks(tmp_path, monkeypatch):
    from auditpacks.packs.icj.graph import schema

    path = tmp_path / "mapping.yaml"
    path.write_text("roles:\n  cases: {required: [case_id]}\ncolumns:\n  case_id: [Case ID]\n", encoding="utf-8")
    monkeypatch.setattr(schema, "DEFAULT_MAPPING", path)
    mapping = load_mapping()
    assert mapping.roles == {"cases": Role("cases", ("case_id",), (), ())}
    assert mapping.aliases == {"case_id": ("case_id",)} and mapping.values == {}
