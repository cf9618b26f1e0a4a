"""``deploy/slurm-array.sh`` with stand-ins for SLURM's commands: settings, refusals, exit codes, rerun."""

from __future__ import annotations

import os
import subprocess

import pytest
from tests.support.paths import ROOT

SCRIPT = ROOT / "deploy" / "slurm-array.sh"

#: sbatch stand-in: logs its arguments, prints job ids 101, 102, ...
SBATCH = """#!/bin/bash
n=$(( $(grep -c "^sbatch" "$LOG" 2>/dev/null) + 101 ))
echo "sbatch $*" >> "$LOG"; echo "$n"
"""


@pytest.fixture
def cluster(tmp_path):
    """A PATH with sbatch, squeue and scancel stand-ins, a settings file, and the calls they saw."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    (bin_dir / "sbatch").write_text(SBATCH)
    (bin_dir / "squeue").write_text('#!/bin/bash\necho "squeue $*" >> "$LOG"; cat "$QUEUE" 2>/dev/null || true\n')
    (bin_dir / "scancel").write_text('#!/bin/bash\necho "scancel $*" >> "$LOG"\n')
    (bin_dir / "auditpacks").write_text('#!/bin/bash\necho "auditpacks $*" >> "$LOG"; exit "${EXIT:-0}"\n')
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    shared = tmp_path / "shared"
    settings = tmp_path / "settings.env"
    settings.write_text(f"# a comment\nSHARDS=3\nSHARED={shared}\nPACK={shared}/p.json\nTARGET=m:1\n"
                        f"ENDPOINTS=\nRUN_FLAGS=--max-tokens 64 --cache {shared}/cache\nAUDITPACKS=auditpacks\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env.update(PATH=f"{bin_dir}:{env['PATH']}", LOG=str(log), QUEUE=str(tmp_path / "queue"))

    def script(*args: str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(SCRIPT), *args], env={**env, **extra}, capture_output=True, text=True)

    def calls() -> list[str]:
        return log.read_text().splitlines() if log.exists() else []

    return script, calls, settings, shared


@pytest.mark.parametrize("step", ["submit", "rerun"])
def test_submitting_inside_a_job_is_refused(cluster, step):
    script, calls, settings, _ = cluster
    done = script(step, str(settings), SLURM_JOB_ID="77")
    assert done.returncode == 2 and calls() == []
    assert done.stderr.count("\n") == 1 and "not with sbatch or inside job 77" in done.stderr


def test_sbatch_of_the_script_itself_queues_no_array(cluster):
    script, calls, _, _ = cluster
    assert "#SBATCH --array" not in SCRIPT.read_text()  # `sbatch deploy/slurm-array.sh` is one job
    done = script(SLURM_JOB_ID="5")  # what that one job runs: no step given
    assert done.returncode == 2 and calls() == [] and "usage" in done.stderr


def test_submit_copies_the_settings_and_makes_the_merge_wait_for_the_array(cluster):
    script, calls, settings, shared = cluster
    done = script("submit", str(settings))
    assert done.returncode == 0, done.stderr
    assert (shared / "runs" / "settings.env").read_text() == settings.read_text()
    array, merge = calls()
    assert "--array=1-3" in array and array.endswith(f"run {shared}/runs/settings.env")
    assert "--dependency=afterok:101 " in merge and merge.endswith(f"merge {shared}/runs/settings.env")
    settings.write_text(settings.read_text().replace("SHARDS=3", "SHARDS=4"))
    again = script("submit", str(settings))  # the run folder already belongs to other settings
    assert again.returncode == 2 and "a run with other settings" in again.stderr and len(calls()) == 2


def test_a_setting_that_does_not_exist_is_refused_with_its_line(cluster):
    script, calls, settings, _ = cluster
    settings.write_text(settings.read_text() + "SHARD=4\n")
    done = script("submit", str(settings))
    assert done.returncode == 2 and calls() == []
    assert f"{settings}: line 9: not one of the settings" in done.stderr


@pytest.mark.parametrize(("exit_code", "expected"), [(0, 0), (3, 0), (2, 2), (1, 1)])
def test_a_shard_fails_only_on_bad_input_or_a_crash(cluster, exit_code, expected):
    script, calls, settings, shared = cluster
    done = script("run", str(settings), SLURM_ARRAY_TASK_ID="2", EXIT=str(exit_code))
    assert done.returncode == expected
    assert calls() == [f"auditpacks run --pack {shared}/p.json --shard 2/3 --out {shared}/runs/shard-2 "
                       f"--concurrency 2 --target m:1 --max-tokens 64 --cache {shared}/cache"]
    assert ("the merge reports them" in done.stdout) == (exit_code == 3)


def test_rerun_resubmits_only_unfinished_shards_and_the_merge_waits_for_them(cluster, tmp_path):
    script, calls, settings, shared = cluster
    assert script("submit", str(settings)).returncode == 0
    runs = shared / "runs"
    for i, files in ((1, ["m.journal.jsonl", "m.run.json"]), (2, ["m.journal.jsonl"]), (3, ["m.journal.jsonl"])):
        (runs / f"shard-{i}").mkdir()
        for name in files:
            (runs / f"shard-{i}" / name).write_text("{}")
    (tmp_path / "queue").write_text("2 101_2\n")  # shard 2 is still running; 1 finished; 3 was cancelled
    settings.write_text(settings.read_text().replace("SHARDS=3", "SHARDS=9"))  # edits after submit do not count
    done = script("rerun", str(settings))
    assert done.returncode == 0, done.stderr
    rerun = calls()[2:]
    assert rerun[0] == "scancel --name=auditpacks-merge --state=PENDING"
    array = next(c for c in rerun if c.startswith("sbatch") and "--array" in c)
    assert "--array=3 " in array
    merge = next(c for c in rerun if c.startswith("sbatch") and "merge" in c)
    assert "--dependency=afterok:101_2:103 " in merge


def test_servers_start_first_and_the_shards_wait_for_them(cluster):
    script, calls, settings, shared = cluster
    settings.write_text(settings.read_text().replace("ENDPOINTS=\n", f"ENDPOINTS={shared}/endpoints.txt\n")
                        + "SERVERS=2\nMODEL=/models/qwen3-8b\nSERVER_SBATCH=--gres=gpu:1\n")
    done = script("submit", str(settings))
    assert done.returncode == 0, done.stderr
    servers, shards, merge = calls()
    assert "--array=1-2 " in servers and "--gres=gpu:1" in servers and servers.endswith("serve " + str(
        shared / "runs" / "settings.env"))
    assert "--dependency=after:101 " in shards and "--dependency=afterok:102 " in merge


def test_a_server_writes_its_own_url_while_it_runs(cluster, tmp_path):
    script, calls, settings, shared = cluster
    settings.write_text(settings.read_text().replace("ENDPOINTS=\n", f"ENDPOINTS={shared}/endpoints.txt\n")
                        + "SERVERS=2\nSERVER=vllm\nMODEL=/models/qwen3-8b\nSERVER_PORT=8123\n")
    (shared / "runs" / "endpoints.d").mkdir(parents=True)
    (shared / "runs" / "endpoints.d" / "server-1").write_text("http://gpu1:8123/v1\n")  # another one, running
    vllm = tmp_path / "bin" / "vllm"
    vllm.write_text('#!/bin/bash\necho "vllm $*" >> "$LOG"; cat "$ENDPOINTS_FILE" >> "$LOG"\n')
    vllm.chmod(0o755)
    done = script("serve", str(settings), SLURM_ARRAY_TASK_ID="2", ENDPOINTS_FILE=f"{shared}/endpoints.txt")
    assert done.returncode == 0, done.stderr
    host = subprocess.run(["hostname", "-f"], capture_output=True, text=True).stdout.strip()
    assert calls() == ["vllm serve /models/qwen3-8b --served-model-name m:1 --host 0.0.0.0 --port 8123",
                       "http://gpu1:8123/v1", f"http://{host}:8123/v1"]
    assert (shared / "endpoints.txt").read_text() == "http://gpu1:8123/v1\n"  # gone again once it stopped
