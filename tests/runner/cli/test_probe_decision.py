"""``auditpacks probe-decision URL``: lines, JSON, exit codes."""

from __future__ import annotations

import json

from auditpacks.runner.cli.main import main
from tests.support.faulty_systemone import FaultySystemOne
from tests.support.sparrow import free_port


def test_flags_an_order_sensitive_server_and_exits_1(capsys, tmp_path):
    with FaultySystemOne(order_sensitive=True, max_options=26) as server:
        code = main(["probe-decision", server.url, "--max-bytes", "65536", "--window-chars", "4096",
                     "--out", str(tmp_path / "probe.json")])
    out = capsys.readouterr().out
    assert code == 1 and "option order         failed" in out and "accepts up to 26 options; 27 refused" in out
    assert json.loads((tmp_path / "probe.json").read_text())["checks"]["option_limit"]["accepted"] == 26


def test_a_clean_server_exits_0_with_json(capsys):
    with FaultySystemOne() as server:
        code = main(["probe-decision", server.url, "--json", "--max-bytes", "65536", "--window-chars", "4096"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["warnings"] == [] and result["checks"]["state_window"]["status"] == "ok"


def test_nothing_listening_is_one_line_and_exit_2(capsys):
    code = main(["probe-decision", f"http://127.0.0.1:{free_port()}/v1/systemone", "--timeout", "2"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "cannot reach" in err[0]


def test_progress_lines_count_the_checks_on_stderr(capsys):
    with FaultySystemOne() as server:
        assert main(["probe-decision", server.url, "--max-bytes", "65536", "--window-chars", "4096"]) == 0
    err = capsys.readouterr().err
    assert [line.split("]")[0] for line in err.splitlines() if line.startswith("[")] == [
        f"[{n}/6" for n in range(1, 7)], err    # schema, option order, determinism, two limits, state window
