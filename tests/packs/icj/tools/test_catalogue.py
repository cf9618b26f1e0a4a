"""The tool catalogue: argument schemas, tools as the model sees them and what answers each, aliases, and the
conditions read from a protocol's conditions.json in its plausible shapes, every refusal in one line."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from auditpacks.core.errors import FormatError
from auditpacks.packs.icj.tools import cypher
from auditpacks.packs.icj.tools.catalogue import (DEFAULT_CONDITIONS, TOOLS, Tool, _limit, _parameters_of, _schema,
                                                  _str, _tool, _tool_name, _tools_of, condition_lists, conditions,
                                                  parse_aliases)

NAMES = ", ".join(TOOLS)


def test_argument_schemas():
    assert _str("words to look for") == {"type": "string", "description": "words to look for", "minLength": 1,
                                         "maxLength": 2000}
    assert _limit(20) == {"type": "integer", "minimum": 1, "maximum": 20, "description": "at most 20"}
    assert _schema({"query": {"type": "string"}}) == {"type": "object", "properties": {"query": {"type": "string"}},
                                                      "required": ["query"], "additionalProperties": False}
    assert _schema({"a": {}}, {"limit": {"type": "integer"}}) == {
        "type": "object", "properties": {"a": {}, "limit": {"type": "integer"}}, "required": ["a"],
        "additionalProperties": False}
    assert _schema({}) == {"type": "object", "properties": {}, "required": [], "additionalProperties": False}


def test_a_tool_as_the_model_sees_it_and_what_answers_it():
    tool = Tool("lookup_case", "A case.", {"type": "object"}, "get_case")
    assert tool.does == "get_case" and Tool("get_case", "A case.", {}).does == "get_case"
    assert tool.openai() == {"type": "function", "function": {"name": "lookup_case", "description": "A case.",
                                                              "parameters": {"type": "object"}}}


class Snapshot:
    def rows(self, role):
        return {"cases": [{"case_id": "070", "name": "Military and Paramilitary Activities"}]}.get(role, [])


def test_each_tool_is_answered_on_its_snapshot(monkeypatch):
    snapshot, semantic = Snapshot(), SimpleNamespace(search=lambda query, limit=10: {"semantic": query})
    seen = []
    monkeypatch.setattr(cypher, "schema", lambda s: seen.append(("schema", s)) or {"nodes": {}})
    monkeypatch.setattr(cypher, "run_query", lambda s, **a: seen.append(("query", s, a)) or {"rows": []})
    assert Tool("get_schema", "", {}).function(snapshot)() == {"nodes": {}}
    assert Tool("cypher", "", {}, "run_cypher").function(snapshot)(query="MATCH (n) RETURN n") == {"rows": []}
    assert seen == [("schema", snapshot), ("query", snapshot, {"query": "MATCH (n) RETURN n"})]
    get_case = Tool("get_case", "", {}).function(snapshot)
    assert get_case.__self__.snapshot is snapshot and get_case.__name__ == "get_case"
    search = Tool("search_passages", "", {}, "semantic_search").function(snapshot, semantic)
    assert search("self-defence") == {"semantic": "self-defence"}


def test_semantic_search_without_vectors_is_one_line():
    with pytest.raises(FormatError) as err:
        Tool("search_passages", "", {}, "semantic_search").function(Snapshot())
    assert str(err.value) == "semantic search needs passage vectors in the graph copy and a query encoder"


@pytest.mark.parametrize("name, parameters", [
    ("find_case", {"query", "limit"}), ("get_case", {"case_id"}), ("find_document", {"query", "case_id", "limit"}),
    ("get_passages", {"document_id", "limit"}), ("run_cypher", {"query"}), ("get_schema", set()),
    ("search_passages", {"query", "limit"}), ("semantic_search", {"query", "limit"}),
])
def test_the_parameters_each_tool_takes(name, parameters):
    assert _parameters_of(name) == parameters


@pytest.mark.parametrize("entry, name", [
    ("find_case", "find_case"), ({"name": "a", "tool": "b", "id": "c"}, "a"), ({"tool": "b", "id": "c"}, "b"),
    ({"id": "c"}, "c"), ({"description": "x"}, None), ({"type": "function", "function": {"name": "get_case"}},
                                                        "get_case"),
    ({"function": "get_case", "name": "find_case"}, "find_case"), (7, 7), (None, None),
])
def test_a_tool_entry_s_name(entry, name):
    assert _tool_name(entry) == name


def test_a_tool_entry_becomes_a_tool_with_the_catalogue_s_description_and_schema():
    description, parameters, _ = TOOLS["find_case"]
    assert _tool("find_case", "w") == Tool("find_case", description, parameters, "find_case")
    assert _tool("lookup", "w", {"lookup": "get_case"}) == Tool("lookup", TOOLS["get_case"][0], TOOLS["get_case"][1],
                                                                "get_case")
    assert _tool({"name": "find_case"}, "w") == Tool("find_case", description, parameters, "find_case")
    schema = {"type": "object", "properties": {"query": {"type": "string"}}}
    given = _tool({"type": "function", "function": {"name": "find_case", "description": "Their words.",
                                                    "input_schema": schema}}, "w")
    assert given == Tool("find_case", "Their words.", schema, "find_case")
    assert _tool({"name": "find_case", "description": "", "parameters": {}}, "w") == Tool(
        "find_case", description, parameters, "find_case")  # empty ones: the catalogue's


@pytest.mark.parametrize("entry, aliases, error", [
    ("teleport", None, f"w: tool 'teleport' is not one auditpacks implements ({NAMES}); map it to one with "
                       "--tool-alias NAME=TOOL"),
    ("lookup", {"lookup": "teleport"}, "w: tool 'lookup' is not one auditpacks implements"),
    ({"id": 3}, None, "w: tool 3 is not one auditpacks implements"),
    ({"name": ["find_case"]}, {"find_case": "get_case"}, "w: tool ['find_case'] is not one auditpacks implements"),
    ({"name": "get_case", "parameters": {"type": "object", "properties": {"case": {}, "case_id": {}}}}, None,
     "w: tool get_case takes ['case_id'], not ['case']"),
    ({"name": "get_case", "parameters": ["case_id"]}, None, "w: tool get_case takes ['case_id'], not ['1']"),
    ({"name": "get_case", "parameters": {"type": "object", "properties": {"case_id": {"type": "text"}}}}, None,
     "w: tool get_case: not a valid JSON schema ("),
])
def test_a_tool_entry_that_cannot_be_answered_is_one_line(entry, aliases, error):
    with pytest.raises(FormatError) as err:
        _tool(entry, "w", aliases)
    assert str(err.value).startswith(error)


def test_aliases_from_the_command_line():
    assert parse_aliases([]) == {}
    assert parse_aliases([" lookup_case = get_case ", "cypher_query=run_cypher"]) == {
        "lookup_case": "get_case", "cypher_query": "run_cypher"}


@pytest.mark.parametrize("value", ["lookup_case", "=get_case", "  =get_case", "lookup_case=teleport", "a=b=c",
                                   "x=y=get_case"])
def test_a_malformed_alias_is_one_line(value):
    with pytest.raises(FormatError) as err:
        parse_aliases(["ok=get_case", value])
    assert str(err.value) == f"--tool-alias {value!r}: expected NAME=TOOL with TOOL one of {NAMES}"


@pytest.mark.parametrize("value, tools", [
    (["a"], ["a"]), ({"tools": ["a"]}, ["a"]), ({"tool_names": ["a"]}, ["a"]), ({"functions": ["a"]}, ["a"]),
    ({"allowed_tools": ["a"]}, ["a"]), ({"tools": "a"}, None), ({"other": ["a"]}, None), ("a", None),
    ({"tools": ["a"], "functions": ["b"]}, ["a"]),
])
def test_a_condition_s_tool_list(value, tools):
    assert _tools_of(value) == tools


@pytest.mark.parametrize("data, lists", [
    ({"conditions": {"x": ["find_case"]}}, {"x": ["find_case"]}),
    ({"conditions": [{"name": "x", "tools": ["find_case"]}]}, {"x": ["find_case"]}),
    ({"conditions": [], "x": ["find_case"]}, {"conditions": [], "x": ["find_case"]}),
    ({"conditions": ["find_case"]}, {"conditions": ["find_case"]}),
    ({"conditions": [{"name": "find_case"}]}, {"conditions": [{"name": "find_case"}]}),  # tools, not conditions
    ([{"condition": "x", "tools": []}, {"id": "y", "functions": ["get_case"]}, {"setting": "z", "tools": []}],
     {"x": [], "y": ["get_case"], "z": []}),
    ([{"name": "find_case"}, "get_case"], {"tools": [{"name": "find_case"}, "get_case"]}),
    ([], {"tools": []}),
    ({"x": {"tools": ["find_case"]}, 7: ["get_case"]}, {"x": ["find_case"], "7": ["get_case"]}),
])
def test_condition_lists_in_each_shape(data, lists):
    assert condition_lists(data, "c.json") == lists


@pytest.mark.parametrize("data, error", [
    ([{"name": "x", "tools": []}, {"tools": []}], "c.json: condition #1 has no name and tool list (expected "
                                                 "{'name': ..., 'tools': [...]})"),
    ([{"name": 3, "tools": []}], "c.json: condition #0 has no name and tool list"),
    ([{"name": "x"}, 3], "c.json: condition #0 has no name and tool list"),
    ({"x": "find_case"}, "c.json: condition 'x' holds no list of tools"),
    ("find_case", "c.json: expected condition → tools, a list of conditions or a list of tool names"),
    (3, "c.json: expected condition → tools"),
])
def test_a_conditions_file_of_no_known_shape_is_one_line(data, error):
    with pytest.raises(FormatError) as err:
        condition_lists(data, "c.json")
    assert str(err.value).startswith(error)


def test_the_default_conditions_are_the_card_s(tmp_path):
    found = conditions()
    assert {c: [(t.name, t.does) for t in tools] for c, tools in found.items()} == {
        c: [(n, "semantic_search" if c == "Cypher + Semantic" and n == "search_passages" else n) for n in names]
        for c, names in DEFAULT_CONDITIONS.items()}
    assert conditions(tmp_path) == found  # a protocol folder without conditions.json
    assert conditions(None, {"x": "get_case"}) == found


def write(tmp_path, data):
    (tmp_path / "conditions.json").write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return tmp_path


def test_a_conditions_file_names_the_conditions_and_their_tools(tmp_path):
    found = conditions(write(tmp_path, {"graph": ["find_case", {"name": "lookup", "description": "Theirs."}]}),
                       {"lookup": "get_case"})
    assert found == {"graph": [Tool("find_case", TOOLS["find_case"][0], TOOLS["find_case"][1], "find_case"),
                               Tool("lookup", "Theirs.", TOOLS["get_case"][1], "get_case")]}


def test_a_bad_conditions_file_is_one_line(tmp_path):
    path = write(tmp_path, "{not json") / "conditions.json"
    with pytest.raises(FormatError) as err:
        conditions(tmp_path)
    assert str(err.value) == f"{path}: not valid JSON"
    write(tmp_path, {"a": ["find_case", {"name": 3}], "b": ["teleport"]})
    with pytest.raises(FormatError) as err:
        conditions(tmp_path)
    assert str(err.value) == (f"{path}: 2 tools not implemented here: 3 (a), 'teleport' (b); map each with "
                              f"--tool-alias NAME=TOOL (tools: {NAMES})")
    write(tmp_path, {"a": "find_case"})
    with pytest.raises(FormatError) as err:
        conditions(tmp_path)
    assert str(err.value) == f"{path}: condition 'a' holds no list of tools"
    write(tmp_path, {"a": ["lookup"]})
    with pytest.raises(FormatError) as err:
        conditions(tmp_path, {"other": "get_case"})
    assert str(err.value).startswith(f"{path}: 1 tool not implemented here: 'lookup' (a); map each")
    write(tmp_path, {"a": [{"name": "get_case", "parameters": {"type": "object", "properties": {"x": {}}}}]})
    with pytest.raises(FormatError) as err:
        conditions(tmp_path)
    assert str(err.value) == f"{path}: condition 'a': tool get_case takes ['case_id'], not ['x']"

