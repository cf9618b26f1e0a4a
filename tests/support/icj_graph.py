"""The fixture ICJ Citation Graph (tests/fixtures/icj/graph) and snapshots of it for tests."""

from __future__ import annotations

from tests.support.paths import FIXTURES

GRAPH = FIXTURES / "icj" / "graph"
TARGETS = FIXTURES / "icj" / "data" / "test.jsonl"

#: the 070 merits judgment (the fixture's target for case 070) and the decision dates of the five targets
NICARAGUA_MERITS = "ICJ_070_MilitaryParamilitaryActivitiesNicaragua_NIC_USA_1986-06-27_JUD_01_ME_00_EN"
CUTOFFS = ("1948-05-28", "1949-12-15", "1986-06-27", "2004-07-09", "2025-07-23")


def snapshots(tmp_path_factory, *cutoffs: str):
    """Snapshots of the fixture graph, one per cutoff, in a fresh cache folder."""
    from auditpacks.packs.icj.graph.reader import read_graph
    from auditpacks.packs.icj.graph.snapshot import snapshot_for

    graph = read_graph(GRAPH)
    cache = tmp_path_factory.mktemp("snapshots")
    return {c: snapshot_for(graph, c, cache) for c in cutoffs}


def with_word_vectors(root, encode):
    """A copy of the fixture graph in ``root`` whose passage vectors are ``encode(text)`` (nearest passage known)."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    shutil.copytree(GRAPH, root)
    for path in sorted((root / "data" / "passages").glob("*.parquet")):
        table = pq.read_table(path)
        vectors = pa.array([encode(t) for t in table["text"].to_pylist()], pa.list_(pa.float32()))
        pq.write_table(table.set_column(table.column_names.index("embedding"), "embedding", vectors), path)
    return root
