"""Protocol schemas checked and applied, case by case: what a check refuses and names (references anywhere, patterns
of any dialect), subschemas named like keywords, pattern and patternProperties matched under the time limit."""

from __future__ import annotations

import pytest
from referencing.exceptions import NoSuchResource

from auditpacks.core.errors import FormatError
from auditpacks.packs.icj.tools import schemas
from auditpacks.packs.icj.tools.schemas import _retrieve, check, problem, validator_class

DRAFT4 = "http://json-schema.org/draft-04/schema#"


def refused(schema):
    with pytest.raises(FormatError) as err:
        check(schema, "w: tool find_case")
    assert "\n" not in str(err.value)
    return str(err.value)


@pytest.mark.parametrize("schema", [
    {"type": "object", "anyOf": [{"properties": {"q": {"$ref": "https://example.org/q.json"}}}]},
    {"type": "object", "properties": {"q": {"allOf": [{"$ref": "q.json"}]}}},
    {"$schema": DRAFT4, "$ref": 5},
])
def test_a_reference_that_is_not_local_is_refused_wherever_it_is(schema):
    assert refused(schema).startswith("w: tool find_case: $ref ")


def test_a_long_reference_is_named_by_its_first_80_characters():
    ref = "https://example.org/" + "x" * 200
    assert refused({"properties": {"q": {"$ref": ref}}}) == (
        f"w: tool find_case: $ref {ref[:80]!r} is not local (only #... references; nothing is fetched)")


@pytest.mark.parametrize("schema", [
    {"type": "object", "$defs": {"pattern": {"type": "string", "maxLength": 5}},
     "properties": {"query": {"$ref": "#/$defs/pattern"}}},
    {"type": "object", "$defs": {"$ref": {"type": "string"}, "patternProperties": {"type": "string"}},
     "properties": {"query": {"$ref": "#/$defs/$ref"}}},
    {"type": "object", "properties": {"query": {"type": "string", "pattern": "^[A-Z]"}},
     "patternProperties": {"^x-": {"type": "string"}}},
])
def test_a_subschema_named_like_a_keyword_is_no_keyword(schema):
    check(schema, "w")  # the definitions named pattern, $ref, patternProperties are schemas, not a regex or a link


def test_a_definition_named_pattern_still_applies():
    schema = {"type": "object", "$defs": {"pattern": {"type": "string", "maxLength": 5}},
              "properties": {"query": {"$ref": "#/$defs/pattern"}}}
    assert problem({"query": "abcde"}, schema) is None
    assert problem({"query": "abcdef"}, schema) == "arguments do not fit the tool: 'abcdef' is too long"


@pytest.mark.parametrize("schema, pattern", [
    ({"$schema": DRAFT4, "type": "object", "patternProperties": {"(unclosed": {}}}, "(unclosed"),
    ({"$schema": DRAFT4, "patternProperties": {"^ok$": {}, "[z-a]": {}}}, "[z-a]"),
])
def test_a_pattern_property_that_is_no_regular_expression_is_refused(schema, pattern):
    message = refused(schema)
    assert message.startswith(f"w: tool find_case: pattern {pattern!r} is not a regular expression (")


def test_an_invalid_schema_names_the_first_200_characters_of_why():
    message = refused({"type": "object", "properties": {"q": {"minLength": "x" * 300}}})
    assert message.startswith("w: tool find_case: not a valid JSON schema (")
    assert len(message) == len("w: tool find_case: not a valid JSON schema ()") + 200


def test_a_schema_nested_too_deeply_is_refused_in_one_line():
    deep: dict = {"type": "string"}
    for _ in range(5000):
        deep = {"items": deep}
    assert refused(deep) == "w: tool find_case: JSON schema nested too deeply"


def test_arguments_nested_too_deeply_to_check():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    schema = {"type": "array", "items": {"$ref": "#"}}
    assert problem(deep, schema) == "arguments: JSON nested too deeply to check"


@pytest.mark.parametrize("value, message", [
    ("abc", None),
    ("Abc", "arguments do not fit the tool: 'Abc' does not match '^[a-z]+$'"),
    ("A" * 100, f"arguments do not fit the tool: {'A' * 80!r} does not match '^[a-z]+$'"),
])
def test_a_pattern_names_the_first_80_characters_of_value_and_pattern(value, message):
    schema = {"type": "object", "properties": {"q": {"type": "string", "pattern": "^[a-z]+$"}}}
    assert problem({"q": value}, schema) == message


def test_a_long_pattern_is_named_by_its_first_80_characters():
    pattern = "^" + "a" * 100 + "$"
    assert problem("b", {"type": "string", "pattern": pattern}) == \
        f"arguments do not fit the tool: 'b' does not match {pattern[:80]!r}"


def test_a_pattern_applies_to_text_only():
    assert problem(5, {"pattern": "^[a-z]+$"}) is None


def test_the_message_of_an_argument_is_cut_at_200_characters():
    found = problem("x" * 500, {"type": "string", "maxLength": 3})
    assert found == "arguments do not fit the tool: " + f"{'x' * 500!r} is too long"[:200]


PROPERTIES = {"type": "object", "patternProperties": {"^n_": {"type": "integer"}, "^s_": {"type": "string"}}}


@pytest.mark.parametrize("arguments, message", [
    ({"n_a": 1, "s_b": "x", "other": [1]}, None),
    ({"n_a": "one"}, "arguments do not fit the tool: 'one' is not of type 'integer'"),
    ({"s_b": 2}, "arguments do not fit the tool: 2 is not of type 'string'"),
])
def test_pattern_properties_check_the_values_of_matching_keys(arguments, message):
    assert problem(arguments, PROPERTIES) == message
    assert problem(["n_a"], {"patternProperties": PROPERTIES["patternProperties"]}) is None  # objects only


def test_a_pattern_property_that_runs_out_of_time_is_said_so(monkeypatch):
    monkeypatch.setattr(schemas, "PATTERN_TIMEOUT_S", 0.01)
    schema = {"type": "object", "patternProperties": {"^(x+x+)+y$": {"type": "integer"}}}
    assert problem({"x" * 5000: 1}, schema) == ("arguments do not fit the tool: the pattern '^(x+x+)+y$' ran past its "
                                                "0.01 s time limit; taken as not matched")


def test_a_long_pattern_that_runs_out_of_time_is_named_by_its_first_80_characters(monkeypatch):
    monkeypatch.setattr(schemas, "PATTERN_TIMEOUT_S", 0.01)
    pattern = "^(x+x+)+y" + "z?" * 50 + "$"
    found = problem("x" * 5000, {"type": "string", "pattern": pattern})
    assert found == f"arguments do not fit the tool: the pattern {pattern[:80]!r} ran past its 0.01 s time limit; " \
                    "taken as not matched"


def test_a_schema_without_a_dialect_is_draft_2020_12():
    import jsonschema

    assert validator_class({"type": "string"}).META_SCHEMA == jsonschema.Draft202012Validator.META_SCHEMA
    assert validator_class({"$schema": DRAFT4}).META_SCHEMA == jsonschema.Draft4Validator.META_SCHEMA
    assert problem(["a", "a"], {"prefixItems": [{"type": "integer"}]}) is not None  # a 2020-12 keyword applies


def test_a_reference_elsewhere_is_never_retrieved():
    with pytest.raises(NoSuchResource) as err:
        _retrieve("https://example.org/q.json")
    assert err.value.ref == "https://example.org/q.json"


@pytest.mark.parametrize("schema, pattern", [
    ({"type": "string", "pattern": "{d"}, "{d"),             # Python's re takes it, the regex library does not
    ({"type": "object", "patternProperties": {"^ok$": {}, "{s": {}}}, "{s"),
    ({"type": "string", "pattern": "{d" + "x" * 100}, "{d" + "x" * 78),
])
def test_a_pattern_the_matcher_cannot_compile_is_refused_at_load(schema, pattern):
    assert refused(schema).startswith(f"w: tool find_case: pattern {pattern!r} is not a regular expression (")


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"{d": {"type": "string", "description": "the case id (three digits"}}},
    {"type": "string", "description": "{d", "title": "(unclosed", "examples": ["{s"]},
])
def test_names_and_texts_that_are_no_patterns_are_not_compiled(schema):
    check(schema, "w")


def test_the_best_match_is_the_shallowest_error():
    schema = {"type": "object", "patternProperties": {"^n_": {"type": "integer"}}, "required": ["q"]}
    assert problem({"n_a": "x"}, schema) == "arguments do not fit the tool: 'q' is a required property"
    assert problem({"n_a": "x", "q": 1}, schema) == "arguments do not fit the tool: 'x' is not of type 'integer'"
