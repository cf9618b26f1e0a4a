"""sparrow-decider, a third-party System One server from PyPI, run as a subprocess on 127.0.0.1.

``SparrowDecider()`` starts ``sparrow-decider serve --host 127.0.0.1 --port N`` on a free port,
waits until ``GET /`` answers, and stops it on exit. The child is also told to die with this
process (Linux ``PR_SET_PDEATHSIG``), so an interrupted test run leaves no server behind.
What it does (read from its behaviour): ``POST /v1/systemone`` answers every question of a
request (``choice``, ``noul``, ``score``) with no limit on questions or options (at least 2);
a bad question is HTTP 422 ``{"error": ...}``; ``usage`` is always ``{"input_tokens": 0,
"output_tokens": 0}`` (not counted) and each response carries ``latency_ms``; ``confidence``
is ``(n·p − 1)/(n − 1)`` for the chosen option's probability ``p`` among ``n`` options, not
``p`` itself; the default model reads only about the first 512 word pieces of the state.
"""

from __future__ import annotations

import ctypes
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request

START_TIMEOUT_S = 30.0


def _die_with_parent() -> None:  # runs in the child before exec
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def available() -> str | None:
    """Why sparrow-decider cannot run here (None when it can)."""
    try:
        import sparrow_decider  # noqa: F401
    except ImportError:
        return "sparrow-decider is not installed (pip install -e '.[dev]')"
    return None


class SparrowDecider:
    """The server as a context manager; ``.url`` is the System One endpoint, ``.root`` the server root."""

    def __init__(self, model: str | None = None) -> None:
        self.model = model
        self.port = 0
        self._process: subprocess.Popen | None = None

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.root}/v1/systemone"

    def start(self) -> "SparrowDecider":
        self.port = free_port()
        command = [sys.executable, "-m", "sparrow_decider.cli", *(["--model", self.model] if self.model else []),
                   "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        self._process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                         preexec_fn=_die_with_parent)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"sparrow-decider exited: {self._process.stderr.read().decode()[-300:]}")
            try:
                with urllib.request.urlopen(self.root + "/", timeout=1) as reply:
                    self.info = json.load(reply)
                return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"sparrow-decider did not answer within {START_TIMEOUT_S:g} s")

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.stderr.close()

    def __enter__(self) -> "SparrowDecider":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
