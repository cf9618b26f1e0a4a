"""Finding a copy's tables on small hand-made tables: part-file names, table names from folders, columns,
dates and samples of parquet and JSON Lines tables, and one-line refusals (test_detect_roles.py: their roles)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditpacks.core.errors import FormatError
from auditpacks.packs.icj.graph.detect import SAMPLE_ROWS, _stem, _table_name, list_tables, make_table
from auditpacks.packs.icj.graph.schema import load_mapping

MAPPING = load_mapping()


@pytest.mark.parametrize("name, stem", [
    ("cases.parquet", "cases"), ("case_citations.parquet", "case_citations"), ("edges_doc_res.parquet", "edges_doc_res"),
    ("train-00000-of-00004.parquet", "train"), ("passages_0001.jsonl", "passages"), ("part.0.parquet", "part"),
    ("part-00000-1b2c3d4e-5f60-4718-9a0b-c1d2e3f40516-c000.snappy.parquet", "part"),
    ("judges_face.parquet", "judges_face"),   # hex letters without a digit are a word
    ("judges_beef12.parquet", "judges"), ("judges_ab12.parquet", "judges"), ("judges_a1.parquet", "judges_a1"),
    ("Data-2024.parquet", "Data"), ("cases--_.parquet", "cases"), ("00000001.parquet", ""),
    ("docs_OF_C12.parquet", "docs"), ("docs_c12x.parquet", "docs_c12x"),
])
def test_a_file_s_table_stem_drops_part_numbers(name, stem):
    assert _stem(name) == stem


ROOT = Path("/copy")


@pytest.mark.parametrize("path, name", [
    ("cases.parquet", "cases"), ("data/cases.parquet", "cases"), ("extra/cases.parquet", "extra/cases"),
    ("data/passages/train-00000-of-00002.parquet", "data/passages"),
    ("data/passages/lang=en/part-0.parquet", "data/passages"), ("lang=en/cases.parquet", "cases"),
    ("train.parquet", "train"), ("data/train.parquet", "data"), ("data/passages/chunk_3.jsonl", "data/passages"),
    ("data/passages/Shard.parquet", "data/passages"),
])
def test_a_table_is_named_by_its_folder_and_stem(path, name):
    assert _table_name(ROOT, ROOT / path) == name


def parquet(path, table):
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return path


def jsonl(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


CASES = pa.table({"case_id": ["070", "001"], "name": ["Nicaragua", "Corfu Channel"]})


def test_tables_are_listed_with_their_parts_grouped_and_hidden_files_left_out(tmp_path):
    parquet(tmp_path / "data" / "cases.parquet", CASES)
    for i in range(2):
        parquet(tmp_path / "data" / "passages" / f"part-{i}.parquet", pa.table({"document_id": ["D"], "text": ["t"]}))
    parquet(tmp_path / ".cache" / "x.parquet", CASES)
    parquet(tmp_path / "data" / ".hidden.parquet", CASES)
    jsonl(tmp_path / "judges.jsonl", ['{"judge_id": "J1", "name": "One"}'])
    (tmp_path / "README.md").write_text("x")
    (tmp_path / "notes.json").write_text("{}")
    tables = {t.name: [f.relative_to(tmp_path).as_posix() for f in t.files] for t in list_tables(tmp_path)}
    assert tables == {"cases": ["data/cases.parquet"], "data/passages": ["data/passages/part-0.parquet",
                                                                         "data/passages/part-1.parquet"],
                      "judges": ["judges.jsonl"]}


def test_a_parquet_table_gives_its_columns_date_columns_and_a_sample_without_vectors(tmp_path):
    table = pa.table({"document_id": ["D1", "D2"], "date": pa.array([date(1986, 6, 27), None], pa.date32()),
                      "when": pa.array([1, 2], pa.timestamp("s")), "n": [1, 2],
                      "vector": pa.array([[0.1, 0.2], [0.3, 0.4]], pa.list_(pa.float32())),
                      "big": pa.array([[0.1], [0.2]], pa.large_list(pa.float64())),
                      "fixed": pa.array([[0.1, 0.2], [0.3, 0.4]], pa.list_(pa.float32(), 2)),
                      "tags": pa.array([["a"], ["b"]], pa.list_(pa.string()))})
    found = make_table("documents", [parquet(tmp_path / "d.parquet", table)])
    assert found.name == "documents" and found.files == [tmp_path / "d.parquet"]
    assert found.columns == ["document_id", "date", "when", "n", "tags"]
    assert found.dates == frozenset({"date", "when"})
    assert found.sample["document_id"] == ["D1", "D2"] and found.sample["date"] == [date(1986, 6, 27), None]
    assert found.sample["tags"] == [["a"], ["b"]] and "vector" not in found.sample


def test_the_sample_is_the_first_rows_and_an_empty_file_gives_empty_columns(tmp_path):
    rows = pa.table({"n": list(range(SAMPLE_ROWS + 50))})
    assert make_table("t", [parquet(tmp_path / "t.parquet", rows)]).sample["n"] == list(range(SAMPLE_ROWS))
    empty = make_table("e", [parquet(tmp_path / "e.parquet", pa.table({"n": pa.array([], pa.int64())}))])
    assert empty.columns == ["n"] and empty.sample == {"n": []}


def test_a_jsonl_table_gives_the_columns_of_its_sample_rows(tmp_path):
    lines = ['{"case_id": "070", "name": "Nicaragua"}', "", "  ", '{"case_id": "001", "year": 1947}']
    lines += ['{"late": 1}'] * SAMPLE_ROWS
    found = make_table("cases", [jsonl(tmp_path / "cases.jsonl", lines)])
    assert found.columns == ["case_id", "name", "year", "late"] and found.dates == frozenset()
    assert found.sample["case_id"][:3] == ["070", "001", None] and found.sample["name"][:2] == ["Nicaragua", None]
    assert len(found.sample["late"]) == SAMPLE_ROWS  # the sample stops at SAMPLE_ROWS rows
    lines[SAMPLE_ROWS + 3] = "not json"  # past the sample: never read
    assert make_table("cases", [jsonl(tmp_path / "cases.jsonl", lines)]).columns == found.columns


@pytest.mark.parametrize("lines, error", [
    (['{"a": 1}', "{not json"], "line 2 is not valid JSON"),
    (['{"a": 1}', "", "[1, 2]"], "line 3 is not a JSON object"),
])
def test_a_bad_jsonl_line_is_one_line_naming_file_and_line(tmp_path, lines, error):
    path = jsonl(tmp_path / "t.jsonl", lines)
    with pytest.raises(FormatError) as err:
        make_table("t", [path])
    assert str(err.value) == f"{path}: {error}"


def test_mixed_formats_or_an_unreadable_file_are_one_line(tmp_path):
    a, b = parquet(tmp_path / "a.parquet", CASES), jsonl(tmp_path / "b.jsonl", ["{}"])
    with pytest.raises(FormatError) as err:
        make_table("t", [a, b])
    assert str(err.value) == "t: its files mix formats (.jsonl, .parquet)"
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet\nat all")
    with pytest.raises(FormatError) as err:
        make_table("t", [bad])
    assert str(err.value).startswith(f"{bad}: not a readable Parquet file (") and "\n" not in str(err.value)
