"""The whole probe: findings, warnings, its bounds, and the short probe before a decision run."""

from __future__ import annotations

import json

from auditpacks.runner.cli.main import main
from auditpacks.runner.systemone.decision_probe import longest_state, probe
from tests.support.faulty_systemone import FaultySystemOne
from tests.support.iustitia import build_pack


def test_a_truncating_server_gets_a_state_window_warning():
    with FaultySystemOne(truncate_tokens=300) as server:
        result = probe(server.url, max_bytes=128 * 1024)
    checks = result["checks"]
    assert [checks[k]["status"] for k in ("schema", "option_order", "determinism", "option_limit",
                                          "request_size_limit")] == ["ok"] * 5
    assert checks["state_window"]["status"] == "failed"
    assert len(result["warnings"]) == 1 and result["warnings"][0].startswith("state window: failed")
    assert result["requests"] == server.requests <= 80


def test_the_budget_bounds_the_probe_and_later_checks_are_not_run():
    with FaultySystemOne() as server:
        result = probe(server.url, max_requests=5)
    assert server.requests == result["requests"] == 5
    assert result["checks"]["determinism"]["status"] == "not run"
    assert result["checks"]["state_window"]["status"] == "not run" and not result["warnings"]


def test_longest_state_counts_document_characters():
    assert longest_state([{"documents": ["abc", {"text": "de"}]}, {"documents": ["x" * 4]}, {}]) == 5


def run(pack, out, url, *extra):
    return main(["run", "--pack", str(pack), "--decision-url", url, "--target", "m", "--out", str(out),
                 "--quiet", *extra])


def test_a_decision_run_probes_first_and_records_what_it_found(tmp_path, capsys):
    build_pack(tmp_path)
    with FaultySystemOne(order_sensitive=True) as server:
        run(tmp_path / "pack.json", tmp_path / "out", server.url)
    record = json.loads((tmp_path / "out" / "m.run.json").read_text())
    probe_record = record["decision_probe"]
    assert probe_record["mode"] == "short" and probe_record["requests"] <= 20
    assert probe_record["checks"]["option_order"]["status"] == "failed"
    assert any(n.startswith("decision probe: option order: failed") for n in record["summary"]["notes"])
    assert "warning: decision probe: option order" in capsys.readouterr().err


def test_no_probe_sends_no_probe_request(tmp_path):
    scenarios = build_pack(tmp_path)
    with FaultySystemOne() as server:
        run(tmp_path / "pack.json", tmp_path / "out", server.url, "--no-probe", "--batch-questions", "1")
    record = json.loads((tmp_path / "out" / "m.run.json").read_text())
    assert record["decision_probe"] is None and server.requests == len(scenarios) - 3  # 3 over 26 options
