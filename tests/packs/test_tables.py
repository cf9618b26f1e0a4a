"""Local tables read as the files on disk are: JSONL and parquet rows, columns, and one-line errors."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.tables import LocalTable


def jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def parquet(path, rows):
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def test_jsonl_rows_in_file_order_across_files(tmp_path):
    a = jsonl(tmp_path / "a.jsonl", [{"id": 1, "x": "p"}, {"id": 2}])
    b = jsonl(tmp_path / "b.jsonl", [{"id": 3, "x": "q"}])
    table = LocalTable([a, b], "tasks")
    assert table.columns is None  # JSONL has no schema
    assert list(table.rows()) == [{"id": 1, "x": "p"}, {"id": 2}, {"id": 3, "x": "q"}]
    assert list(table.rows(["x", "x", "missing"])) == [{"x": "p"}, {}, {"x": "q"}]


def test_parquet_shards_rows_and_columns_in_first_seen_order(tmp_path):
    a = parquet(tmp_path / "train-0.parquet", [{"id": 1, "x": "p"}, {"id": 2, "x": "q"}])
    b = parquet(tmp_path / "train-1.parquet", [{"id": 3, "y": 1.5}])
    table = LocalTable([a, b], "units")
    assert table.columns == ["id", "x", "y"]
    assert list(table.rows()) == [{"id": 1, "x": "p"}, {"id": 2, "x": "q"}, {"id": 3, "y": 1.5}]
    assert list(table.rows(["x"])) == [{"x": "p"}, {"x": "q"}, {}]  # a shard without the column gives no key


def test_many_rows_come_back_whole_across_record_batches(tmp_path):
    rows = [{"n": i} for i in range(1000)]  # more than one 256-row batch
    table = LocalTable([parquet(tmp_path / "big.parquet", rows)], "big")
    assert [r["n"] for r in table.rows()] == list(range(1000))


@pytest.mark.parametrize("names, message", [
    ([], "tasks: no data files"),
    (["a.jsonl", "b.parquet"], "tasks: mixed or unknown file formats (.jsonl, .parquet)"),
    (["a.csv"], "tasks: mixed or unknown file formats (.csv)"),
])
def test_no_files_mixed_or_unknown_formats_are_refused(tmp_path, names, message):
    with pytest.raises(PackError) as err:
        LocalTable([tmp_path / n for n in names], "tasks")
    assert str(err.value) == message


def test_a_line_that_is_no_object_names_its_file_relative_to_the_source(tmp_path):
    (tmp_path / "data").mkdir()
    path = jsonl(tmp_path / "data" / "t.jsonl", [{"id": 1}, [1, 2]])
    table = LocalTable([path], "tasks", root=tmp_path)
    with pytest.raises(PackError) as err:
        list(table.rows())
    assert str(err.value) == "data/t.jsonl line 2: a list, not a JSON object"


def test_invalid_json_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"id": 1}\n{"id": \n', encoding="utf-8")
    with pytest.raises(PackError) as err:
        list(LocalTable([path], "tasks").rows())
    assert str(err.value).startswith("t.jsonl: cannot read: t.jsonl line 2: invalid JSON")
    assert "\n" not in str(err.value)


def test_a_damaged_parquet_file_is_one_line_naming_it(tmp_path):
    (tmp_path / "sub").mkdir()
    bad = tmp_path / "sub" / "x.parquet"
    bad.write_bytes(b"not parquet at all")
    table = LocalTable([bad], "units", root=tmp_path)
    with pytest.raises(PackError) as err:
        table.columns
    assert str(err.value).startswith("sub/x.parquet: cannot read: ")
    with pytest.raises(PackError) as err:
        list(table.rows())
    assert str(err.value).startswith("sub/x.parquet: cannot read: ")
    assert str(tmp_path) not in str(err.value)


@pytest.mark.parametrize("text", ['[{"id": 1}, {"id": 2}]', '{"id": 1}\n{"id": 2}\n'])
def test_a_json_file_is_read_by_content_list_or_lines(tmp_path, text):
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    assert [r["id"] for r in LocalTable([path], "t").rows()] == [1, 2]
    path.write_text('[{"id": 1}, 2]', encoding="utf-8")
    with pytest.raises(PackError, match=r"^t\.json record #1: a int, not a JSON object$"):
        list(LocalTable([path], "t").rows())


def test_table_files_a_folder_of_parts_else_named_files_first_place_wins(tmp_path):
    from auditpacks.packs.tables import table_files

    assert table_files(tmp_path, "q") == []
    (tmp_path / "data" / "q" / "sub").mkdir(parents=True)
    for name in ("part-00001.parquet", "part-00000.parquet", "sub/x.parquet", "notes.txt", ".hidden.parquet"):
        (tmp_path / "data" / "q" / name).write_bytes(b"")
    assert [p.relative_to(tmp_path).as_posix() for p in table_files(tmp_path, "q")] == [
        "data/q/part-00000.parquet", "data/q/part-00001.parquet", "data/q/sub/x.parquet"]
    for name in ("q-00001-of-00002.jsonl", "q-00000-of-00002.jsonl", "qq.jsonl"):
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in table_files(tmp_path, "q")] == ["q-00000-of-00002.jsonl", "q-00001-of-00002.jsonl"]


def test_a_table_keeps_its_files_label_and_format(tmp_path):
    table = LocalTable([jsonl(tmp_path / "a.jsonl", [])], "tasks (configuration tasks)")
    assert table.files == [tmp_path / "a.jsonl"] and table.label == "tasks (configuration tasks)"
    assert table.parquet is False and table.root is None


@pytest.mark.parametrize("text", ['[{"id": 1, "x": "p"}, {"id": 2}]', '{"id": 1, "x": "p"}\n{"id": 2}\n'])
def test_a_json_file_gives_only_the_requested_columns(tmp_path, text):
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    assert list(LocalTable([path], "t").rows(["x", "missing"])) == [{"x": "p"}, {}]
    assert list(LocalTable([path], "t").rows()) == [{"id": 1, "x": "p"}, {"id": 2}]


def test_a_json_file_of_one_object_is_one_row(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"id": 1, "x": "p"}', encoding="utf-8")
    assert list(LocalTable([path], "t").rows()) == [{"id": 1, "x": "p"}]
    assert list(LocalTable([path], "t").rows(["x"])) == [{"x": "p"}]


@pytest.mark.parametrize("data, message", [
    (b'[{"id": 1},', "t.json: cannot read: invalid JSON at line 1 column 12: Expecting value"),
    (b'[{"id": 1},\n {"id" 2}]', "t.json: cannot read: invalid JSON at line 2 column 8: Expecting ':' delimiter"),
    (b'["\xff"]', "t.json: cannot read: not UTF-8 text (invalid start byte at byte 2)"),
    (b"[" * 100_000 + b"]" * 100_000, "t.json: JSON nested too deeply to read"),
])
def test_a_json_file_that_cannot_be_read_is_one_line_naming_it(tmp_path, data, message):
    path = tmp_path / "t.json"
    path.write_bytes(data)
    with pytest.raises(PackError) as err:
        list(LocalTable([path], "t").rows())
    assert str(err.value) == message


@pytest.mark.parametrize("error, reason", [(OSError("disk gone\nerrno 5"), "disk gone"), (OSError(), "OSError"),
                                           (ValueError("  "), "ValueError")])
def test_a_parquet_file_that_cannot_be_read_gives_the_first_line_of_why(tmp_path, monkeypatch, error, reason):
    path = parquet(tmp_path / "x.parquet", [{"id": 1}])

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(pq, "read_schema", fail)
    monkeypatch.setattr(pq, "ParquetFile", fail)
    table = LocalTable([path], "units")
    for read in (lambda: table.columns, lambda: list(table.rows())):
        with pytest.raises(PackError) as err:
            read()
        assert str(err.value) == f"x.parquet: cannot read: {reason}"


def test_table_files_named_files_before_their_shards(tmp_path):
    from auditpacks.packs.tables import table_files

    (tmp_path / "data").mkdir()
    for name in ("q-00001-of-00002.jsonl", "q-00000-of-00002.jsonl", "q.jsonl", "qq.jsonl"):
        (tmp_path / "data" / name).write_bytes(b"")
    assert [p.name for p in table_files(tmp_path, "q")] == [  # q.jsonl first, though "q-" sorts before "q."
        "q.jsonl", "q-00000-of-00002.jsonl", "q-00001-of-00002.jsonl"]
    (tmp_path / "q.json").write_bytes(b"")  # the source's root comes before data/
    assert table_files(tmp_path, "q") == [tmp_path / "q.json"]
