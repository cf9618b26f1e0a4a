"""The cut graph as an embedded Cypher database (``ladybug``, the maintained Kùzu fork), loaded by bulk COPY.

Node tables: ``Case`` (a reserved word: write it in backticks), ``Document``, ``Instrument``,
``Provision``, ``Resolution``, ``Judge``. Relationship tables: ``OF_CASE`` (Document→Case),
``CITES_CASE`` (Document→Case), ``CITES_PROVISION`` (Document→Provision), ``CITES_RESOLUTION``
(Document→Resolution), ``RESOLUTION_CITES`` (Resolution→Resolution), ``IN_INSTRUMENT``
(Provision→Instrument), ``SAT_ON`` (Judge→Document). Passages are searched lexically, not stored here.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from auditpacks.packs.icj.graph.reader import Graph

#: node table → (role, primary key)
NODES = {"Case": ("cases", "case_id"), "Document": ("documents", "document_id"),
         "Instrument": ("instruments", "instrument_id"), "Provision": ("provisions", "provision_key"),
         "Resolution": ("resolutions", "symbol"), "Judge": ("judges", "judge_id")}
#: rel table → (role or node role, from column, from node, to column, to node)
RELS = {"OF_CASE": ("documents", "document_id", "Document", "case_id", "Case"),
        "CITES_CASE": ("document_case_links", "document_id", "Document", "cited_case_id", "Case"),
        "CITES_PROVISION": ("document_provision_links", "document_id", "Document", "provision_key", "Provision"),
        "CITES_RESOLUTION": ("document_resolution_links", "document_id", "Document", "symbol", "Resolution"),
        "RESOLUTION_CITES": ("resolution_links", "source_symbol", "Resolution", "target_symbol", "Resolution"),
        "IN_INSTRUMENT": ("provisions", "provision_key", "Provision", "instrument_id", "Instrument"),
        "SAT_ON": ("judge_links", "judge_id", "Judge", "document_id", "Document")}
DATES = {"date", "term_start", "term_end", "first_date", "last_date"}


def quoted(name: str) -> str:
    return f"`{name}`"


def _node_table(table: pa.Table) -> pa.Table:
    columns = {}
    for name in table.column_names:
        column = table[name]
        if name in DATES:
            column = pa.array([date.fromisoformat(v) if v else None for v in column.to_pylist()], pa.date32())
        columns[name] = column
    return pa.table(columns)


def one_per_key(table: pa.Table, key: str) -> pa.Table:
    """The first row of each key (the cut already holds one; a node table needs it whatever it is given)."""
    seen, keep = set(), []
    for value in table[key].to_pylist():
        keep.append(value is not None and value not in seen)
        seen.add(value)
    return table.filter(pa.array(keep, pa.bool_()))


def _ddl_type(arrow_type) -> str:
    return "DATE" if pa.types.is_date(arrow_type) else "INT64" if pa.types.is_integer(arrow_type) else "STRING"


#: The address space a database being built may reserve (ladybug's default, 8 TiB, runs out after a dozen).
BUILD_BYTES = 2**34


def build_database(graph: Graph, path: Path, staging: Path) -> None:
    """Create the database at ``path`` from the cut graph (Parquet files staged in ``staging``)."""
    import ladybug

    staging.mkdir(parents=True, exist_ok=True)
    database = ladybug.Database(str(path), max_db_size=BUILD_BYTES)
    connection = ladybug.Connection(database)
    keys: dict[str, set] = {}
    try:
        for node, (role, key) in NODES.items():
            table = _node_table(one_per_key(graph.tables[role], key))
            table = table.select([key] + [c for c in table.column_names if c != key])
            keys[node] = set(table[key].to_pylist())
            fields = ", ".join(f"{c} {_ddl_type(table.schema.field(c).type)}" for c in table.column_names)
            connection.execute(f"CREATE NODE TABLE {quoted(node)}({fields}, PRIMARY KEY({key}))")
            _copy(connection, node, table, staging)
        for rel, (role, src, src_node, dst, dst_node) in RELS.items():
            connection.execute(f"CREATE REL TABLE {rel}(FROM {quoted(src_node)} TO {quoted(dst_node)})")
            rows = [(a, b) for a, b in zip(graph.tables[role][src].to_pylist(), graph.tables[role][dst].to_pylist())
                    if a in keys[src_node] and b in keys[dst_node]]
            _copy(connection, rel, pa.table({"from": [a for a, _ in rows], "to": [b for _, b in rows]},
                                            schema=pa.schema([("from", pa.string()), ("to", pa.string())])), staging)
    finally:
        connection.close()
        database.close()


def _copy(connection, name: str, table: pa.Table, staging: Path) -> None:
    if not table.num_rows:
        return
    file = staging / f"{name}.parquet"
    pq.write_table(table, file)
    connection.execute(f"COPY {quoted(name)} FROM '{file.as_posix()}'")
