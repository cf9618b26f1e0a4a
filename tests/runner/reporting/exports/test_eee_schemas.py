"""Where Every Eval Ever's schemas come from (its wheel, a folder, the installed package, or nowhere: one line
saying how to get them) and how a refused record's field is named."""

from __future__ import annotations

import json
import re
import sys
import zipfile
from types import ModuleType, SimpleNamespace

import pytest

from auditpacks.runner.reporting.exports.eee_schemas import checker, field_path, load_schemas, package_check
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


AGGREGATE_TOY = {"version": "0.3.0", "type": "object"}
INSTANCE_TOY = {"type": "object", "required": ["sample_id"]}


def schema_folder(folder, aggregate=AGGREGATE_TOY, instance=INSTANCE_TOY):
    """A folder holding the two schemas (None: that one left out; bytes: written as they are)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, value in (("eval.schema.json", aggregate), ("instance_level_eval.schema.json", instance)):
        if value is not None:
            (folder / name).write_bytes(value if isinstance(value, bytes) else json.dumps(value).encode())
    return folder


def test_the_installed_package_s_schemas_are_read_when_none_are_given(monkeypatch, tmp_path):
    schema_folder(tmp_path / "every_eval_ever" / "schemas")
    spec = SimpleNamespace(submodule_search_locations=[str(tmp_path / "every_eval_ever")])
    monkeypatch.setattr("importlib.util.find_spec", lambda name: spec if name == "every_eval_ever" else None)
    schemas = load_schemas(None)
    assert (schemas.aggregate, schemas.instance) == (AGGREGATE_TOY, INSTANCE_TOY)
    assert schemas.origin == "the installed every_eval_ever package" and schemas.version == "0.3.0"
    spec.submodule_search_locations = []
    with pytest.raises(ExportError, match="^no Every Eval Ever schema available: the every_eval_ever package is "
                                          r"not installed \(it needs Python 3.12\)"):
        load_schemas(None)


@pytest.mark.parametrize("aggregate, instance, message", [
    (AGGREGATE_TOY, None, "^toys: no instance_level_eval.schema.json in toys/$"),
    (b"{broken", INSTANCE_TOY, r"^eval.schema.json \(toys\): not valid JSON \(Expecting"),
    (AGGREGATE_TOY, b"[1]", r"^instance_level_eval.schema.json \(toys\): not a JSON schema \(an object expected\)$"),
])
def test_a_broken_schema_folder_is_one_line(tmp_path, aggregate, instance, message):
    with pytest.raises(ExportError, match=message):
        load_schemas(schema_folder(tmp_path / "toys", aggregate, instance))


def test_a_wheel_lacking_the_instance_schema_or_a_missing_path_is_refused(tmp_path):
    with zipfile.ZipFile(tmp_path / "part.whl", "w") as archive:
        archive.writestr("every_eval_ever/schemas/eval.schema.json", json.dumps(AGGREGATE_TOY))
    with pytest.raises(ExportError, match="^part.whl: no every_eval_ever/schemas/instance_level_eval.schema.json in "
                                          "the wheel$"):
        load_schemas(tmp_path / "part.whl")
    with pytest.raises(ExportError, match="gone.whl: --schemas names no wheel or folder$"):
        load_schemas(tmp_path / "gone.whl")


@pytest.mark.parametrize("aggregate, instance, message", [
    ("{broken", "{}", r"^eval.schema.json \(bad.whl\): not valid JSON"),
    ("{}", "[1]", r"^instance_level_eval.schema.json \(bad.whl\): not a JSON schema"),
])
def test_a_broken_schema_in_a_wheel_names_it_and_the_wheel(tmp_path, aggregate, instance, message):
    with zipfile.ZipFile(tmp_path / "bad.whl", "w") as archive:
        archive.writestr("every_eval_ever/schemas/eval.schema.json", aggregate)
        archive.writestr("every_eval_ever/schemas/instance_level_eval.schema.json", instance)
    with pytest.raises(ExportError, match=message):
        load_schemas(tmp_path / "bad.whl")


@pytest.mark.parametrize("version", [None, "", 3])
def test_a_schema_without_a_version_is_not_every_eval_evers(tmp_path, version):
    aggregate = {"type": "object"} if version is None else {"type": "object", "version": version}
    schemas = load_schemas(schema_folder(tmp_path / "toys", aggregate))
    with pytest.raises(ExportError, match=r"^eval.schema.json \(toys\): field version is missing; not Every Eval "
                                          "Ever's schema$"):
        schemas.version


def test_an_invalid_schema_is_refused_before_any_record():
    with pytest.raises(ExportError, match=r"^toy.schema.json: not a valid JSON schema \(3 is not valid under any"):
        checker({"type": 3}, "toy.schema.json")


@pytest.mark.parametrize("record, field", [
    ({"b": "x", "a": "y"}, "a"),                       # fields by name
    ({"rows": ["x", 1, "y"], "a": 1}, "rows[0]"),       # within a field, the lowest index
    ([], "(record)"),                                  # the record itself first
])
def test_the_first_wrong_field_is_named(record, field):
    check = checker({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"},
                                                      "rows": {"type": "array", "items": {"type": "integer"}}}},
                    "toy.schema.json")
    with pytest.raises(ExportError, match=rf"^r: field {re.escape(field)}: "):
        check(record, "r")


@pytest.mark.parametrize("value, shown", [   # the fault is the value quoted and 25 characters more
    ("a" * 133, "'" + "a" * 133 + "' is not of type 'integer'"),
    ("b" * 134, "'" + "b" * 134 + "' is not of type 'intege…"),
    ("c\nd", "'c\\nd' is not of type 'integer'"),
])
def test_a_long_fault_is_cut_to_160_characters(value, shown):
    with pytest.raises(ExportError) as caught:
        checker({"type": "integer"}, "toy")(value, "r")
    assert str(caught.value) == f"r: field (record): {shown} (Every Eval Ever toy)"


class Refused(Exception):
    def __init__(self, errors):
        super().__init__("refused")
        self._errors = errors

    def errors(self):
        return self._errors


def fake_package(monkeypatch, aggregate_fault=None, instance_fault=None) -> list:
    """every_eval_ever's two pydantic models, stood in for: each raises its fault (None: accepts); the records
    they were given are returned."""
    seen = []

    def model(fault):
        def validate(record):
            seen.append(record)
            if fault is not None:
                raise fault
        return SimpleNamespace(model_validate=validate)
    monkeypatch.setitem(sys.modules, "every_eval_ever", ModuleType("every_eval_ever"))
    for name, attribute, fault in (("eval_types", "EvaluationLog", aggregate_fault),
                                   ("instance_level_types", "InstanceLevelEvaluationLog", instance_fault)):
        module = ModuleType(f"every_eval_ever.{name}")
        setattr(module, attribute, model(fault))
        monkeypatch.setitem(sys.modules, module.__name__, module)
    return seen


def test_the_package_s_own_check_names_the_first_field(monkeypatch):
    seen = fake_package(monkeypatch, instance_fault=Refused([{"loc": ("evaluation_results", 0, "score"),
                                                              "msg": "too big"}, {"loc": ("x",), "msg": "other"}]))
    check = package_check()
    check({"any": 1}, "eval.schema.json", "agg.json")
    assert seen == [{"any": 1}]
    with pytest.raises(ExportError) as caught:
        check({"any": 1}, "instance_level_eval.schema.json", "row 3")
    assert str(caught.value) == "row 3: field evaluation_results[0].score: too big (every_eval_ever's own check)"


@pytest.mark.parametrize("fault, shown", [(ValueError("odd\nsecond"), "(record): odd"), (Refused([]), "(record): refused"),
                                          (Refused([{"msg": "no loc"}]), "(record): no loc"),
                                          (Refused([{"loc": ("a",), "msg": ""}]), "a: ")])
def test_a_package_fault_without_a_field_names_the_record(monkeypatch, fault, shown):
    fake_package(monkeypatch, aggregate_fault=fault)
    with pytest.raises(ExportError) as caught:
        package_check()({}, "eval.schema.json", "agg.json")
    assert str(caught.value) == f"agg.json: field {shown} (every_eval_ever's own check)"


def test_without_the_package_its_check_is_none(monkeypatch):
    monkeypatch.setitem(sys.modules, "every_eval_ever.eval_types", None)
    assert package_check() is None
