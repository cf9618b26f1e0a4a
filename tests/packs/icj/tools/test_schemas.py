"""Protocol tool schemas: refused at load unless valid and local, never fetching anything, and patterns matched
under a time limit."""

from __future__ import annotations

import json
import re
import time
from http.server import BaseHTTPRequestHandler

import pytest

from auditpacks.core.errors import FormatError
from auditpacks.packs.icj.tools.catalogue import conditions
from auditpacks.packs.icj.tools.schemas import check, problem
from auditpacks.runner.serving.loopback import LoopbackServer, send_json


class _Counting(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        self.server.hits.append(self.path)
        send_json(self, 200, {"type": "string"})

    def log_message(self, *args):
        pass


def protocol(tmp_path, parameters):
    folder = tmp_path / "protocol"
    folder.mkdir(exist_ok=True)
    (folder / "conditions.json").write_text(json.dumps({"designed": [{"name": "find_case", "parameters": parameters}]}),
                                            encoding="utf-8")
    return folder


def test_a_remote_ref_is_refused_at_load_and_never_fetched_even_when_validating(tmp_path):
    hits: list[str] = []
    with LoopbackServer(_Counting, hits=hits) as server:
        remote = {"type": "object", "properties": {"query": {"$ref": f"{server.url}/evil.json"}}}
        with pytest.raises(FormatError, match=r"condition 'designed': tool find_case: \$ref 'http://127.0.0.1:\d+/evil"
                                              r".json' is not local \(only #... references; nothing is fetched\)"):
            conditions(protocol(tmp_path, remote))
        assert problem({"query": "x"}, remote) == "the tool's schema holds a reference that cannot be resolved"
    assert hits == []


def test_a_local_ref_resolves():
    schema = {"type": "object", "$defs": {"q": {"type": "string", "maxLength": 3}},
              "properties": {"query": {"$ref": "#/$defs/q"}}}
    check(schema, "here")
    assert problem({"query": "abc"}, schema) is None
    assert problem({"query": "abcd"}, schema).startswith("arguments do not fit the tool: 'abcd' is too long")


def test_a_pathological_pattern_runs_out_of_time_instead_of_for_minutes():
    schema = {"type": "object", "properties": {"query": {"type": "string", "pattern": "^(x+x+)+y$"}}}
    check(schema, "here")
    started = time.monotonic()
    found = problem({"query": "x" * 5000}, schema)   # Python's re would backtrack for ages
    assert time.monotonic() - started < 5
    assert found == "arguments do not fit the tool: the pattern '^(x+x+)+y$' ran past its 0.5 s time limit; taken as " \
                    "not matched"
    assert problem({"query": "xxy"}, schema) is None


@pytest.mark.parametrize(("parameters", "message"), [
    ({"type": "objekt"}, "not a valid JSON schema"),
    ({"type": "object", "properties": {"query": {"type": "string", "pattern": "(unclosed"}}},
     "not a valid JSON schema ('(unclosed' is not a 'regex')"),
    ({"type": "object", "properties": {"query": {"minLength": "three"}}}, "not a valid JSON schema"),
])
def test_an_invalid_schema_is_refused_at_load_in_one_line(tmp_path, parameters, message):
    with pytest.raises(FormatError, match=f"tool find_case: {re.escape(message)}"):
        conditions(protocol(tmp_path, parameters))
