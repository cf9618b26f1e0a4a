"""The cut graph as an embedded Cypher database, built from a small hand-made graph: one node per key, dates as
dates, integers as integers, and only the links whose two ends are nodes."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import textwrap

import pyarrow as pa
import pytest

from auditpacks.packs.icj.graph.graphdb import (NODES, RELS, _ddl_type, _node_table, build_database,
                                                one_per_key, quoted)
from auditpacks.packs.icj.graph.reader import Graph


def strings(**columns):
    return pa.table({name: pa.array(values, pa.string()) for name, values in columns.items()})


GRAPH = Graph(tables={
    "cases": pa.table({"case_id": ["070", "001", "070", None], "name": ["Nicaragua", "Corfu", "again", "no id"],
                       "number": pa.array([70, 1, 70, 0], pa.int64())}),
    "documents": strings(document_id=["D70", "D1", "D2"], case_id=["070", "001", "999"],
                         date=["1986-06-27", "1949-04-09", ""]),
    "instruments": strings(instrument_id=["charter"], name=["UN Charter"], date=["1945-06-26"]),
    "provisions": strings(provision_key=["charter:article_51", "statute:article_36"],
                          instrument_id=["charter", "statute"]),
    "resolutions": strings(symbol=["A/RES/2625(XXV)", "A/RES/1(I)"], date=["1970-10-24", "1946-01-24"]),
    "judges": strings(judge_id=["J1"], name=["Judge One"], term_start=["1982-02-06"]),
    "document_case_links": strings(document_id=["D70", "D70", "D1"], cited_case_id=["001", "404", "070"]),
    "document_provision_links": strings(document_id=["D70", "D70"],
                                        provision_key=["charter:article_51", "statute:article_36"]),
    "document_resolution_links": strings(document_id=["D70", "D9"], symbol=["A/RES/2625(XXV)", "A/RES/2625(XXV)"]),
    "resolution_links": strings(source_symbol=[], target_symbol=[]),
    "judge_links": strings(judge_id=["J1", "J2"], document_id=["D70", "D70"]),
})


@pytest.fixture(scope="module")
def connection(tmp_path_factory):
    import ladybug

    folder = tmp_path_factory.mktemp("db")
    build_database(GRAPH, folder / "graph.lbug", folder / "staging")
    database = ladybug.Database(str(folder / "graph.lbug"), read_only=True)
    connection = ladybug.Connection(database)
    yield SimpleConnection(connection, folder / "staging")
    connection.close()
    database.close()


class SimpleConnection:
    def __init__(self, connection, staging):
        self.connection, self.staging = connection, staging

    def rows(self, query):
        return self.connection.execute(query).get_all()


@pytest.mark.parametrize("query, rows", [
    ("MATCH (c:`Case`) RETURN c.case_id, c.name, c.number ORDER BY c.case_id", [["001", "Corfu", 1],
                                                                               ["070", "Nicaragua", 70]]),
    ("MATCH (d:Document) RETURN d.document_id, d.date ORDER BY d.document_id",
     [["D1", datetime.date(1949, 4, 9)], ["D2", None], ["D70", datetime.date(1986, 6, 27)]]),
    ("MATCH (i:Instrument) RETURN i.instrument_id, i.date", [["charter", datetime.date(1945, 6, 26)]]),
    ("MATCH (j:Judge) RETURN j.judge_id, j.term_start", [["J1", datetime.date(1982, 2, 6)]]),
    ("MATCH (r:Resolution) RETURN r.symbol ORDER BY r.symbol", [["A/RES/1(I)"], ["A/RES/2625(XXV)"]]),
    # relationships: only those whose two ends are nodes
    ("MATCH (d:Document)-[:OF_CASE]->(c:`Case`) RETURN d.document_id, c.case_id ORDER BY d.document_id",
     [["D1", "001"], ["D70", "070"]]),
    ("MATCH (d)-[:CITES_CASE]->(c) RETURN d.document_id, c.case_id ORDER BY d.document_id",
     [["D1", "070"], ["D70", "001"]]),
    ("MATCH (d)-[:CITES_PROVISION]->(p) RETURN p.provision_key ORDER BY p.provision_key",
     [["charter:article_51"], ["statute:article_36"]]),
    ("MATCH (d)-[:CITES_RESOLUTION]->(r) RETURN d.document_id, r.symbol", [["D70", "A/RES/2625(XXV)"]]),
    ("MATCH (a)-[:RESOLUTION_CITES]->(b) RETURN count(*)", [[0]]),
    ("MATCH (p)-[:IN_INSTRUMENT]->(i) RETURN p.provision_key, i.instrument_id",  # no instrument "statute"
     [["charter:article_51", "charter"]]),
    ("MATCH (j)-[:SAT_ON]->(d) RETURN j.judge_id, d.document_id", [["J1", "D70"]]),
])
def test_the_database_holds_the_graph(connection, query, rows):
    assert connection.rows(query) == rows


def test_the_tables_and_their_property_types(connection):
    nodes = {name: [r[1:3] for r in connection.rows(f"CALL table_info('{name}') RETURN *")] for name in NODES}
    assert nodes["Case"] == [["case_id", "STRING"], ["name", "STRING"], ["number", "INT64"]]
    assert nodes["Document"] == [["document_id", "STRING"], ["case_id", "STRING"], ["date", "DATE"]]
    assert nodes["Provision"] == [["provision_key", "STRING"], ["instrument_id", "STRING"]]
    assert nodes["Judge"] == [["judge_id", "STRING"], ["name", "STRING"], ["term_start", "DATE"]]
    tables = {r[1] for r in connection.rows("CALL show_tables() RETURN *")}
    assert tables == set(NODES) | set(RELS)


def test_each_table_with_rows_is_staged_as_parquet(connection):
    staged = sorted(p.name for p in connection.staging.iterdir())
    assert "Case.parquet" in staged and "OF_CASE.parquet" in staged
    assert "RESOLUTION_CITES.parquet" not in staged  # an empty table is not copied


def test_staging_may_be_deep_and_may_exist_already(tmp_path):
    build_database(GRAPH, tmp_path / "a.lbug", tmp_path / "new" / "deeper" / "staging")
    (tmp_path / "there").mkdir()
    build_database(GRAPH, tmp_path / "b.lbug", tmp_path / "there")
    assert (tmp_path / "there" / "Case.parquet").is_file()


BUILD_IN_A_SMALL_ADDRESS_SPACE = textwrap.dedent("""
    import resource, sys
    from pathlib import Path
    import pyarrow as pa
    resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
    from auditpacks.packs.icj.graph.graphdb import NODES, RELS, build_database
    from auditpacks.packs.icj.graph.reader import Graph
    columns = {"cases": ["case_id", "name"], "documents": ["document_id", "case_id", "date"],
               "instruments": ["instrument_id"], "provisions": ["provision_key", "instrument_id"],
               "resolutions": ["symbol"], "judges": ["judge_id"], "document_case_links": ["document_id", "cited_case_id"],
               "document_provision_links": ["document_id", "provision_key"],
               "document_resolution_links": ["document_id", "symbol"],
               "resolution_links": ["source_symbol", "target_symbol"], "judge_links": ["judge_id", "document_id"]}
    tables = {role: pa.table({c: pa.array(["1986-06-27" if c == "date" else "x"], pa.string()) for c in names})
              for role, names in columns.items()}
    build_database(Graph(tables=tables), Path(sys.argv[2]) / "g.lbug", Path(sys.argv[2]) / "staging")
    print("built")
""")


def test_a_build_reserves_a_bounded_address_space(tmp_path, monkeypatch):
    """Not ladybug's 8 TiB: a build fits in the memory the machine has plus the database's 16 GiB."""
    import ladybug

    opened, database = [], ladybug.Database
    monkeypatch.setattr(ladybug, "Database", lambda *a, **k: opened.append(k) or database(*a, **k))
    build_database(GRAPH, tmp_path / "here.lbug", tmp_path / "staging")
    assert opened == [{"max_db_size": 16 * 2**30}]
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    limit = memory + 24 * 2**30
    done = subprocess.run([sys.executable, "-c", BUILD_IN_A_SMALL_ADDRESS_SPACE, str(limit), str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "built", done.stderr[-500:]


def test_names_are_quoted_in_backticks():
    assert quoted("Case") == "`Case`"


def test_one_row_per_key_the_first_and_none_without_a_key():
    table = pa.table({"k": ["a", None, "b", "a", None], "v": [1, 2, 3, 4, 5]})
    assert one_per_key(table, "k").to_pylist() == [{"k": "a", "v": 1}, {"k": "b", "v": 3}]
    assert one_per_key(table.slice(0, 0), "k").num_rows == 0


def test_date_columns_become_dates_and_the_rest_is_kept():
    table = _node_table(pa.table({"date": ["1986-06-27", None, ""], "first_date": ["1949-04-09", None, None],
                                  "last_date": [None, None, "2004-07-09"], "term_end": ["1991-02-05", None, None],
                                  "title": ["a", "b", "c"]}))
    assert table.schema.field("date").type == pa.date32() and table.schema.field("title").type == pa.string()
    assert table.column("date").to_pylist() == [datetime.date(1986, 6, 27), None, None]
    assert table.column("first_date").to_pylist()[0] == datetime.date(1949, 4, 9)
    assert table.column("last_date").to_pylist()[2] == datetime.date(2004, 7, 9)
    assert table.column("term_end").to_pylist()[0] == datetime.date(1991, 2, 5)
    assert table.column_names == ["date", "first_date", "last_date", "term_end", "title"]
    undated = _node_table(pa.table({"date": pa.array([None, ""], pa.string())}))
    assert undated.schema.field("date").type == pa.date32() and undated.column("date").to_pylist() == [None, None]


@pytest.mark.parametrize("arrow_type, ddl", [(pa.date32(), "DATE"), (pa.date64(), "DATE"), (pa.int64(), "INT64"),
                                             (pa.int32(), "INT64"), (pa.string(), "STRING"), (pa.float64(), "STRING"),
                                             (pa.timestamp("s"), "STRING")])
def test_property_types(arrow_type, ddl):
    assert _ddl_type(arrow_type) == ddl
