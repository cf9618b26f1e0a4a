"""Reading the fixture ICJ Citation Graph by content, with and without a mapping file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from auditpacks.core.errors import FormatError
from auditpacks.packs.icj.graph.reader import read_graph
from tests.support.paths import FIXTURES

GRAPH = FIXTURES / "icj" / "graph"


@pytest.fixture(scope="module")
def graph():
    return read_graph(GRAPH)


def test_every_role_is_found_by_content(graph):
    assert graph.found == {
        "cases": "cases", "documents": "documents", "passages": "data/passages", "instruments": "instruments",
        "provisions": "provisions", "resolutions": "resolutions", "resolution_passages": "resolution_passages",
        "document_case_links": "case_citations", "document_provision_links": "provision_citations",
        "document_resolution_links": "edges_doc_res", "resolution_links": "resolution_citations",
        "judges": "judges", "judge_links": "bench"}


def test_counts_match_the_manifest(graph):
    counts = json.loads((GRAPH / "manifest.json").read_text())["counts"]
    assert graph.tables["passages"].num_rows == counts["passages"] == 63  # two shards: 21 documents x 3
    assert graph.tables["documents"].num_rows == 22
    assert graph.tables["resolution_links"].num_rows == 9


def test_values_are_spelled_as_the_scorer_spells_them(graph):
    cases = {r["case_id"]: r["name"] for r in graph.rows("cases")}
    assert cases["001"].startswith("Corfu Channel")  # "1" in the copy, padded to three digits
    assert "pcij-a10" in cases  # a non-numeric id is kept as given
    dates = {r["symbol"]: r["date"] for r in graph.rows("resolutions")}
    assert dates["A/RES/2625(XXV)"] == "1970-10-24"  # a timestamp read as its date
    assert "embedding" not in graph.tables["passages"].column_names


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(GRAPH, target)
    return target


def test_a_renamed_column_needs_the_mapping_file(tmp_path):
    import pyarrow as pa

    copy = _copy(tmp_path)
    path = copy / "data/documents.parquet"
    table = pq.read_table(path)
    table = table.rename_columns(["doc_id", "case_id", "handed_down", *table.column_names[3:]])
    pq.write_table(table, path)
    assert read_graph(copy).rows("documents")[0]["date"] == "1947-12-01"  # the one date column, by content
    pq.write_table(table.append_column("received", pa.array(["1947-05-22"] * table.num_rows)), path)
    with pytest.raises(FormatError, match="no table found for documents"):  # two date columns: which one?
        read_graph(copy)
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text("columns:\n  documents: {date: handed_down}\n")
    graph = read_graph(copy, mapping)
    assert graph.rows("documents")[0]["date"] == "1947-12-01"


def test_a_table_named_in_the_mapping_file_is_taken(tmp_path):
    copy = _copy(tmp_path)
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text("tables:\n  judge_links: data/bench.parquet\n")
    assert read_graph(copy, mapping).found["judge_links"] == "bench"
    mapping.write_text("tables:\n  judges: data/nowhere.parquet\n")
    with pytest.raises(FormatError, match="names no table"):
        read_graph(copy, mapping)
    mapping.write_text("tables:\n  verdicts: x\n")
    with pytest.raises(FormatError, match="not a table role"):
        read_graph(copy, mapping)


def test_jsonl_tables_are_read_too(tmp_path):
    copy = tmp_path / "jsonl"
    for path in sorted(GRAPH.rglob("*.parquet")):
        rows = pq.read_table(path).to_pylist()
        out = copy / path.relative_to(GRAPH).with_suffix(".jsonl")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows))
    graph = read_graph(copy)
    assert graph.tables["passages"].num_rows == 63
    assert {r["symbol"]: r["date"] for r in graph.rows("resolutions")}["S/RES/242 (1967)"] == "1967-11-22"


def test_a_bad_date_is_one_line_naming_the_column(tmp_path):
    copy = _copy(tmp_path)
    path = copy / "data/judges.parquet"
    rows = pq.read_table(path).to_pylist()
    rows[0]["term_end"] = "sometime"
    import pyarrow as pa
    pq.write_table(pa.Table.from_pylist(rows), path)
    with pytest.raises(FormatError, match=r"judges\.term_end.*'sometime'"):
        read_graph(copy)


def test_shards_that_do_not_make_one_table_are_one_line(tmp_path):
    import pyarrow as pa

    copy = _copy(tmp_path)
    shard = copy / "data/passages/train-00001-of-00002.parquet"
    rows = pq.read_table(shard).to_pylist()
    pq.write_table(pa.Table.from_pylist([{**r, "document_id": 7} for r in rows]), shard)
    with pytest.raises(FormatError, match=r"^data/passages: its files cannot be read as one table"):
        read_graph(copy)


def test_a_column_that_casts_stays_arrow_text_and_one_that_does_not_is_spelled_by_python():
    import pyarrow as pa

    from auditpacks.packs.icj.graph.reader import _as_text

    assert _as_text("label", pa.chunked_array([[1.0, 2.5, None]]), "t.c").to_pylist() == ["1", "2.5", None]
    assert _as_text("label", pa.chunked_array([[[1, 2], None]]), "t.c").to_pylist() == ["[1, 2]", None]
    assert _as_text("case_id", pa.chunked_array([[" 7", "pcij-a10"]]), "t.c").to_pylist() == ["007", "pcij-a10"]


def test_a_role_the_copy_lacks_is_an_empty_table_of_text_columns():
    import pyarrow as pa

    from auditpacks.packs.icj.graph.reader import _empty

    empty = _empty(["judge_id", "name"])
    assert empty.num_rows == 0 and empty.schema == pa.schema([("judge_id", pa.string()), ("name", pa.string())])


def test_the_source_hash_covers_the_mapping_files_content(tmp_path):
    copy, mapping = _copy(tmp_path), tmp_path / "mapping.yaml"
    hashes = [read_graph(copy).source_hash]
    for text in ("tables:\n  judge_links: data/bench.parquet\n", "tables:\n  judge_links: data/bench.parquet\n",
                 "# the bench table\ntables:\n  judge_links: data/bench.parquet\n"):
        mapping.write_text(text)
        hashes.append(read_graph(copy, mapping).source_hash)
    assert hashes[1] == hashes[2] and len({hashes[0], hashes[1], hashes[3]}) == 3


@pytest.mark.parametrize("clashing, shown", [(0, None), (1, "a: 1950-01-01, 1986-06-27"),
                                             (3, "a: 1950-01-01, 1986-06-27; b: 1950-01-01, 1986-06-27; c: 1950-01-01, "
                                                 "1986-06-27"),
                                             (4, "a: 1950-01-01, 1986-06-27; b: 1950-01-01, 1986-06-27; c: 1950-01-01, "
                                                 "1986-06-27; ...")])
def test_conflicting_dates_are_one_line_naming_the_first_three_ids(clashing, shown):
    import pyarrow as pa

    from auditpacks.packs.icj.graph.reader import _conflicts

    ids = list("abcd"[:clashing])
    table = pa.table({"document_id": [*ids, *ids, None, None, "z", "z"],
                      "date": ["1986-06-27"] * clashing + ["1950-01-01"] * clashing + ["1", "2", "1990-01-01",
                                                                                     "1990-01-01"]})
    found = _conflicts("documents", table, "document_id", "date")
    assert found == ([] if shown is None else [f"documents: {clashing} document_id listed with conflicting dates "
                                               f"({shown}); each is cut by its latest date"])


@pytest.mark.parametrize("name, values, spelled", [
    ("label", [1, 2.5, None, "x", True], ["1", "2.5", None, "x", "True"]),
    ("case_id", [" 7", 70, None, "", "pcij-a10"], ["007", "070", None, "", "pcij-a10"]),
    ("cited_case_id", ["1"], ["001"]), ("label", ["7"], ["7"]),
    ("date", ["1986-06-27T00:00:00", None], ["1986-06-27", None]), ("term_end", [None, None], [None, None]),
    ("label", [None, None], [None, None]),
])
def test_a_python_column_is_text_with_case_ids_padded_and_dates_as_days(name, values, spelled):
    import pyarrow as pa

    from auditpacks.packs.icj.graph.reader import _column

    column = _column(name, values, "t.c")
    assert column.type == pa.string() and column.to_pylist() == spelled
