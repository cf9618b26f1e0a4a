"""Whole runs against hostile local servers: memory and time stay bounded, secrets stay off disk, bad numbers
never stop a run. Time and peak memory are measured around a child process."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import time
from pathlib import Path

from auditpacks.core import redact
from auditpacks.core.runs.run_files import record_name, results_name
from tests.support.hostile import HostileServer
from tests.support.paths import ROOT
from tests.support.runs import run_args, run_here
from tests.support.tiny_pack import write_pack

#: Runs the command line in a grandchild and prints its exit code and peak RSS (KiB), read with RUSAGE_CHILDREN.
MEASURE = ("import resource, subprocess, sys; "
           "code = subprocess.run([sys.executable, '-m', 'auditpacks.runner.cli.main', *sys.argv[1:]], "
           "stdout=subprocess.DEVNULL).returncode; "
           "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def measured_run(args: list[str], limit_s: float) -> tuple[int, float, float]:
    """(exit code, seconds, peak RSS in MB) of ``auditpacks`` with ``args`` in a child process."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", MEASURE, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=limit_s)
    code, rss_kib = done.stdout.split()
    return int(code), time.monotonic() - started, int(rss_kib) / 1024


def result_errors(out: Path) -> list[str]:
    results = json.loads((out / results_name("m")).read_text(encoding="utf-8"))["results"]
    return [json.dumps(r, ensure_ascii=False) for r in results]


def test_an_endless_reply_ends_the_run_within_its_deadline_under_600_mb_as_an_error_naming_the_cap(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 1)
    with HostileServer("endless") as server:
        code, seconds, rss_mb = measured_run(run_args(pack, tmp_path / "out", server.base_url), limit_s=300)
    assert code == 3  # finished, with an ERROR scenario
    assert seconds < 120 and rss_mb < 600, (seconds, rss_mb)
    [text] = result_errors(tmp_path / "out")
    assert "cap on a response body" in text and "AUDITPACKS_MAX_REPLY_BYTES" in text
    assert server.posts == 1  # a reply over the cap is not asked for again


def test_url_credentials_echoed_by_the_server_reach_no_file_in_results_or_cache(tmp_path):
    password = "Pa55-w0rd%21xyz"  # percent-encoded in the URL: the server sees "Pa55-w0rd!xyz"
    pack = write_pack(tmp_path / "tiny.json", 2)
    out, cache = tmp_path / "out", tmp_path / "cache"
    try:
        with HostileServer("echo") as server:
            url = server.base_url.replace("http://", f"http://auditor:{password}@")
            assert run_here(pack, out, url, "--cache", str(cache)) == 0
            assert run_here(pack, tmp_path / "again", url, "--cache", str(cache)) == 0
    finally:
        redact.forget_all()
    forms = {password, "Pa55-w0rd!xyz", base64.b64encode(b"auditor:Pa55-w0rd!xyz").decode(),
             base64.b64encode(b"auditor:Pa55-w0rd!xyz").decode().rstrip("=")}
    files = [p for folder in (out, tmp_path / "again", cache) for p in folder.rglob("*") if p.is_file()]
    assert any(p.name == record_name("m") for p in files)
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        assert not [form for form in forms if form in text], path.name
    assert "You sent: Basic [api key]" in result_errors(out)[0]  # the echo was stored, blanked


def test_nan_token_counts_finish_the_run_and_a_rerun_resumes(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 3)
    with HostileServer("nan") as server:
        assert run_here(pack, tmp_path / "out", server.base_url) == 0
        first = server.posts
        assert run_here(pack, tmp_path / "out", server.base_url) == 0
    assert first == 3 and server.posts == 3  # the rerun replayed the journal and asked nothing
    record = json.loads((tmp_path / "out" / record_name("m")).read_text(encoding="utf-8"))
    assert "NaN" not in json.dumps(record)


def test_a_dripping_decision_endpoint_is_cut_at_its_total_deadline(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 1)
    with HostileServer("drip", drip_s=0.1) as server:
        url = server.base_url.removesuffix("/v1") + "/v1/systemone"
        args = ["run", "--pack", str(pack), "--target", "m", "--out", str(tmp_path / "out"), "--quiet",
                "--decision-url", url, "--timeout", "2", "--no-probe"]
        code, seconds, _ = measured_run(args, limit_s=120)
    assert code == 3 and seconds < 30, seconds  # 2 s per request; the drip alone would take 100 s
    error = result_errors(tmp_path / "out")[0]
    assert "deadline" in error or "timed out after 2 s" in error  # whichever of the two 2 s budgets fires first


def test_a_redirect_to_another_host_is_refused_in_one_line(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 1)
    with HostileServer("redirect") as server:
        assert run_here(pack, tmp_path / "out", server.base_url) == 3
    assert server.posts == 1  # the prompt went nowhere else
    assert "refused a redirect" in result_errors(tmp_path / "out")[0]
