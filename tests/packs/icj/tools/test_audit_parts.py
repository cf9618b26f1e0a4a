"""The leak audit's parts in process: what counts as a leak in a result, the calls it generates, the texts of the cut
tables it lets through, and its report."""

from __future__ import annotations

import datetime as dt
import re
from types import SimpleNamespace

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditpacks.packs.icj.graph.graphdb import NODES, RELS
from auditpacks.packs.icj.tools import audit
from auditpacks.packs.icj.tools.canaries import Planted
from auditpacks.packs.icj.tools.catalogue import Tool

CUTOFF = "1986-06-27"
TAG = "CANARYabc123N0"
PLANTED = Planted(graph=None, nonce="abc123",
                  markers={f"{TAG}X0": "1986-06-27", f"{TAG}X1": "1986-06-28", f"{TAG}W": "1950-01-01"},
                  witnesses={CUTOFF: {"070": ("case_id", {"documents": 2, "cited_by": 1})}})


def findings(result, cut_texts=frozenset()):
    seen: list[str] = []
    return audit._findings(result, CUTOFF, PLANTED, set(cut_texts), seen), seen


def test_strings_and_dicts_are_found_at_any_depth():
    value = {"a": ["x", ("y", {"b": "z", "n": 1})], "c": None, "d": 2.5}
    assert list(audit._strings(value)) == ["x", "y", "z"]
    assert list(audit._dicts(value)) == [value, {"b": "z", "n": 1}]
    assert list(audit._strings("w")) == ["w"] and list(audit._dicts([1, "w"])) == []


def test_a_marker_of_material_from_the_cutoff_on_is_a_leak_and_every_marker_is_seen():
    found, seen = findings({"rows": [f"see {TAG.lower()}x1 and {TAG}W", [f"{TAG}X0"], f"{TAG}X9 CANARYffffffN0X0"]})
    assert found == [f"holds a marker of material dated on or after the cutoff ({TAG}X0, {TAG}X1)"]
    assert seen == [f"{TAG}W", f"{TAG}X0", f"{TAG}X1"]


def test_an_earlier_marker_is_seen_but_no_leak():
    assert findings(f"{TAG}W") == ([], [f"{TAG}W"])


@pytest.mark.parametrize("text, cut, found", [
    ("decided on 9 July 2004, 2004-07-09 and 1 January 1990", (),
     ["free text dated 1990-01-01, 2004-07-09, on or after the cutoff"]),
    ("on 27 June 1986", (), ["free text dated 1986-06-27, on or after the cutoff"]),
    ("on 26 June 1986", (), []),
    ("a time-limit of 2004-07-09", ("a time-limit of 2004-07-09",), []),   # the cut graph's own text
    ("1990-01-01 1991-01-01 1992-01-01 1993-01-01", (), ["free text dated 1990-01-01, 1991-01-01, 1992-01-01, on or "
                                                         "after the cutoff"]),
])
def test_free_text_dated_from_the_cutoff_on_is_a_leak_unless_the_cut_graph_holds_it(text, cut, found):
    assert findings({"note": text}, cut)[0] == found


@pytest.mark.parametrize("row, found", [
    ({"case_id": "070", "documents": 3, "cited_by": 1},
     ["witness 070: {'documents': 3} on the cut graph, not {'documents': 2, 'cited_by': 1} (derived from later "
      "material)"]),
    ({"case_id": "070", "documents": 2, "cited_by": 1}, []),
    ({"case_id": "070"}, []),
    ({"case_id": "071", "documents": 9}, []),
    ({"case_id": "070", "documents": 9, "document_id": "D1"}, []),   # a document's row names its case, no count
])
def test_a_witness_with_counts_other_than_the_cut_graphs_is_a_leak(row, found):
    assert findings({"rows": [row]})[0] == found


def test_the_run_time_guards_first_objection_is_a_leak_too():
    later = {"a": {"date": dt.date(1990, 1, 1)}, "b": [dt.date(1991, 1, 1)], "c": dt.date(1986, 6, 26)}
    assert findings(later)[0] == ["result.a.date is dated 1990-01-01, not before the cutoff 1986-06-27"]


def test_a_report_passes_without_leaks_and_sums_up_what_was_seen():
    report = audit.AuditReport(["1949-12-15", CUTOFF], calls=9, withheld_clean=1, planted=[{"tag": "t"}])
    report.seen = {(CUTOFF, "b"): {"leak": True, "tools": ["x"]}, ("1949-12-15", "a"): {"leak": False, "tools": []}}
    assert report.passed
    report.leaks = [{"n": n} for n in range(7)]
    assert not report.passed
    assert report.summary() == {
        "passed": False, "cutoffs": 2, "calls": 9, "leaks": 7, "withheld_clean": 1, "first_leaks": report.leaks[:5],
        "planted": [{"tag": "t"}],
        "found": [{"cutoff": "1949-12-15", "tag": "a", "leak": False, "tools": []},
                  {"cutoff": CUTOFF, "tag": "b", "leak": True, "tools": ["x"]}]}
    assert audit.AuditReport([]).summary()["found"] == [] and audit.AuditReport([]).leaks == []


TOOL = Tool("get_case", "d", {"type": "object", "properties": {"case_id": {"type": "string"}, "query": {
    "type": "string"}, "limit": {"type": "integer"}}, "required": ["case_id"]})


def test_fixed_probes_put_each_probe_in_every_text_argument():
    assert audit._probe_arguments(TOOL, ["070", "x"]) == [{"case_id": "070", "query": "070"},
                                                          {"case_id": "x", "query": "x"}]
    assert audit._probe_arguments(Tool("get_schema", "d", {"properties": {"n": {"type": "integer"}}}), ["x"]) == [{}]
    assert audit._probe_arguments(Tool("get_schema", "d", {}), ["x"]) == [{}]


def draws(strategy, count: int = 150) -> list:
    out = []

    @settings(max_examples=count, database=None, derandomize=True)
    @given(strategy)
    def collect(value):
        out.append(value)

    collect()
    return out


def test_generated_arguments_always_hold_the_required_ones_and_integers_in_range():
    made = draws(audit._arguments(st, TOOL, st.sampled_from(["p", "q"])))
    assert all(set(m) <= {"case_id", "query", "limit"} and m["case_id"] in ("p", "q") for m in made)
    assert all(1 <= m["limit"] <= 50 and isinstance(m["limit"], int) for m in made if "limit" in m)
    assert all(m.get("query") in (None, "p", "q") for m in made)
    assert any("limit" not in m for m in made) and any("limit" in m for m in made)
    assert {m["limit"] for m in made if "limit" in m} >= {1, 50}
    assert any("query" in m for m in made) and any("query" not in m for m in made)
    assert draws(audit._arguments(st, Tool("get_schema", "d", {}), st.just("p")), 5) == [{}]   # no properties


def test_generated_searches_mix_probes_the_benchmarks_words_and_any_text():
    made = draws(audit._vocabulary(st, ["PROBE1"]), 300)
    words = {"PROBE1", "Court", "sovereignty", "001", "070", "statute:article_36", "A/RES/2625(XXV)"}
    assert all(isinstance(m, str) and len(m) <= 40 or set(m.split()) <= words | set(audit.WORDS.split()) for m in made)
    assert words <= set(made) | {w for m in made for w in m.split()}
    assert any(" " in m and set(m.split()) <= words | set(audit.WORDS.split()) for m in made)
    listed = [m.split() for m in made if m and set(m.split()) <= words | set(audit.WORDS.split())]
    assert max(map(len, listed)) == 4   # up to four words
    assert any(m.strip() and not set(m.split()) <= words | set(audit.WORDS.split()) for m in made)   # any text too


def test_generated_free_text_is_bounded_at_forty_characters():
    """The free-text branch asks for at most forty characters, no more (drawing rarely reaches the bound)."""
    asked = []
    recording = SimpleNamespace(sampled_from=st.sampled_from, lists=st.lists, one_of=st.one_of,
                                text=lambda **bounds: asked.append(bounds) or st.text(**bounds))
    audit._vocabulary(recording, ["PROBE1"])
    assert asked == [{"max_size": 40}]


LABEL = "|".join(NODES)
REL = "|".join(RELS)
SHAPES = {
    "node": rf"MATCH \(a:`({LABEL})`\) RETURN a LIMIT 100",
    "rel": rf"MATCH \(a:`({LABEL})`\)-\[r:({REL})\]->\(b:`({LABEL})`\) RETURN (a|b|r|a, b|count\(\*\)|collect\(b\)) "
           r"LIMIT 100",
    "dated": rf"MATCH \(a:`(Document|Judge|Instrument|Resolution)`\) WHERE a\.(date|term_start) >= date\('{CUTOFF}'\) "
             r"RETURN a",
    "paths": r"MATCH \(a\)-\[\*1\.\.[123]\]-\(b\) RETURN b LIMIT 200",
    "contains": rf"MATCH \(a:`({LABEL})`\) WHERE a\.name CONTAINS '([A-Z0-9]{{1,8}})' OR a\.title CONTAINS '\2' "
                r"RETURN a",
}


def test_generated_cypher_queries_take_five_shapes_over_the_schema():
    made = draws(audit._cypher_queries(st, CUTOFF), 300)
    shapes = {name for query in made for name, shape in SHAPES.items() if re.fullmatch(shape, query)}
    assert shapes == set(SHAPES), [q for q in made if not any(re.fullmatch(s, q) for s in SHAPES.values())][:3]
    assert all(any(re.fullmatch(s, q) for s in SHAPES.values()) for q in made)
    rels = [re.fullmatch(SHAPES["rel"], q) for q in made]
    assert all(m is None or (m[1], m[2], m[3]) == (RELS[m[2]][2], m[2], RELS[m[2]][4]) for m in rels)
    dated = [re.fullmatch(SHAPES["dated"], q) for q in made]
    assert all(m is None or m[2] == audit.DATED[m[1]] for m in dated)
    assert {m[1] for m in dated if m} == set(audit.DATED)
    assert {q[q.index("*"):q.index("]")] for q in made if "*1.." in q} == {"*1..1", "*1..2", "*1..3"}
    contains = [re.fullmatch(SHAPES["contains"], q) for q in made]
    assert min(len(m[2]) for m in contains if m) == 1   # a word of one character too


def test_the_semantic_tool_needs_vectors_only_when_it_is_audited():
    assert audit._semantic(None, None, [TOOL]) is None


def test_the_cut_tables_texts_naming_a_later_date_are_kept(tmp_path):
    (tmp_path / "tables").mkdir()
    pq.write_table(pa.table({"name": ["decided 9 July 2004", "of 1950-01-01", None, "", "also 27 June 1986"],
                             "n": [1, 2, 3, 4, 5]}), tmp_path / "tables" / "cases.parquet")
    pq.write_table(pa.table({"note": pa.array(["until 1990-02-02"], pa.large_string())}),
                   tmp_path / "tables" / "judges.parquet")
    snapshot = SimpleNamespace(folder=tmp_path, info={"counts": {"cases": 5, "judges": 1}})
    assert audit._cut_texts(snapshot, CUTOFF) == {"decided 9 July 2004", "also 27 June 1986", "until 1990-02-02"}
