"""A judge that sends replies of 30 MB: judge-check stops each at the judge's reply cap, in one line naming the server
and the cap (after its progress lines), its peak memory under 600 MB (measured around a child process)."""

from __future__ import annotations

import subprocess
import sys

from auditpacks.runner.cli.main import main
from tests.e2e.test_hostile_servers import MEASURE
from tests.support.hostile import HostileServer
from tests.support.paths import FIXTURES, ROOT


def test_judge_check_against_30_mb_judge_replies_stays_under_600_mb_and_says_why_in_one_line(tmp_path):
    pack = tmp_path / "iustitia.json"
    assert main(["build", "iustitia", "--source", str(FIXTURES / "iustitia"), "--out", str(pack)]) == 0
    with HostileServer("big", big_bytes=30_000_000) as server:
        args = ["judge-check", "--pack", str(pack), "--judge-model", "j", "--judge-base-url", server.base_url,
                "--out", str(tmp_path / "q"), "--limit", "3"]
        done = subprocess.run([sys.executable, "-c", MEASURE, *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
    code, rss_kib = done.stdout.split()
    assert int(code) == 2 and int(rss_kib) / 1024 < 600, (code, int(rss_kib) / 1024)
    *progress, line = done.stderr.strip().splitlines()   # progress lines while the judge worked, then one error
    assert all(p.startswith("[") for p in progress), progress
    assert line.startswith("auditpacks: error: judge j: every judge call failed")
    assert f"reply from 127.0.0.1:{server.port} over the 2 MiB cap on a response body" in line
