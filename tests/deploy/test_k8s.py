"""The Kubernetes files: valid against the API schema, the shard pod's script, the wait that stops on failure."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from tests.support.paths import ROOT

DEPLOY = ROOT / "deploy"
MANIFESTS = sorted(DEPLOY.glob("k8s-*.yaml"))
KUBERNETES = "1.31.0"  # podFailurePolicy's FailIndex and backoffLimitPerIndex are there (beta since 1.29)


def documents(path: Path) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def by_name(kind: str, name: str) -> dict:
    return next(d for path in MANIFESTS for d in documents(path) if d["kind"] == kind and d["metadata"]["name"] == name)


def test_the_schemas_ship_with_the_validator():
    assert KUBERNETES in kubernetes_validate.utils.all_versions()  # offline: read from the installed package


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_every_manifest_is_valid_against_the_api_schema(path):
    docs = documents(path)
    assert docs
    for doc in docs:
        kubernetes_validate.validate(doc, KUBERNETES, strict=True)


def test_an_invalid_manifest_is_caught():
    job = by_name("Job", "auditpacks-shards")
    broken = {**job, "spec": {**job["spec"], "completions": "eight"}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES, strict=True)


def test_the_claim_is_shared_and_every_pod_mounts_it():
    claim = by_name("PersistentVolumeClaim", "auditpacks-shared")
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    for kind, name in (("Job", "auditpacks-shards"), ("Job", "auditpacks-merge"), ("Pod", "auditpacks-stage"),
                       ("StatefulSet", "vllm")):
        doc = by_name(kind, name)
        spec = doc["spec"] if kind == "Pod" else doc["spec"]["template"]["spec"]
        assert spec["volumes"][0]["persistentVolumeClaim"]["claimName"] == "auditpacks-shared"


def test_disruptions_are_ignored_and_bad_input_fails_its_index():
    spec = by_name("Job", "auditpacks-shards")["spec"]
    rules = spec["podFailurePolicy"]["rules"]
    assert rules[0]["action"] == "Ignore" and rules[0]["onPodConditions"][0]["type"] == "DisruptionTarget"
    assert rules[1]["action"] == "FailIndex" and rules[1]["onExitCodes"]["values"] == [2]
    assert spec["completions"] == spec["parallelism"] == settings()["SHARDS"] == 8


def test_the_servers_have_a_headless_service_and_one_name_each():
    service, servers = by_name("Service", "vllm"), by_name("StatefulSet", "vllm")
    assert service["spec"]["clusterIP"] == "None" and servers["spec"]["serviceName"] == "vllm"


def settings() -> dict:
    pairs = [line.split("=", 1) for line in (DEPLOY / "settings.env").read_text().splitlines()
             if line and not line.startswith("#")]
    return {k: int(v) if v.isdigit() else v for k, v in pairs}


def shard_pod(tmp_path: Path, index: int, exit_code: int) -> tuple[subprocess.CompletedProcess, list[str]]:
    """The shard container's script, as Kubernetes runs it, with a stand-in auditpacks."""
    script = by_name("Job", "auditpacks-shards")["spec"]["template"]["spec"]["containers"][0]["args"][0]
    fake = tmp_path / "auditpacks"
    fake.write_text('#!/bin/sh\necho "$@" >> "$LOG"\nexit "$EXIT"\n')
    fake.chmod(0o755)
    env = {"PATH": os.environ["PATH"], "JOB_COMPLETION_INDEX": str(index), "SHARDS": "2", "SHARED": str(tmp_path),
           "PACK": "/p.json", "TARGET": "m", "ENDPOINTS": "/e.txt", "RUN_FLAGS": "--max-tokens 9 --cache *",
           "AUDITPACKS": str(fake), "LOG": str(tmp_path / "log"), "EXIT": str(exit_code)}
    done = subprocess.run(["/bin/sh", "-c", script], env=env, capture_output=True, text=True)
    log = tmp_path / "log"
    return done, log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize(("exit_code", "expected"), [(0, 0), (3, 0), (2, 2), (1, 1)])
def test_the_shard_pod_fails_only_on_bad_input_or_a_crash(tmp_path, exit_code, expected):
    done, calls = shard_pod(tmp_path, 1, exit_code)
    assert done.returncode == expected
    assert calls == [f"run --pack /p.json --shard 2/2 --out {tmp_path}/runs/shard-2 --concurrency 4 --target m "
                     "--endpoints /e.txt --max-tokens 9 --cache *"]


def test_a_finished_shard_pod_exits_at_once(tmp_path):
    folder = tmp_path / "runs" / "shard-1"
    folder.mkdir(parents=True)
    (folder / "m.journal.jsonl").write_text("{}\n")
    (folder / "m.run.json").write_text("{}")
    done, calls = shard_pod(tmp_path, 0, 0)
    assert done.returncode == 0 and calls == [] and "has finished" in done.stdout
    os.utime(folder / "m.run.json", (1, 1))  # the journal grew after the run file: not finished
    assert shard_pod(tmp_path, 0, 0)[1] != []


@pytest.mark.parametrize(("states", "code"), [(["", "", "Complete"], 0), (["", "FailureTarget Failed"], 1),
                                             (["", "", "", "", ""], 2)])
def test_the_wait_stops_on_completion_or_failure(tmp_path, states, code):
    (tmp_path / "states").write_text("\n".join(states) + "\n")
    kubectl = tmp_path / "kubectl"
    kubectl.write_text('#!/bin/sh\ncase "$*" in *failedIndexes*) echo 3; exit;; esac\n'
                       'head -n 1 "$STATES"; sed -i 1d "$STATES"\n')
    kubectl.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}", "STATES": str(tmp_path / "states")}
    done = subprocess.run(["sh", str(DEPLOY / "k8s-wait.sh"), "job/x", "2", "1"], env=env, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == code, done.stderr
    if code == 1:
        assert "failed indexes: 3" in done.stderr
