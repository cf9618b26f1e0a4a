"""The ICJ graph's tool commands (``auditpacks tools icj describe|snapshot|leak-audit``) on the fixture graph, and
their exit codes."""

from __future__ import annotations

import json

from auditpacks.packs.icj.graph import cutoff as cutoffs
from auditpacks.runner.cli.main import main
from tests.support.icj_graph import GRAPH, TARGETS

PROTOCOL = str(TARGETS.parent.parent / "protocol")


def test_describe_prints_the_found_tables_and_counts(capsys):
    assert main(["tools", "icj", "describe", "--graph", str(GRAPH)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tables"]["judge_links"] == "bench" and out["rows"]["passages"] == 63
    assert out["manifest_counts"]["passages"] == 63
    passages = next(t for t in out["read_report"]["tables"] if t["table"] == "data/passages")
    assert (passages["rows"], passages["declared"], passages["declared_by"]) == (63, 63, "manifest.json")
    assert out["read_report"]["warnings"] == [] and out["read_report"]["skipped"] == []


def test_describe_and_snapshot_refuse_a_partial_read_unless_allowed(tmp_path, capsys):
    import shutil

    import pyarrow.parquet as pq

    copy = tmp_path / "copy"
    shutil.copytree(GRAPH, copy)
    path = copy / "data" / "resolutions.parquet"
    pq.write_table(pq.read_table(path).slice(2), path)
    assert main(["tools", "icj", "describe", "--graph", str(copy)]) == 2
    assert "data/resolutions.parquet: read 9 rows, manifest.json declares 11" in capsys.readouterr().err
    assert main(["tools", "icj", "describe", "--graph", str(copy), "--allow-partial"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["read_report"]["warnings"][0].startswith("data/resolutions.parquet: read 9 rows")
    assert main(["tools", "icj", "snapshot", "--graph", str(copy), "--cutoff", "1990-01-01", "--cache",
                 str(tmp_path / "cache"), "--allow-partial"]) == 0
    info = json.loads(next((tmp_path / "cache").glob("1990-01-01_*/snapshot.json")).read_text())
    assert info["read_report"]["warnings"][0].startswith("data/resolutions.parquet: read 9 rows")


def test_snapshot_builds_one_folder_per_target_date(tmp_path, capsys):
    assert main(["tools", "icj", "snapshot", "--graph", str(GRAPH), "--targets", str(TARGETS),
                 "--cache", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line[:10] for line in lines] == ["1948-05-28", "1949-12-15", "1986-06-27", "2004-07-09", "2025-07-23"]
    assert "1986-06-27: " in lines[2] and "(13 documents, 43 passages)" in lines[2]  # 36 + 7 resolution passages


def test_leak_audit_passes_and_fails_with_exit_codes(tmp_path, capsys, monkeypatch):
    args = ["tools", "icj", "leak-audit", "--graph", str(GRAPH), "--cutoff", "1986-06-27", "--protocol", PROTOCOL,
            "--examples", "4", "--json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["passed"] is True
    monkeypatch.setattr(cutoffs, "cut", lambda graph, cutoff: graph)
    assert main(args) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] is False and report["leaks"] > 0
    assert any(f["leak"] for f in report["found"]) and len(report["planted"]) == 4  # X0, X1, W, E of one cutoff


def test_leak_audit_over_every_target_lists_planted_and_seen_and_refuses_a_twice_dated_copy(tmp_path, capsys):
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    from tests.support.icj_graph import NICARAGUA_MERITS

    args = ["tools", "icj", "leak-audit", "--targets", str(TARGETS), "--examples", "2"]
    assert main([*args, "--graph", str(GRAPH)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("leak audit passed (5 cutoffs")
    assert "planted 20 dated marker sets" in out and " 0 of material dated on or after it)" in out
    copy = tmp_path / "copy"
    shutil.copytree(GRAPH, copy)
    path = copy / "data" / "documents.parquet"
    table = pq.read_table(path)
    rows = table.to_pylist()
    twin = {**next(r for r in rows if r["doc_id"] == NICARAGUA_MERITS), "decision_date": "1950-01-01"}
    pq.write_table(pa.Table.from_pylist([twin] + rows, schema=table.schema), path)  # the earlier row first
    assert main([*args, "--graph", str(copy)]) == 2
    err = capsys.readouterr().err
    assert f"{NICARAGUA_MERITS}: 1950-01-01, 1986-06-27" in err and "conflicting dates" in err


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["tools", "icj", "snapshot", "--graph", str(GRAPH), "--cutoff", "1986-13-01"]) == 2
    assert capsys.readouterr().err.strip() == "auditpacks: error: cutoff '1986-13-01' is not a date (YYYY-MM-DD)"
    assert main(["tools", "icj", "describe", "--graph", str(tmp_path)]) == 2
    assert "no table found for cases, documents" in capsys.readouterr().err
    assert main(["tools", "icj", "snapshot", "--graph", str(GRAPH)]) == 2
    assert "no cutoff" in capsys.readouterr().err


def test_other_commands_never_import_the_tool_libraries():
    import subprocess
    import sys

    code = ("import sys; from auditpacks.runner.cli.main import build_parser; "
            "[build_parser(c) for c in ('build', 'score', 'export', 'run', 'report')]; "
            "print(sorted(m for m in ('ladybug', 'bm25s', 'jsonschema', 'hypothesis') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_a_malformed_tool_alias_is_one_line(capsys):
    assert main(["tools", "icj", "leak-audit", "--graph", str(GRAPH), "--cutoff", "1986-06-27",
                 "--tool-alias", "lookup=teleport"]) == 2
    assert "--tool-alias 'lookup=teleport': expected NAME=TOOL" in capsys.readouterr().err
