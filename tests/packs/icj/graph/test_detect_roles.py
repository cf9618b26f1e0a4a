"""Which role each of a copy's tables plays, on small hand-made tables: column matching by alias, type and
content, scores, tables and folders a mapping names, and the greedy assignment with its ties."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditpacks.core.errors import FormatError
from auditpacks.packs.icj.graph import detect
from auditpacks.packs.icj.graph.detect import Table, _named, _score, assign, list_tables, make_table, match_columns
from auditpacks.packs.icj.graph.schema import load_mapping
from tests.packs.icj.graph.test_detect import CASES, MAPPING, ROOT, parquet


def table(name, columns, dates=(), files=None):
    return Table(name, files or [ROOT / f"{name}.parquet"], list(columns), dict(columns), frozenset(dates))


ROLES = MAPPING.roles


@pytest.mark.parametrize("columns, chosen", [
    ({"case_id": ["070"], "name": ["Nicaragua"]}, {"case_id": "case_id", "name": "name"}),
    ({"Case No": ["070"], "CASE_NAME": ["Nicaragua"], "Type": ["contentious"]},
     {"case_id": "Case No", "name": "CASE_NAME", "case_type": "Type"}),
    ({"case_id": ["070"]}, None),                                          # no name
    ({"case": ["070"], "title": ["Nicaragua"], "year": [1984]}, {"case_id": "case", "name": "title",
                                                                 "year_start": "year"}),
])
def test_columns_are_matched_by_alias(columns, chosen):
    assert match_columns(table("cases", columns), ROLES["cases"], MAPPING) == chosen


def test_a_column_serves_one_canonical_column_and_must_look_right():
    # cited_case_id's aliases include case_id, taken already by document_id's neighbour: it needs its own column
    links = {"document_id": ["D1"], "case_id": ["070"]}
    assert match_columns(table("links", links), ROLES["document_case_links"], MAPPING) == {
        "document_id": "document_id", "cited_case_id": "case_id"}
    resolutions = {"symbol": ["A/RES/2625(XXV)"], "date": ["soon"]}
    assert match_columns(table("resolutions", resolutions), ROLES["resolutions"], MAPPING) is None
    twice = {"symbol": ["A/RES/1(I)"], "date": ["1946-01-24"], "cited_symbol": ["A/RES/2(I)"]}
    assert match_columns(table("r", twice), ROLES["resolutions"], MAPPING) == {"symbol": "symbol", "date": "date"}


def test_a_date_column_under_an_unknown_name_is_found_by_type_or_content():
    typed = {"symbol": ["A/RES/1(I)"], "passed_on": [None], "title": ["x"]}
    assert match_columns(table("r", typed, dates={"passed_on"}), ROLES["resolutions"], MAPPING)["date"] == "passed_on"
    by_text = {"symbol": ["A/RES/1(I)"], "passed_on": ["1946-01-24", None, " 1946-02-01T00:00 "]}
    assert match_columns(table("r", by_text), ROLES["resolutions"], MAPPING)["date"] == "passed_on"
    years = {"symbol": ["A/RES/1(I)"], "passed_on": ["1946"]}                  # not a full date
    assert match_columns(table("r", years), ROLES["resolutions"], MAPPING) is None
    empty = {"symbol": ["A/RES/1(I)"], "passed_on": [None]}
    assert match_columns(table("r", empty), ROLES["resolutions"], MAPPING) is None
    two = {"symbol": ["A/RES/1(I)"], "passed_on": ["1946-01-24"], "printed_on": ["1946-02-01"]}
    assert match_columns(table("r", two), ROLES["resolutions"], MAPPING) is None
    bad_day = {"symbol": ["A/RES/1(I)"], "passed_on": ["1946-02-30"]}
    assert match_columns(table("r", bad_day), ROLES["resolutions"], MAPPING) is None
    numbers = {"symbol": ["A/RES/1(I)"], "passed_on": [19460124]}
    assert match_columns(table("r", numbers), ROLES["resolutions"], MAPPING) is None


def test_a_role_with_two_date_columns_finds_none_by_content():
    judges = {"judge_id": ["J1"], "name": ["One"], "began": ["1946-02-06"]}
    assert match_columns(table("j", judges), ROLES["judges"], MAPPING) == {"judge_id": "judge_id", "name": "name"}


def test_a_user_s_columns_are_taken_as_named(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("columns: {resolutions: {date: when, title: heading}}\n", encoding="utf-8")
    mapping = load_mapping(path)
    given = {"symbol": ["A/RES/1(I)"], "when": ["soon"], "heading": ["h"], "title": ["t"]}
    assert match_columns(table("r", given), ROLES["resolutions"], mapping) == {
        "symbol": "symbol", "date": "when", "title": "heading"}
    assert match_columns(table("r", {"symbol": ["A/RES/1(I)"], "date": ["1946-01-24"]}), ROLES["resolutions"],
                         mapping) is None  # the named column is missing: no guess


def test_the_score_is_the_share_of_columns_used_plus_a_name_hint():
    t = table("data/case_list", {"case_id": [], "name": [], "x": [], "y": []})
    assert _score(t, ROLES["cases"], {"case_id": "case_id", "name": "name"}) == pytest.approx(0.5 + 0.02 + 0.5)
    assert _score(t, ROLES["judges"], {"judge_id": "case_id"}) == pytest.approx(0.25 + 0.01)
    assert _score(table("e", {}), ROLES["judges"], {}) == 0.0


def test_the_best_fitting_table_takes_each_role():
    tables = [table("bench", {"document_id": ["D1"], "judge_id": ["J1"]}),
              table("people", {"judge_id": ["J1"], "name": ["One"], "nationality": ["X"]}),
              table("case_list", {"case_id": ["070"], "name": ["Nicaragua"]}),
              table("zz_other", {"case_id": ["070"], "name": ["Nicaragua"], "extra": [1]})]
    found = assign(tables, MAPPING, ROOT)
    assert {role: f.table.name for role, f in found.items()} == {
        "judge_links": "bench", "judges": "people", "cases": "case_list"}
    assert found["judges"].columns == {"judge_id": "judge_id", "name": "name", "nationality": "nationality"}


def test_equal_fits_go_by_table_name():
    same = {"case_id": ["070"], "name": ["Nicaragua"]}
    found = assign([table("b", same), table("a", same)], MAPPING, ROOT)
    assert list(found) == ["cases"] and found["cases"].table.name == "a"  # b fits no other role


def test_a_table_the_mapping_names_is_taken_for_its_role(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("tables: {cases: data/b.parquet}\n", encoding="utf-8")
    same = {"case_id": ["070"], "name": ["Nicaragua"]}
    tables = [table("a", same, files=[ROOT / "data/a.parquet"]), table("b", same, files=[ROOT / "data/b.parquet"])]
    found = assign(tables, load_mapping(path), ROOT)
    assert found["cases"].table.name == "b"


@pytest.mark.parametrize("text, error", [
    ("tables: {cases: nowhere}\n", "mapping: tables.cases = 'nowhere' names no table of the copy (a, b)"),
    ("tables: {resolutions: a}\n", "mapping: table a (for resolutions) lacks a column for one of symbol, date; "
                                   "name it under columns.resolutions"),
    ("tables: {resolutions: a}\ncolumns: {resolutions: {date: case_id}}\n",
     "mapping: table a (for resolutions) lacks a column for one of symbol; name it under columns.resolutions"),
])
def test_a_mapping_that_names_no_fitting_table_is_one_line(tmp_path, text, error):
    path = tmp_path / "m.yaml"
    path.write_text(text, encoding="utf-8")
    same = {"case_id": ["070"], "name": ["Nicaragua"]}
    with pytest.raises(FormatError) as err:
        assign([table("a", same), table("b", same)], load_mapping(path), ROOT)
    assert str(err.value) == error


def test_a_named_table_by_name_file_or_folder(tmp_path):
    for i in range(2):
        parquet(tmp_path / "dump" / f"x{i}" / "rows.parquet", CASES)
    tables = list_tables(tmp_path)
    assert sorted(t.name for t in tables) == ["dump/x0/rows", "dump/x1/rows"]
    assert _named(tables, "dump/x0/rows", tmp_path).name == "dump/x0/rows"
    assert _named(tables, " /dump/x1/rows.parquet/ ", tmp_path).name == "dump/x1/rows"
    merged = _named(tables, "dump", tmp_path)
    assert merged.name == "dump" and [f.relative_to(tmp_path).as_posix() for f in merged.files] == [
        "dump/x0/rows.parquet", "dump/x1/rows.parquet"]
    assert merged.sample["case_id"] == ["070", "001"]
    (tmp_path / "empty").mkdir()
    assert _named(tables, "empty", tmp_path) is None and _named(tables, "nowhere", tmp_path) is None


def test_tables_inside_a_named_folder_are_taken_with_it(tmp_path):
    for i in range(2):
        parquet(tmp_path / "dump" / f"x{i}" / "rows.parquet", CASES)
    path = tmp_path / "m.yaml"
    path.write_text("tables: {cases: dump}\n", encoding="utf-8")
    found = assign(list_tables(tmp_path), load_mapping(path), tmp_path)
    assert list(found) == ["cases"] and found["cases"].table.name == "dump"  # its parts take no other role


def test_sample_reads_only_the_columns_asked(tmp_path):
    path = parquet(tmp_path / "t.parquet", pa.table({"a": [1], "b": [2]}))
    assert detect._parquet_sample(path, ["b", "missing"]) == {"b": [2]}


def test_a_date_column_found_by_alias_is_kept_whatever_other_dates_there_are():
    both = {"symbol": ["A/RES/1(I)"], "date": ["1946-01-24"], "printed_on": ["1946-02-01"]}
    assert match_columns(table("r", both), ROLES["resolutions"], MAPPING)["date"] == "date"


def test_a_column_without_aliases_goes_by_its_own_name(tmp_path, monkeypatch):
    from auditpacks.packs.icj.graph import schema

    path = tmp_path / "mapping.yaml"
    path.write_text("roles:\n  cases: {required: [case_id, name]}\ncolumns:\n  case_id: [case_no]\n", encoding="utf-8")
    monkeypatch.setattr(schema, "DEFAULT_MAPPING", path)
    mapping = load_mapping()
    found = match_columns(table("cases", {"case_no": ["070"], "Name": ["Nicaragua"]}), mapping.roles["cases"], mapping)
    assert found == {"case_id": "case_no", "name": "Name"}


def test_the_score_of_a_one_column_table():
    assert _score(table("t", {"a": []}), ROLES["cases"], {"case_id": "a"}) == pytest.approx(1.01)


PEOPLE = {"case_id": ["070"], "judge_id": ["J1"], "name": ["One"]}  # fits cases and judges alike


def test_a_table_that_fits_two_roles_equally_takes_the_first_by_name_and_only_one():
    found = assign([table("people", PEOPLE)], MAPPING, ROOT)
    assert list(found) == ["cases"]
    assert (found["cases"].role, found["cases"].table.name, found["cases"].columns) == (
        "cases", "people", {"case_id": "case_id", "name": "name"})


def mapping_file(tmp_path, text):
    path = tmp_path / "m.yaml"
    path.write_text(text, encoding="utf-8")
    return load_mapping(path)


def test_a_named_role_leaves_the_other_roles_to_the_rest(tmp_path):
    mapping = mapping_file(tmp_path, "tables: {cases: a}\n")
    tables = [table("a", {"case_id": ["070"], "name": ["Nicaragua"]}), table("b", PEOPLE)]
    found = assign(tables, mapping, ROOT)
    assert {role: (f.role, f.table.name) for role, f in found.items()} == {"cases": ("cases", "a"),
                                                                           "judges": ("judges", "b")}
    assert found["cases"].columns == {"case_id": "case_id", "name": "name"}


def test_the_parts_of_every_named_folder_take_no_other_role(tmp_path):
    for folder in ("dump", "more"):
        for i in range(2):
            parquet(tmp_path / folder / f"x{i}" / "rows.parquet", pa.table({**PEOPLE, "instrument_id": ["I1"]}))
    mapping = mapping_file(tmp_path, "tables: {judges: dump, cases: more}\n")
    found = assign(list_tables(tmp_path), mapping, tmp_path)
    # a part would fit instruments too: it is not free for it
    assert {role: f.table.name for role, f in found.items()} == {"judges": "dump", "cases": "more"}
    assert found["judges"].role == "judges"


def test_a_named_folder_that_is_a_table_is_that_table_alone(tmp_path):
    for i in range(2):
        parquet(tmp_path / "data" / "passages" / f"part-{i}.parquet", CASES)
    parquet(tmp_path / "data" / "passages" / "old" / "notes.parquet", CASES)
    tables = list_tables(tmp_path)
    assert sorted(t.name for t in tables) == ["data/passages", "data/passages/old/notes"]
    named = _named(tables, "data/passages", tmp_path)
    assert [f.name for f in named.files] == ["part-0.parquet", "part-1.parquet"]


def test_names_are_taken_as_written_apart_from_slashes_and_spaces(tmp_path):
    parquet(tmp_path / "data" / "INDEX.parquet", CASES)
    parquet(tmp_path / "Xtra.parquet", CASES)
    tables = list_tables(tmp_path)
    assert _named(tables, "/INDEX/", tmp_path).name == "INDEX"
    assert _named(tables, "Xtra", tmp_path).name == "Xtra"


def test_an_unreadable_parquet_file_gives_the_first_line_of_why(tmp_path, monkeypatch):
    path = parquet(tmp_path / "t.parquet", CASES)

    def fail(*args, **kwargs):
        raise OSError("bad footer\nat byte 12")
    monkeypatch.setattr(pq, "read_schema", fail)
    with pytest.raises(FormatError) as err:
        make_table("t", [path])
    assert str(err.value) == f"{path}: not a readable Parquet file (bad footer)"


def test_a_tie_goes_to_the_role_first_by_name_not_by_its_place_in_the_mapping():
    mixed = {"document_id": ["D1"], "text": ["a passage long enough to be text"], "instrument_id": ["charter"],
             "name": ["UN Charter"]}  # fits passages (listed first in the mapping) and instruments equally
    found = assign([table("mixed", mixed)], MAPPING, ROOT)
    assert list(found) == ["instruments"]
