"""Shared file I/O: sha256, JSON and JSONL readers with one-line errors, atomic writes with plain permissions."""

import hashlib
import os
import stat

import pytest

from auditpacks.core.errors import FormatError, PackError
from auditpacks.core.io import atomic_write_json, atomic_write_text, iter_jsonl, read_json, read_jsonl, sha256_file


def test_sha256_file_over_several_chunks(tmp_path):
    data = os.urandom(3 * (1 << 20) + 5)
    (tmp_path / "f").write_bytes(data)
    assert sha256_file(tmp_path / "f") == hashlib.sha256(data).hexdigest()


def test_read_json_and_its_errors(tmp_path):
    (tmp_path / "ok.json").write_text('{"a": [1, "é"]}', encoding="utf-8")
    assert read_json(tmp_path / "ok.json") == {"a": [1, "é"]}
    (tmp_path / "bad.json").write_text('{\n  "a": }', encoding="utf-8")
    (tmp_path / "latin.json").write_bytes(b'"\xe9"')
    (tmp_path / "dir.json").mkdir()
    cases = {"gone.json": "gone.json: manifest not found",
             "bad.json": "bad.json: invalid JSON at line 2 column 8: Expecting value",
             "latin.json": "latin.json: not UTF-8 text (invalid continuation byte at byte 1)",
             "dir.json": "dir.json: manifest is a folder, not a file"}
    for name, message in cases.items():
        with pytest.raises(PackError) as err:
            read_json(tmp_path / name, "manifest")
        assert str(err.value) == message


def test_jsonl_skips_blank_lines_and_numbers_the_rest(tmp_path):
    (tmp_path / "r.jsonl").write_text('{"a": 1}\n\n  \n[2]\n"x"\n', encoding="utf-8")
    assert read_jsonl(tmp_path / "r.jsonl") == [(1, {"a": 1}), (4, [2]), (5, "x")]


def test_jsonl_errors_name_the_line(tmp_path):
    (tmp_path / "r.jsonl").write_text('{"a": 1}\n{"a": }\n', encoding="utf-8")
    rows = iter_jsonl(tmp_path / "r.jsonl")
    assert next(rows) == (1, {"a": 1})  # streamed: the good line comes before the error
    with pytest.raises(FormatError) as err:
        next(rows)
    assert str(err.value) == "r.jsonl line 2: invalid JSON: Expecting value (column 7)"
    with pytest.raises(FormatError, match="file not found"):
        read_jsonl(tmp_path / "gone.jsonl")
    (tmp_path / "d.jsonl").mkdir()
    with pytest.raises(FormatError, match="^d.jsonl: a folder, not a file$"):
        read_jsonl(tmp_path / "d.jsonl")
    (tmp_path / "b.jsonl").write_bytes(b'"\xff"\n')
    with pytest.raises(FormatError, match=r"^b.jsonl: not UTF-8 text \(invalid start byte at byte 1\)$"):
        read_jsonl(tmp_path / "b.jsonl")


def test_atomic_writes_replace_whole_create_folders_and_leave_no_temporary(tmp_path):
    path = tmp_path / "a" / "b" / "out.json"
    atomic_write_json(path, {"k": "日本", "n": [1]})
    assert path.read_text(encoding="utf-8") == '{\n  "k": "日本",\n  "n": [\n    1\n  ]\n}\n'
    atomic_write_text(path, "second")
    assert path.read_text() == "second"
    assert sorted(p.name for p in path.parent.iterdir()) == ["out.json"]


def test_an_atomic_write_gets_the_permissions_a_plain_file_would(tmp_path):
    mask = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "x.txt", "x")
        (tmp_path / "plain.txt").write_text("x")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "x.txt").stat().st_mode) == stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode)
    assert stat.S_IMODE((tmp_path / "x.txt").stat().st_mode) == 0o640


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    path = tmp_path / "out.json"
    path.write_text("old")
    with pytest.raises(TypeError):
        atomic_write_json(path, {"not json": object()})
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
