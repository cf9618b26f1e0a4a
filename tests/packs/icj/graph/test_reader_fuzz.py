"""Fuzzing the graph reader: a damaged table gives a result or one clean error line, never a traceback."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
from hypothesis import given
from hypothesis import strategies as st

from tests.support.fuzz import FEW, NASTY, mutated_jsonl, outcome
from tests.support.icj_graph import GRAPH

TABLES = ["data/documents", "data/cases", "data/resolutions", "data/judges", "data/case_citations"]


def _jsonl_copy(target: Path) -> None:
    for path in sorted(GRAPH.rglob("*.parquet")):
        out = target / path.relative_to(GRAPH).with_suffix(".jsonl")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(json.dumps(r, default=str) + "\n" for r in pq.read_table(path).to_pylist()))


@FEW
@given(st.data(), st.sampled_from(TABLES))
def test_a_damaged_jsonl_table_is_read_or_refused_in_one_line(data, table):
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "graph"
        _jsonl_copy(copy)
        path = copy / f"{table}.jsonl"
        path.write_text(data.draw(mutated_jsonl(path.read_text())))
        outcome(["icj-tools", "describe", "--graph", str(copy)])


@FEW
@given(st.sampled_from(["decision_date", "doc_id", "case_id"]), NASTY)
def test_a_nasty_value_in_a_parquet_column_is_cut_or_refused_in_one_line(column, value):
    import pyarrow as pa

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "graph"
        shutil.copytree(GRAPH, copy)
        rows = pq.read_table(copy / "data/documents.parquet").to_pylist()
        rows[3][column] = value
        try:
            table = pa.Table.from_pylist(rows)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            return  # not writable as one column type: not a file a copy can hold
        pq.write_table(table, copy / "data/documents.parquet")
        outcome(["icj-tools", "snapshot", "--graph", str(copy), "--cutoff", "1986-06-27", "--cache", f"{tmp}/c"])
