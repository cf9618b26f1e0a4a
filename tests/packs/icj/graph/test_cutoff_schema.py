"""A cut graph is the same graph, smaller: every table the copy has, with its columns and their types, however
early the cutoff (nothing left, only undated rows left), and every link's ends among the rows kept."""

from __future__ import annotations

import pyarrow as pa
import pytest

from auditpacks.packs.icj.graph.cutoff import cut
from auditpacks.packs.icj.graph.reader import read_graph
from tests.support.icj_graph import GRAPH, NICARAGUA_MERITS

DERIVED = {"cases": {"first_date": pa.string(), "last_date": pa.string()},
           "provisions": {"cited_by": pa.int64()}, "resolutions": {"cited_by_resolutions": pa.int64()}}


@pytest.fixture(scope="module")
def graph():
    return read_graph(GRAPH)


@pytest.mark.parametrize("cutoff", ["1900-01-01", "1950-06-01", NICARAGUA_MERITS, "2100-01-01"])
def test_every_table_keeps_its_columns_and_types(graph, cutoff):
    kept = cut(graph, cutoff).tables
    assert sorted(kept) == sorted(graph.tables)
    for role, table in graph.tables.items():
        assert isinstance(kept[role], pa.Table), role
        expected = {name: table.schema.field(name).type for name in table.column_names}
        expected.update(DERIVED.get(role, {}))
        got = {name: kept[role].schema.field(name).type for name in kept[role].column_names}
        assert {k: v for k, v in got.items() if k in expected} == expected, role
        assert kept[role].num_rows <= table.num_rows


@pytest.mark.parametrize("cutoff", ["1970-01-01", NICARAGUA_MERITS])
def test_links_point_at_rows_kept(graph, cutoff):
    t = cut(graph, cutoff).tables
    judges = set(t["judges"]["judge_id"].to_pylist())
    documents = set(t["documents"]["document_id"].to_pylist())
    symbols = set(t["resolutions"]["symbol"].to_pylist())
    assert set(t["judge_links"]["judge_id"].to_pylist()) <= judges
    assert set(t["judge_links"]["document_id"].to_pylist()) <= documents
    assert set(t["resolution_passages"]["symbol"].to_pylist()) <= symbols
    assert cut(graph, "1970-01-01").tables["judge_links"].num_rows < graph.tables["judge_links"].num_rows
    # resolutions adopted by 1970: 1947, 1960 and 1967 (one passage each in the fixture)
    early = cut(graph, "1970-01-01").tables["resolution_passages"]
    assert sorted(early["symbol"].to_pylist()) == sorted(
        s for s, d in zip(graph.tables["resolutions"]["symbol"].to_pylist(),
                          graph.tables["resolutions"]["date"].to_pylist()) if d and d < "1970-01-01")
