"""``auditpacks probe-decision URL``: lines, JSON, exit codes; against test servers, then in process over a fake probe."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from auditpacks.runner.cli import probe_decision
from auditpacks.runner.cli.main import main
from auditpacks.runner.cli.probe_decision import add_arguments
from auditpacks.runner.models.errors import RunError
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


# In process: the command's arguments and what it makes of the findings, with the probe itself replaced by a fake.

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="auditpacks probe-decision")
    add_arguments(parser)
    return parser


def _findings(warnings: list[str], schema: dict | None = None) -> dict:
    return {"url": "http://sd/v1", "requests": 7, "warnings": warnings, "checks": {
        "schema": schema or {"status": "ok", "detail": "well-formed", "reachable": True},
        "option_order": {"status": "failed", "detail": "answers change with order", "notes": ["seen twice"]},
        "state_window": {"status": "ok"}}}


def _run(monkeypatch, argv: list[str], result: dict, checks: tuple = ()) -> tuple[int, dict]:
    """``main`` over a fake probe that reports ``checks`` (name, finding) and returns ``result``; its keywords."""
    seen: dict = {}

    def fake_probe(url, **kwargs):
        seen.update(kwargs, url=url)
        for name, finding in checks:
            kwargs["on_check"](name, finding)
        return result

    monkeypatch.setattr(probe_decision, "probe", fake_probe)
    return probe_decision.main(_parser().parse_args(argv)), seen


def test_the_defaults_are_the_full_probe_and_no_key(monkeypatch):
    monkeypatch.delenv("SYSTEMONE_API_KEY", raising=False)
    code, seen = _run(monkeypatch, ["http://sd/v1"], _findings([]))
    assert code == 0
    del seen["on_check"]
    assert seen == {"url": "http://sd/v1", "model": "probe", "headers": None, "timeout": 30.0, "max_requests": 80,
                    "seconds": 300.0, "max_options": 256, "max_bytes": 4 * 1024 * 1024, "window_chars": 256 * 1024}


def test_every_flag_reaches_the_probe(monkeypatch):
    monkeypatch.setenv("SYSTEMONE_API_KEY", "from-env")
    _, seen = _run(monkeypatch, ["http://sd/v1", "--model", "m", "--api-key", "k", "--timeout", "2.5",
                                 "--max-requests", "4", "--seconds", "9", "--max-options", "3",
                                 "--max-bytes", "1024", "--window-chars", "1024"], _findings([]))
    assert (seen["model"], seen["headers"], seen["timeout"], seen["max_requests"], seen["seconds"],
            seen["max_options"], seen["max_bytes"], seen["window_chars"]) == (
        "m", {"Authorization": "Bearer k"}, 2.5, 4, 9.0, 3, 1024, 1024)


def test_the_key_comes_from_the_environment_when_not_given(monkeypatch):
    monkeypatch.setenv("SYSTEMONE_API_KEY", "from-env")
    assert _run(monkeypatch, ["http://sd/v1"], _findings([]))[1]["headers"] == {"Authorization": "Bearer from-env"}


@pytest.mark.parametrize("flag, refused", [("--timeout", "0"), ("--seconds", "0"), ("--max-requests", "3"),
                                           ("--max-options", "2"), ("--max-bytes", "1023"),
                                           ("--window-chars", "1023"), ("--model", " "), ("--api-key", " ")])
def test_values_below_their_floor_are_refused(flag, refused, capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args(["http://sd/v1", flag, refused])
    assert f"argument {flag}" in capsys.readouterr().err


def test_a_blank_url_is_refused(capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args([" "])
    assert "argument url: must not be empty" in capsys.readouterr().err


def test_fractions_of_a_second_are_allowed_and_out_is_a_path():
    args = _parser().parse_args(["http://sd/v1", "--timeout", "0.5", "--seconds", "0.5", "--out", "p.json"])
    assert (args.timeout, args.seconds, args.out) == (0.5, 0.5, Path("p.json"))


@pytest.mark.parametrize("shown", [
    "url the System One endpoint, e.g. http://127.0.0.1:8000/v1/systemone",
    "--model MODEL model name sent (default probe)",
    "--api-key API_KEY sent as a bearer token (default: $SYSTEMONE_API_KEY, if set)",
    "--timeout TIMEOUT seconds per request (default 30)",
    "--max-requests MAX_REQUESTS requests the probes may send in all (default 80)",
    "--seconds SECONDS time budget in seconds; later probes are 'not run' (default 300)",
    "--max-options MAX_OPTIONS most options per question tried (default 256)",
    "--max-bytes MAX_BYTES largest request body tried, in bytes (default 4194304)",
    "--window-chars WINDOW_CHARS longest state tried for the canary, in characters (default 262144)",
    "--json print the findings as JSON",
    "--out OUT also write the findings as JSON to this file",
])
def test_the_help_names_each_argument_and_its_default(shown):
    assert shown in " ".join(_parser().format_help().split())


def test_the_findings_print_as_aligned_lines_with_notes_and_a_warning_exits_1(monkeypatch, capsys):
    code, _ = _run(monkeypatch, ["http://sd/v1"], _findings(["option order failed"]))
    assert code == 1
    assert capsys.readouterr().out.splitlines() == [
        "http://sd/v1: 7 requests",
        "schema" + " " * 15 + "ok" + " " * 11 + "well-formed",
        "option order" + " " * 9 + "failed" + " " * 7 + "answers change with order",
        " " * 21 + "note" + " " * 9 + "seen twice",
        "state window" + " " * 9 + "ok" + " " * 11]


def test_json_prints_the_findings_indented_and_out_writes_them(monkeypatch, capsys, tmp_path):
    result = _findings([], {"status": "ok", "detail": "réponse"})
    code, _ = _run(monkeypatch, ["http://sd/v1", "--json", "--out", str(tmp_path / "p.json")], result)
    out = capsys.readouterr().out
    assert code == 0 and out == json.dumps(result, indent=2, ensure_ascii=False) + "\n" and "réponse" in out
    assert json.loads((tmp_path / "p.json").read_text(encoding="utf-8")) == result


def test_an_unreachable_endpoint_is_a_run_error_and_writes_nothing(monkeypatch, tmp_path):
    result = _findings([], {"status": "failed", "detail": "connection refused", "reachable": False})
    with pytest.raises(RunError, match=r"^probe-decision: cannot reach http://sd/v1: connection refused$"):
        _run(monkeypatch, ["http://sd/v1", "--out", str(tmp_path / "p.json")], result)
    assert not (tmp_path / "p.json").exists()


def test_the_progress_counts_probes_under_the_command_s_name(monkeypatch):
    printers = []

    class Recorded(probe_decision.ProgressPrinter):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            printers.append(self)

    monkeypatch.setattr(probe_decision, "ProgressPrinter", Recorded)
    _run(monkeypatch, ["http://sd/v1"], _findings([]))
    [printer] = printers
    assert (printer.total, printer.label, printer.pace()) == (6, "probe-decision", "first probe running")


def test_each_check_is_a_progress_line_and_a_failed_one_counts_as_an_error(monkeypatch, capsys):
    checks = (("schema", {"status": "ok"}), ("option_order", {"status": "failed"}), ("determinism", {}))
    _run(monkeypatch, ["http://sd/v1"], _findings([]), checks)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert [line.split(" · ")[1] for line in lines] == ["0 errors", "1 errors", "1 errors"]
    assert [line.split("]")[0] for line in lines] == ["[1/6", "[2/6", "[3/6"]
