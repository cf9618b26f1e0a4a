"""What one tool call gives the model and keeps for the trace, on a stand-in snapshot and tools: every field of
the result for errors, leaks, failures and answers, the size cap to the character, text as written."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.core.errors import UserError
from auditpacks.packs.icj.tools import toolbox
from auditpacks.packs.icj.tools.guard import LeakError
from auditpacks.packs.icj.tools.toolbox import WITHHELD, ToolBox, ToolResult

SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}}, "additionalProperties": False}


class Guard:
    """Refuses a result that says it leaks, passes the rest as they are."""

    def check(self, result):
        if isinstance(result, dict) and "leak" in result:
            raise LeakError(f"case {result['leak']} is dated 2004-07-09, not before the cutoff 1986-06-27")
        return result


class FakeTool:
    """A tool whose answer is fixed (or raised); it records what it was bound to."""

    def __init__(self, name, answer=None):
        self.name, self.parameters, self.answer, self.bound = name, SCHEMA, answer, []

    def openai(self):
        return {"type": "function", "function": {"name": self.name}}

    def function(self, snapshot, semantic=None):
        self.bound.append((snapshot, semantic))

        def call(**arguments):
            if isinstance(self.answer, Exception):
                raise self.answer
            return self.answer(arguments) if callable(self.answer) else self.answer
        return call


SNAPSHOT = SimpleNamespace(cutoff="1986-06-27", folder=Path("1986-06-27_0123456789abcdef"), guard=Guard())


def box(*tools, semantic=None):
    return ToolBox(SNAPSHOT, list(tools), semantic)


def record(name, arguments, error, leak=False):
    content = json.dumps({"error": WITHHELD if leak else error})
    return {"name": name, "arguments": arguments, "content": content, "ok": False, "error": error, "leak": leak,
            "source_dates": [], "truncated": False}


def test_the_box_names_its_snapshot_and_offers_its_tools():
    tools = box(FakeTool("find_case"), FakeTool("get_case"))
    assert tools.cutoff == "1986-06-27" and tools.snapshot_id == "1986-06-27_0123456789abcdef"
    assert tools.specs() == [{"type": "function", "function": {"name": "find_case"}},
                             {"type": "function", "function": {"name": "get_case"}}]


@pytest.mark.parametrize("name, arguments, shown_name, error", [
    ("teleport", {"query": "x"}, "teleport", "no tool 'teleport'; tools: find_case, get_case"),
    (7, "{}", "7", "no tool 7; tools: find_case, get_case"),
    ("find_case", "[1, 2]", "find_case", "arguments must be a JSON object"),
    ("find_case", 3, "find_case", "arguments must be a JSON object"),
    ("find_case", '{"query": ', "find_case", "arguments are not valid JSON (Expecting value)"),
    ("find_case", '{"query": 3}', "find_case", "arguments do not fit the tool: 3 is not of type 'string'"),
])
def test_a_bad_call_keeps_the_arguments_as_the_model_sent_them(name, arguments, shown_name, error):
    result = box(FakeTool("find_case", {"cases": []}), FakeTool("get_case")).call(name, arguments)
    assert result.record() == record(shown_name, arguments, error)


@pytest.mark.parametrize("arguments", ["", "  ", {}])
def test_no_arguments_at_all_are_an_empty_object(arguments):
    result = box(FakeTool("find_case", lambda args: {"given": args})).call("find_case", arguments)
    assert result.ok and json.loads(result.content) == {"given": {}} and result.arguments == {}


def test_a_leak_is_withheld_and_the_trace_keeps_the_parsed_arguments_and_why():
    result = box(FakeTool("get_case", {"leak": "131", "source_dates": ["2004-07-09"]})).call(
        "get_case", '{"query": "131"}')
    assert result.record() == record("get_case", {"query": "131"},
                                     "case 131 is dated 2004-07-09, not before the cutoff 1986-06-27", leak=True)


@pytest.mark.parametrize("raised, error", [
    (ValueError("no such case\nTraceback follows"), "no such case"),
    (TypeError(), "TypeError"),
    (UserError("the query timed out"), "the query timed out"),
])
def test_a_tool_that_fails_gives_the_first_line_of_why(raised, error):
    result = box(FakeTool("find_case", raised)).call("find_case", '{"query": "x"}')
    assert result.record() == record("find_case", {"query": "x"}, error)


def test_an_answer_keeps_its_text_as_written_and_its_sources_dates():
    case = {"name": "Activités militaires et paramilitaires — arrêt", "date": datetime.date(1986, 6, 27)}
    answer = {"case": case, "source_dates": ["1984-11-26", "1986-06-27"]}
    result = box(FakeTool("get_case", answer)).call("get_case", {"query": "070"})
    assert result.record() == {
        "name": "get_case", "arguments": {"query": "070"}, "ok": True, "error": None, "leak": False,
        "content": '{"case": {"name": "Activités militaires et paramilitaires — arrêt", "date": "1986-06-27"}, '
                   '"source_dates": ["1984-11-26", "1986-06-27"]}',
        "source_dates": ["1984-11-26", "1986-06-27"], "truncated": False}


@pytest.mark.parametrize("answer, ok, error, dates", [
    ({"error": "no case 999"}, False, "no case 999", []),
    ({"error": "no case 999", "source_dates": ["1949-04-09"]}, False, "no case 999", ["1949-04-09"]),
    ({"rows": []}, True, None, []),
    ([["070", "1986-06-27"]], True, None, []),
    ("plain text", True, None, []),
])
def test_an_answer_that_is_an_error_object_is_not_ok(answer, ok, error, dates):
    result = box(FakeTool("run_cypher", answer)).call("run_cypher", {"query": "x"})
    assert (result.ok, result.error, result.source_dates, result.leak) == (ok, error, dates, False)
    assert json.loads(result.content) == answer


def test_the_size_cap_is_exact(monkeypatch):
    monkeypatch.setattr(toolbox, "RESULT_CHARS", 12)
    fits = box(FakeTool("find_case", "abcdefghij")).call("find_case", {})   # '"abcdefghij"': 12 characters
    assert fits.content == '"abcdefghij"' and not fits.truncated
    over = box(FakeTool("find_case", "abcdefghijk")).call("find_case", {})
    assert over.content == '"abcdefghijk' + " …[result cut at the size cap]" and over.truncated


def test_a_tool_is_bound_once_to_the_snapshot_and_the_semantic_search():
    tool, semantic = FakeTool("search_passages", {"passages": []}), object()
    tools = box(tool, semantic=semantic)
    tools.call("search_passages", {"query": "a"})
    tools.call("search_passages", {"query": "b"})
    assert tool.bound == [(SNAPSHOT, semantic)]


def test_a_result_record_is_its_fields():
    result = ToolResult("find_case", {"query": "x"}, "{}", True, source_dates=["1949-04-09"], truncated=True)
    assert result.record() == {"name": "find_case", "arguments": {"query": "x"}, "content": "{}", "ok": True,
                               "error": None, "leak": False, "source_dates": ["1949-04-09"], "truncated": True}
