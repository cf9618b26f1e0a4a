"""Where Every Eval Ever's schemas come from (its wheel, a folder, the installed package, or nowhere: one line
saying how to get them) and how a refused record's field is named."""

from __future__ import annotations

import zipfile

import pytest

from auditpacks.runner.reporting.exports.eee_schemas import checker, field_path, load_schemas
from auditpacks.runner.reporting.exports.source import ExportError


def test_the_schemas_are_read_from_the_wheel_or_an_unpacked_folder(eee_wheel, tmp_path):
    from_wheel = load_schemas(eee_wheel)
    assert from_wheel.version == "0.3.0" and from_wheel.origin == eee_wheel.name
    assert "evaluation_results" in from_wheel.aggregate["required"] and "sample_id" in from_wheel.instance["required"]
    with zipfile.ZipFile(eee_wheel) as archive:
        archive.extractall(tmp_path / "unpacked")
    for folder in (tmp_path / "unpacked", tmp_path / "unpacked" / "every_eval_ever",
                   tmp_path / "unpacked" / "every_eval_ever" / "schemas"):
        assert load_schemas(folder).aggregate == from_wheel.aggregate


def test_no_schema_anywhere_says_how_to_get_one(monkeypatch):
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(ExportError) as caught:
        load_schemas(None)
    message = str(caught.value)
    assert "no Every Eval Ever schema available" in message and "--schemas" in message
    assert "pip download --no-deps --only-binary=:all: --python-version 3.12 every-eval-ever" in message


def test_what_is_not_a_wheel_or_schema_folder_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(ExportError, match="notes.txt: not a wheel"):
        load_schemas(tmp_path / "notes.txt")
    with pytest.raises(ExportError, match="no eval.schema.json in this folder"):
        load_schemas(tmp_path)
    with zipfile.ZipFile(tmp_path / "empty.whl", "w") as archive:
        archive.writestr("other/file.txt", "x")
    with pytest.raises(ExportError, match="no every_eval_ever/schemas/eval.schema.json in the wheel"):
        load_schemas(tmp_path / "empty.whl")


def test_a_refused_record_names_its_field():
    schema = {"type": "object", "properties": {"rows": {"type": "array", "items": {
        "type": "object", "properties": {"score": {"type": "number"}}}}}}
    check = checker(schema, "toy.schema.json")
    check({"rows": [{"score": 1}]}, "record")
    with pytest.raises(ExportError) as caught:
        check({"rows": [{"score": 1}, {"score": "high"}, {"score": None}]}, "the record x.json")
    assert str(caught.value) == ("the record x.json: field rows[1].score: 'high' is not of type 'number' "
                                 "(Every Eval Ever toy.schema.json)")
    assert field_path([]) == "(record)" and field_path(["a", 0, "b"]) == "a[0].b"


def test_a_missing_jsonschema_is_one_line_with_the_install_hint(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "jsonschema", None)
    with pytest.raises(ExportError, match=r"pip install 'auditpacks\[eee\]'"):
        checker({"type": "object"}, "toy.schema.json")
