"""Reading odd copies of the ICJ graph: what is refused, in which one line, and what is kept (the copy's manifest
and vectors)."""

from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditpacks.core.errors import FormatError
from auditpacks.packs.icj.graph.reader import read_graph
from tests.support.paths import FIXTURES

GRAPH = FIXTURES / "icj" / "graph"
SHARDS = "data/passages/train-0000{}-of-00002.parquet"


def _copy(tmp_path):
    target = tmp_path / "copy"
    shutil.copytree(GRAPH, target)
    return target


def _jsonl(tmp_path):
    copy = tmp_path / "jsonl"
    for path in sorted(GRAPH.rglob("*.parquet")):
        out = copy / path.relative_to(GRAPH).with_suffix(".jsonl")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(json.dumps(r, default=str) + "\n" for r in pq.read_table(path).to_pylist()))
    shutil.copy(GRAPH / "manifest.json", copy / "manifest.json")
    return copy


def test_the_copys_manifest_and_passage_vectors_are_kept_and_every_column_is_text():
    graph = read_graph(GRAPH)
    assert graph.manifest == json.loads((GRAPH / "manifest.json").read_text(encoding="utf-8"))
    assert set(graph.vector_sources) == {"document"}   # the fixture's passages carry an embedding column
    assert graph.vector_sources["document"].vector_column == "embedding"
    assert all(field.type == pa.string() for table in graph.tables.values() for field in table.schema)
    assert graph.tables["cases"]["year_start"].null_count == graph.tables["cases"].num_rows   # a column it lacks


def test_a_missing_folder_and_a_folder_without_the_needed_tables_are_one_line(tmp_path):
    with pytest.raises(FormatError) as err:
        read_graph(tmp_path / "nowhere")
    assert str(err.value) == f"{tmp_path / 'nowhere'}: not a folder (expected a local copy of the ICJ Citation Graph)"
    with pytest.raises(FormatError) as err:
        read_graph(tmp_path)
    assert str(err.value) == (f"{tmp_path}: no table found for cases, documents (name it in a mapping file; see "
                              "docs/icj-tools.md)")


def test_a_manifest_that_is_not_an_object_is_left_out(tmp_path):
    copy = _copy(tmp_path)
    (copy / "manifest.json").write_text("[1, 2]", encoding="utf-8")
    assert read_graph(copy).manifest == {}


def test_a_manifest_that_is_not_json_is_one_line(tmp_path):
    copy = _copy(tmp_path)
    (copy / "manifest.json").write_text("{counts", encoding="utf-8")
    with pytest.raises(FormatError) as err:
        read_graph(copy)
    assert str(err.value) == f"{copy / 'manifest.json'}: not valid JSON"


def test_a_bad_date_in_a_jsonl_table_names_the_table_and_column(tmp_path):
    copy = _jsonl(tmp_path)
    path = copy / "data" / "judges.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["term_end"] = "sometime"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(FormatError) as err:
        read_graph(copy)
    assert str(err.value) == "judges.term_end: column for term_end holds 'sometime', not a date"


def _rewrite_shard(copy, n: int, change) -> None:
    path = copy / SHARDS.format(n)
    pq.write_table(change(pq.read_table(path)), path)


def test_shards_that_cannot_be_one_table_are_one_line_naming_the_field(tmp_path):
    copy = _copy(tmp_path)
    _rewrite_shard(copy, 1, lambda t: pa.Table.from_pylist([{**r, "document_id": 7} for r in t.to_pylist()]))
    with pytest.raises(FormatError) as err:
        read_graph(copy)
    assert "document_id" in str(err.value) and "\n" not in str(err.value)


def test_the_reason_a_table_cannot_be_read_is_cut_at_200_characters(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("x" * 300 + "\nsecond line")

    monkeypatch.setattr(pq, "read_table", refuse)
    with pytest.raises(FormatError) as err:
        read_graph(_copy(tmp_path))
    assert str(err.value).endswith(f": its files cannot be read as one table ({'x' * 200})")


def test_shards_are_read_as_one_table_when_a_later_one_holds_a_column_only_as_nulls(tmp_path):
    copy = _copy(tmp_path)
    _rewrite_shard(copy, 1, lambda t: t.set_column(t.column_names.index("text"), "text", pa.nulls(t.num_rows)))
    passages = read_graph(copy).tables["passages"]
    assert passages.num_rows == 63 and 0 < passages["text"].null_count < 63
