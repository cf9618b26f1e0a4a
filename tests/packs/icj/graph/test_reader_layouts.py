"""Copies of the ICJ graph laid out as other dataset tools write them: every table read whole."""

from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditpacks.packs.icj.graph.reader import read_graph
from tests.support.paths import FIXTURES

GRAPH = FIXTURES / "icj" / "graph"
COUNTS = json.loads((GRAPH / "manifest.json").read_text(encoding="utf-8"))["counts"]


def _copy(tmp_path):
    target = tmp_path / "copy"
    shutil.copytree(GRAPH, target)
    return target


def _passages(copy):
    folder = copy / "data" / "passages"
    table = pa.concat_tables([pq.read_table(p) for p in sorted(folder.glob("*.parquet"))])
    shutil.rmtree(folder)
    folder.mkdir()
    return folder, table


@pytest.mark.parametrize("names", [
    ["part-00000.parquet", "part-00001.parquet"],                                   # pyarrow / plain parts
    ["part-00000-1b2c3d4e-5f60-4718-9a0b-c1d2e3f40516-c000.snappy.parquet",         # Spark
     "part-00001-1b2c3d4e-5f60-4718-9a0b-c1d2e3f40516-c000.snappy.parquet"],
    ["part.0.parquet", "part.1.parquet", "part.2.parquet"],                         # dask
    ["00000000.parquet", "00000001.parquet"],
    ["lang=en/part-0.parquet", "lang=fr/part-0.parquet"],                           # hive partitions
])
def test_part_files_of_one_table_are_read_as_one_table(tmp_path, names):
    copy = _copy(tmp_path)
    folder, table = _passages(copy)
    size = -(-table.num_rows // len(names))
    for i, name in enumerate(names):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table.slice(i * size, size), folder / name)
    graph = read_graph(copy)
    assert graph.found["passages"] == "data/passages"
    assert graph.tables["passages"].num_rows == COUNTS["passages"] == 63


def test_a_date_column_under_another_name_is_found_by_its_type(tmp_path):
    copy = _copy(tmp_path)
    path = copy / "data" / "resolutions.parquet"
    table = pq.read_table(path)
    assert "adoption_date" in table.column_names and table.schema.field("adoption_date").type == pa.timestamp("us")
    pq.write_table(table.rename_columns([c.replace("adoption_date", "adopted_on") for c in table.column_names]), path)
    graph = read_graph(copy)
    assert graph.tables["resolutions"].num_rows == COUNTS["resolutions"] == 11
    assert {r["symbol"]: r["date"] for r in graph.rows("resolutions")}["A/RES/2625(XXV)"] == "1970-10-24"


def test_the_mapping_can_name_a_folder_of_files_named_anyhow(tmp_path):
    copy = _copy(tmp_path)
    folder, table = _passages(copy)
    pq.write_table(table.slice(0, 30), folder / "first-half.parquet")
    pq.write_table(table.slice(30), folder / "second-half.parquet")
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text("tables:\n  passages: data/passages/\n", encoding="utf-8")
    graph = read_graph(copy, mapping)
    assert graph.found["passages"] == "data/passages"
    assert graph.tables["passages"].num_rows == 63


def test_a_left_out_part_that_fits_a_role_is_an_error_unless_partial(tmp_path):
    from auditpacks.core.errors import FormatError

    copy = _copy(tmp_path)
    folder, table = _passages(copy)
    pq.write_table(table.slice(0, 30), folder / "first-half.parquet")
    pq.write_table(table.slice(30), folder / "second-half.parquet")
    with pytest.raises(FormatError) as err:
        read_graph(copy)
    line = str(err.value)
    assert "\n" not in line and "--allow-partial" in line
    # by hand: one half read as passages (30 or 33 rows), the manifest says 63; the other half left out
    assert line.startswith("data/passages/") and "manifest.json declares 63 for passages" in line
    graph = read_graph(copy, allow_partial=True)
    warnings = graph.report["warnings"]
    assert len(warnings) == 2
    assert any("skipped (fits passages" in w and "looks like data" in w for w in warnings)
    passages = next(t for t in graph.report["tables"] if t["table"].startswith("data/passages"))
    assert passages["declared"] == 63 and passages["declared_by"] == "manifest.json" and passages["rows"] in (30, 33)


def test_rows_unlike_the_copys_manifest_name_the_file_and_both_counts(tmp_path):
    from auditpacks.core.errors import FormatError

    copy = _copy(tmp_path)
    path = copy / "data" / "resolutions.parquet"
    pq.write_table(pq.read_table(path).slice(1), path)
    with pytest.raises(FormatError) as err:
        read_graph(copy)
    assert str(err.value) == ("data/resolutions.parquet: read 10 rows, manifest.json declares 11 for resolutions; "
                              "--allow-partial reads on and records it")


def test_a_declared_table_no_role_takes_is_an_error_naming_it(tmp_path):
    from auditpacks.core.errors import FormatError

    copy = _copy(tmp_path)
    path = copy / "data" / "resolutions.parquet"
    table = pq.read_table(path)
    pq.write_table(table.rename_columns(["un_code" if c == "resolution_symbol" else c for c in table.column_names]),
                   path)
    with pytest.raises(FormatError) as err:
        read_graph(copy)
    assert str(err.value).startswith("manifest.json declares resolutions (11 rows), and it was not read: skipped "
                                     "data/resolutions.parquet (no role fits its columns)")


def test_a_table_read_as_empty_is_an_error(tmp_path):
    from auditpacks.core.errors import FormatError

    copy = _copy(tmp_path)
    path = copy / "data" / "instruments.parquet"
    pq.write_table(pq.read_table(path).slice(0, 0), path)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["counts"]["instruments"] = 0
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(FormatError, match=r"^data/instruments\.parquet: read as empty \(0 rows\)"):
        read_graph(copy)


def test_the_fixture_reads_every_table_as_its_manifest_declares():
    graph = read_graph(GRAPH)
    assert graph.report["warnings"] == [] and graph.report["skipped"] == []
    assert {t["table"].split("/")[-1]: (t["rows"], t["declared"]) for t in graph.report["tables"]} == \
        {name: (n, n) for name, n in COUNTS.items()}


def _duplicate_earlier(copy, document_id, earlier):
    path = copy / "data" / "documents.parquet"
    table = pq.read_table(path)
    rows = table.to_pylist()
    date_column = "decision_date"
    twin = next(r for r in rows if r["doc_id"] == document_id)
    pq.write_table(pa.Table.from_pylist(rows + [{**twin, date_column: earlier}], schema=table.schema), path)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["counts"]["documents"] += 1
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_a_document_listed_twice_with_two_dates_is_refused_naming_it(tmp_path):
    from auditpacks.core.errors import FormatError
    from auditpacks.packs.icj.graph.cutoff import cut
    from tests.support.icj_graph import NICARAGUA_MERITS

    copy = _copy(tmp_path)
    _duplicate_earlier(copy, NICARAGUA_MERITS, "1950-01-01")
    with pytest.raises(FormatError) as err:
        read_graph(copy)
    assert str(err.value).startswith(f"documents: 1 document_id listed with conflicting dates ({NICARAGUA_MERITS}: "
                                     "1950-01-01, 1986-06-27); each is cut by its latest date")
    graph = read_graph(copy, allow_partial=True)
    for cutoff in ("1960-01-01", "1986-06-27"):  # after the earlier row, and the day of the real one
        kept = cut(graph, cutoff).tables["documents"]["document_id"].to_pylist()
        assert NICARAGUA_MERITS not in kept
    later = cut(graph, "1986-06-28").tables["documents"]
    assert later["document_id"].to_pylist().count(NICARAGUA_MERITS) == 1
    assert dict(zip(later["document_id"].to_pylist(), later["date"].to_pylist()))[NICARAGUA_MERITS] == "1986-06-27"


def test_a_left_out_table_names_every_role_it_fits_and_one_no_role_fits_is_no_data(tmp_path):
    copy = _copy(tmp_path)
    (copy / "extra").mkdir()
    pq.write_table(pa.table({"x": [1]}), copy / "extra" / "notes.parquet")
    assert read_graph(copy).report["skipped"] == [{"file": "extra/notes.parquet", "why": "no role fits its columns",
                                                   "looks_like_data": False}]
    cases = pq.read_table(copy / "data" / "cases.parquet")
    documents = pq.read_table(copy / "data" / "documents.parquet")
    rows = min(cases.num_rows, documents.num_rows)
    both = {**{c: cases[c].slice(0, rows) for c in cases.column_names},
            **{c: documents[c].slice(0, rows) for c in documents.column_names if c not in cases.column_names}}
    pq.write_table(pa.table(both), copy / "extra" / "both.parquet")
    skipped = read_graph(copy, allow_partial=True).report["skipped"]
    assert {"file": "extra/both.parquet", "why": "fits cases, documents, document_case_links, another table was taken",
            "looks_like_data": True} in skipped
