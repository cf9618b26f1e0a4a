"""Tool calls as a model makes them: bad names and arguments, schemas from conditions.json, leaks."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.errors import FormatError
from auditpacks.packs.icj.tools.catalogue import DEFAULT_CONDITIONS, conditions
from auditpacks.packs.icj.tools.toolbox import WITHHELD, ToolBox
from tests.support.icj_graph import snapshots

PROTOCOL = "tests/fixtures/icj/protocol"


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    return snapshots(tmp_path_factory, "1986-06-27")["1986-06-27"]


def test_default_conditions_say_what_their_search_is():
    assert list(DEFAULT_CONDITIONS) == ["Parametric", "Cypher + Lexical", "Designed Tools Only", "Cypher + Semantic"]
    assert len(DEFAULT_CONDITIONS["Designed Tools Only"]) == 12
    semantic = {t.name: t.does for t in conditions()["Cypher + Semantic"]}
    assert semantic == {"get_schema": "get_schema", "run_cypher": "run_cypher", "search_passages": "semantic_search"}


def test_conditions_json_names_the_conditions_and_tools(tmp_path):
    found = conditions(PROTOCOL)
    assert {c: [t.name for t in tools] for c, tools in found.items()} == {
        "parametric": [], "designed_tools": ["find_case", "get_document", "find_provision", "find_resolution"]}
    (tmp_path / "conditions.json").write_text(json.dumps({"x": ["find_case", "teleport"]}))
    with pytest.raises(FormatError, match=r"1 tool not implemented here: 'teleport' \(x\); map each"):
        conditions(tmp_path)
    schema = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
    (tmp_path / "conditions.json").write_text(json.dumps({"x": [{"name": "find_case", "parameters": schema}]}))
    assert conditions(tmp_path)["x"][0].parameters == schema
    (tmp_path / "conditions.json").write_text(json.dumps({"x": [{"name": "find_case", "parameters": {
        "type": "object", "properties": {"q": {"type": "string"}}}}]}))
    with pytest.raises(FormatError, match=r"find_case takes \['limit', 'query'\], not \['q'\]"):
        conditions(tmp_path)


@pytest.mark.parametrize("name, arguments, error", [
    ("teleport", {}, "no tool 'teleport'"),
    ("find_case", "{not json", "not valid JSON"),
    ("find_case", "[1, 2]", "must be a JSON object"),
    ("find_case", {}, "'query' is a required property"),
    ("find_case", {"query": "x", "extra": 1}, "Additional properties"),
    ("find_case", {"query": "x", "limit": 10 ** 9}, "is greater than the maximum"),
    ("find_case", {"query": ["Corfu"]}, "is not of type 'string'"),
    ("run_cypher", {"query": "MATCH (n) DETACH DELETE n"}, "DETACH is not allowed"),
])
def test_bad_calls_are_error_results(snap, name, arguments, error):
    box = ToolBox(snap, conditions()["Cypher + Lexical"] + conditions()["Designed Tools Only"])
    result = box.call(name, arguments)
    assert not result.ok and not result.leak and error in result.error
    assert json.loads(result.content) == {"error": result.error}


def test_a_leaking_result_is_refused_and_its_content_never_returned(snap, monkeypatch):
    box = ToolBox(snap, conditions()["Cypher + Lexical"])
    monkeypatch.setattr(box, "raw", lambda name, args: {"rows": [["ICJ_131_2004"]], "source_dates": ["2004-07-09"]})
    result = box.call("run_cypher", {"query": "MATCH (n) RETURN n"})
    assert result.leak and not result.ok and "dated 2004-07-09" in result.error
    assert json.loads(result.content) == {"error": WITHHELD}  # neither the rows nor the date reach the model


def test_results_are_capped_and_carry_their_dates(snap, monkeypatch):
    box = ToolBox(snap, conditions()["Designed Tools Only"])
    result = box.call("get_case", '{"case_id": "001"}')
    assert result.ok and result.source_dates == ["1947-12-01", "1948-03-25", "1949-04-09", "1949-12-15"]
    monkeypatch.setattr("auditpacks.packs.icj.tools.toolbox.RESULT_CHARS", 50)
    capped = box.call("get_case", {"case_id": "001"})
    assert capped.truncated and capped.content.endswith("…[result cut at the size cap]")
    assert len(capped.content) == 50 + len(" …[result cut at the size cap]")


SHAPES = [
    {"graph": ["find_case", "get_case"]},                                          # condition → names
    {"conditions": {"graph": {"tools": ["find_case", "get_case"]}}},               # under conditions, objects
    [{"name": "graph", "tools": ["find_case", {"name": "get_case"}]}],             # a list of condition objects
    {"conditions": [{"condition": "graph", "tools": [                              # OpenAI function entries
        {"type": "function", "function": {"name": "find_case"}}, {"type": "function", "function": {"name": "get_case"}}]}]},
]


@pytest.mark.parametrize("data", SHAPES)
def test_a_conditions_file_is_read_by_content_in_each_plausible_shape(tmp_path, data):
    (tmp_path / "conditions.json").write_text(json.dumps(data))
    assert {c: [t.does for t in tools] for c, tools in conditions(tmp_path).items()} == {
        "graph": ["find_case", "get_case"]}


def test_a_plain_list_of_tool_names_is_one_condition_and_every_unknown_tool_is_named(tmp_path):
    (tmp_path / "conditions.json").write_text(json.dumps(["find_case", "get_judge"]))
    assert [t.name for t in conditions(tmp_path)["tools"]] == ["find_case", "get_judge"]
    (tmp_path / "conditions.json").write_text(json.dumps({"a": ["lookup_case", "find_case"], "b": ["cypher_query"]}))
    with pytest.raises(FormatError) as err:
        conditions(tmp_path)
    assert "2 tools not implemented here: 'lookup_case' (a), 'cypher_query' (b); map each with --tool-alias" in \
        str(err.value)
    (tmp_path / "conditions.json").write_text(json.dumps([{"tools": ["find_case"]}]))
    with pytest.raises(FormatError, match=r"condition #0 has no name and tool list"):
        conditions(tmp_path)


def test_a_tool_of_the_copy_is_answered_through_its_alias(tmp_path, snap):
    (tmp_path / "conditions.json").write_text(json.dumps({"graph": ["lookup_case", "cypher_query"]}))
    with pytest.raises(FormatError, match="--tool-alias NAME=TOOL"):
        conditions(tmp_path)
    tools = conditions(tmp_path, {"lookup_case": "get_case", "cypher_query": "run_cypher"})["graph"]
    assert [(t.name, t.does) for t in tools] == [("lookup_case", "get_case"), ("cypher_query", "run_cypher")]
    box = ToolBox(snap, tools)
    assert [s["function"]["name"] for s in box.specs()] == ["lookup_case", "cypher_query"]
    assert json.loads(box.call("lookup_case", {"case_id": "070"}).content)["case"]["case_id"] == "070"
    assert not box.call("get_case", {"case_id": "070"}).ok  # only the copy's name is offered


def test_arguments_nested_too_deeply_or_holding_a_huge_number_are_error_results(snap):
    box = ToolBox(snap, conditions()["Designed Tools Only"])
    deep = box.call("find_case", '{"query": ' + "[" * 5000 + "]" * 5000 + "}")
    huge = box.call("find_case", '{"query": 1' + "9" * 5000 + "}")
    assert not deep.ok and json.loads(deep.content) == {"error": "arguments: JSON nested too deeply to read"}
    assert not huge.ok and json.loads(huge.content)["error"].startswith("arguments: a number too long to read")
    nested = box.call("find_case", {"query": "x", "extra": json.loads("[" * 900 + "]" * 900)})
    assert not nested.ok and "error" in json.loads(nested.content)
