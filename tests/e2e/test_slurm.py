"""``deploy/slurm-array.sh`` on a real one-node SLURM cluster, against the embedded model.

Two shards run as a job array; shard 1 is cancelled mid-run, which leaves the merge waiting
for ever (``DependencyNeverSatisfied``); the documented recovery (``rerun``) resubmits shard 1
alone, which resumes from its journal, and a new merge runs after it. The merged results
equal those of the unsharded run, scenario by scenario (with a shared response cache, so the
model's answers are the same). Skipped, with the reason printed, where SLURM or munge is not
installed (``scripts/bootstrap.py test`` installs them with apt-get); a daemon that cannot start
fails the test at once with the line of its own log that says why. The cluster's sockets and
state live in a short private folder (:mod:`tests.support.slurm_cluster`), whatever the base temp.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.slurm_cluster import SlurmCluster, unavailable
from tests.support.paths import ROOT

SCRIPT = ROOT / "deploy" / "slurm-array.sh"
CLI = Path(sys.executable).with_name("auditpacks")
MODEL_FLAGS = ("--target", "smollm2", "--provider", "llamacpp", "--max-tokens", "16")
PACK_SIZE = 6


def skip(reason: str) -> None:
    print(f"SLURM test skipped: {reason}")
    pytest.skip(reason)


@pytest.fixture
def cluster(tmp_path):
    reason = unavailable()
    if reason:
        skip(reason)
    slurm = SlurmCluster(logs=tmp_path / "slurm-logs")
    try:
        slurm.start()
    except RuntimeError as exc:
        slurm.stop()
        pytest.fail(f"the SLURM cluster did not start: {exc}", pytrace=False)
    try:
        yield slurm
    finally:
        slurm.stop()


def wait_for(condition, timeout: float, what: str, cluster: SlurmCluster | None = None):
    """``condition()`` once it is true; an AssertionError after ``timeout`` s, or at once when a daemon died or a
    job failed to launch (the daemons' last error lines in either message)."""
    deadline, next_check = time.monotonic() + timeout, 0.0
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        if cluster is not None and time.monotonic() >= next_check:  # every 2 s
            next_check = time.monotonic() + 2
            try:
                cluster.check()
            except RuntimeError as exc:
                raise AssertionError(f"waiting for {what}: {exc}") from None
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}"
                         + (f" ({cluster.log_tail()})" if cluster is not None else ""))


def journal_entries(folder: Path) -> int:
    journals = list(folder.glob("*.journal.jsonl"))
    return sum(1 for line in journals[0].read_bytes().splitlines()[1:] if line.strip()) if journals else 0


def results_by_scenario(path: Path) -> dict[str, dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {result["scenario_name"]: result for result in data["results"]}


def test_a_cancelled_shard_is_rerun_and_the_merge_equals_the_unsharded_run(cluster, embedded_model, tmp_path):
    shared = tmp_path / "shared"
    pack = shared / "packs" / "jacite.json"
    subprocess.run([CLI, "build", "jacite", "--limit", str(PACK_SIZE), "--out", pack], check=True, capture_output=True)
    (shared / "endpoints.txt").write_text(f"{embedded_model.base_url}\n")
    settings = tmp_path / "settings.env"
    settings.write_text(f"SHARDS=2\nSHARED={shared}\nPACK={pack}\nTARGET=smollm2\nPROVIDER=llamacpp\n"
                        f"ENDPOINTS={shared / 'endpoints.txt'}\nCONCURRENCY=1\n"
                        f"RUN_FLAGS=--max-tokens 16 --cache {shared / 'cache'} --wait-ready 60 --log-progress\n"
                        f"AUDITPACKS={CLI}\n")

    def script(step: str) -> str:
        done = subprocess.run(["bash", SCRIPT, step, settings], env=cluster.env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    submitted = script("submit")
    array, first_merge = re.search(r"as job (\d+) and the merge as job (\d+)", submitted).groups()
    runs = shared / "runs"
    wait_for(lambda: journal_entries(runs / "shard-1") >= 1, 300, "shard 1's first finished scenario", cluster)
    cluster.run("scancel", f"{array}_1")

    def queued() -> list[str]:
        return cluster.run("squeue", "--noheader", "--array", "--format=%i %r").splitlines()

    wait_for(lambda: not any(line.startswith(f"{array}_1 ") for line in queued()), 30, "shard 1 to end", cluster)
    assert journal_entries(runs / "shard-1") < PACK_SIZE // 2  # cancelled mid-run
    assert any(line.startswith(first_merge + " Dependency") for line in queued())  # waits on a shard that failed

    watched = subprocess.run([CLI, "status", runs / "shard-1", runs / "shard-2", "--json"], capture_output=True,
                             text=True, check=True)
    shard_1 = json.loads(watched.stdout)["runs"][0]
    assert shard_1["name"] == "shard-1" and shard_1["total"] == PACK_SIZE // 2 and not shard_1["finished"]
    assert 1 <= shard_1["done"] < PACK_SIZE // 2

    rerun = script("rerun")
    assert "resubmitted shards 1 as job" in rerun
    assert first_merge not in cluster.run("squeue", "--noheader", "--format=%i").split()  # the stuck merge is gone
    wait_for(lambda: not queued(), 400, "the rerun and the merge to end", cluster)

    logs = {p.name: p.read_text() for p in (runs / "logs").iterdir()}
    rerun_log = next(text for name, text in logs.items() if name.startswith("shard-1-") and "resumed" in text)
    assert re.search(r"Z \[\d/\d\] resumed from the journal", rerun_log)  # --log-progress, from RUN_FLAGS
    merged = runs / "merged" / "smollm2.json"
    assert merged.is_file(), "\n".join(f"--- {name}\n{text}" for name, text in logs.items())

    whole = tmp_path / "whole"
    subprocess.run([CLI, "run", "--pack", pack, *MODEL_FLAGS, "--base-url", embedded_model.base_url,
                    "--cache", shared / "cache", "--out", whole, "--quiet"], capture_output=True)
    expected, got = results_by_scenario(whole / "smollm2.json"), results_by_scenario(merged)
    assert len(expected) == PACK_SIZE and sorted(got) == sorted(expected)
    for name, result in expected.items():
        assert got[name] == result, name
    merged_run = json.loads((runs / "merged" / "smollm2.run.json").read_text())
    assert merged_run["merged_from"]["shards"] == ["1/2", "2/2"]


def test_a_daemon_that_cannot_start_fails_at_once_with_its_own_log_line(tmp_path):
    reason = unavailable()
    if reason:
        skip(reason)
    with socket.socket() as busy:  # slurmctld's port already taken: it daemonizes, then dies
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]

        class Busy(SlurmCluster):
            def write_config(self) -> None:
                super().write_config()
                self.conf.write_text(re.sub(r"SlurmctldPort=\d+", f"SlurmctldPort={port}", self.conf.read_text()))

        slurm = Busy(logs=tmp_path / "logs")
        started = time.monotonic()
        try:
            with pytest.raises(RuntimeError, match=r"slurmctld is not running: slurmctld\.log: .*Address already in use"):
                slurm.start()
            assert time.monotonic() - started < 30  # slurmctld tries its port for some seconds, then dies
        finally:
            slurm.stop()
    assert (tmp_path / "logs" / "slurmctld.log").is_file() and not slurm.folder.exists()


def test_sockets_and_state_live_in_a_short_private_folder_whatever_the_base_temp(tmp_path):
    slurm = SlurmCluster(logs=tmp_path / ("x" * 40))
    try:
        assert slurm.folder.parent == Path("/tmp") and slurm.folder.name.startswith("ap-")
        slurm.write_config()
        config = slurm.conf.read_text()
        for key in ("AuthInfo=socket=", "SlurmdSpoolDir=", "StateSaveLocation="):
            value = next(line for line in config.splitlines() if line.startswith(key)).split("=")[-1]
            assert value.startswith(str(slurm.folder)) and len(value) + 32 <= 107
    finally:
        slurm.stop()
