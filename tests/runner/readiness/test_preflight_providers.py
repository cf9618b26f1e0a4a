"""The check before the run for each kind of endpoint: a refused key, a dead server or a missing SDK is one line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler

import pytest


from auditpacks.runner.models.errors import RunError
from auditpacks.runner.readiness.model_setup import build_roles, role_policy
from auditpacks.runner.models.providers.anyllm_api import check_anyllm
from auditpacks.runner.models.providers.checks import check_openai, missing_extra
from auditpacks.runner.readiness.preflight import check_decision, check_roles
from auditpacks.runner.serving.loopback import LoopbackServer
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.paths import ROOT
from tests.support.tiny_pack import write_pack
from tests.support.run_config import run_config

SECRET = "sk-test-9f8e7d6c5b4a"


def closed_port_url(path: str = "/v1") -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}{path}"


class KeyedModels(BaseHTTPRequestHandler):
    """``GET /v1/models``: 200 with the right bearer key, 401 otherwise."""

    def do_GET(self):  # noqa: N802
        ok = self.headers.get("Authorization") == "Bearer right-key"
        refused = {"error": {"message": f"bad key {self.headers.get('Authorization')}"}}
        body = json.dumps({"data": []} if ok else refused)
        self.send_response(200 if ok else 401)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


def test_an_openai_compatible_server_that_refuses_the_key_is_one_line_without_the_key():
    with LoopbackServer(KeyedModels) as server:
        check_openai(server.url + "/v1", "right-key")
        with pytest.raises(RunError, match=r"^http://127.0.0.1:\d+/v1 refuses the key \(HTTP 401\): "
                                           r"check \$OPENAI_API_KEY$") as caught:
            check_openai(server.url + "/v1", SECRET, hint="$OPENAI_API_KEY")
    assert SECRET not in str(caught.value)


def test_nothing_listening_fails_at_once():
    started = time.monotonic()
    with pytest.raises(RunError, match="judge model m: cannot reach http://127.0.0.1"):
        check_openai(closed_port_url(), "k", who="judge model m")
    assert time.monotonic() - started < 5


def test_anthropic_is_checked_with_one_authenticated_model_list_request():
    with FakeAnthropic(key="sk-ant-right") as server:
        check_anyllm("anthropic", base_url=server.url, api_key="sk-ant-right")
        assert [path.split("?")[0] for path in server.paths] == ["/v1/models"]
        with pytest.raises(RunError, match=r"provider 'anthropic' does not answer the check before the run: "
                                           r"HTTP 401") as caught:
            check_anyllm("anthropic", base_url=server.url, api_key="sk-ant-wrong-0123456789")
    assert "sk-ant-wrong" not in str(caught.value)
    assert server.requests == []   # no message was sent


def test_anthropic_with_nothing_listening_is_a_connection_failure():
    with pytest.raises(RunError, match="provider 'anthropic' does not answer the check before the run: connection"):
        check_anyllm("anthropic", base_url=closed_port_url(""), api_key="sk-ant-x")


def test_a_dead_decision_endpoint_is_one_line_and_any_answer_passes():
    with pytest.raises(RunError, match="^decision endpoint: cannot reach http://127.0.0.1:\\d+/v1/systemone: "):
        check_decision(closed_port_url("/v1/systemone"))
    with LoopbackServer(KeyedModels) as server:   # GET on a System One URL: 401 here, still a server
        check_decision(server.url + "/v1/systemone")


def test_judge_and_auditor_models_are_checked_with_their_own_keys():
    with LoopbackServer(KeyedModels) as server:
        def roles(key: str):
            config = run_config(judge_model="j", judge_base_url=server.url + "/v1",
                                judge_api_key=key, max_turns=2, auditor_model="a",
                                auditor_base_url=closed_port_url())
            return build_roles(config.roles, policy=role_policy(config), model_judge=True, embedded_url=None,
                               embedded_identity=None, cache=None)

        with pytest.raises(RunError, match=r"^judge model j: http://127.0.0.1:\d+/v1 refuses the key \(HTTP 401\)"):
            check_roles(roles(SECRET))
        with pytest.raises(RunError, match=r"^auditor model a: cannot reach http://127.0.0.1"):
            check_roles(roles("right-key"))   # the judge passes; the auditor's server is not there


def test_a_missing_sdk_names_the_package_to_install():
    assert missing_extra("gemini") == "provider 'gemini' needs its SDK: pip install 'any-llm-sdk[gemini]'"


def run_cli(*argv: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run([sys.executable, "-m", "auditpacks.runner.cli.main", *argv], env=environment,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kind", ["hosted", "decision"])
def test_a_run_against_a_dead_endpoint_stops_before_any_scenario_in_one_line(tmp_path, kind):
    pack = write_pack(tmp_path / "tiny.json", 20)
    if kind == "hosted":  # a hosted provider with a key and no network: its URL answers nothing
        args = ["--target", "gpt-4o-mini", "--provider", "openai"]
        env = {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": closed_port_url()}
    else:
        args = ["--decision-url", closed_port_url("/v1/systemone"), "--target", "clef"]
        env = {}
    started = time.monotonic()
    done = run_cli("run", "--pack", str(pack), "--out", str(tmp_path / "out"), "--quiet", *args, **env)
    assert time.monotonic() - started < 60
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("auditpacks:")]
    assert len(lines) == 1 and lines[0].startswith("auditpacks: error:"), done.stderr
    assert "cannot reach http://127.0.0.1" in lines[0]
    assert SECRET not in done.stderr + done.stdout
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.jsonl"))
