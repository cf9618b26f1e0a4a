"""SimpleAudit Studio (the ``simpleaudit-studio`` package) in visualize-only mode, from its own environment, on
127.0.0.1 only, as a context manager.

    with Studio(results_dir, home=tmp) as studio:    # studio.url, studio.username, studio.password, studio.log
        ...
    studio = Studio(results_dir, home=tmp).launch()  # or: launch, do something else meanwhile, then
    studio.wait()                                     # ... and studio.stop() at the end, also on failure

``python3 scripts/bootstrap.py test`` installs :data:`VERSION` into ``.venv-studio`` beside ``.venv`` (Studio pins
its own Django, requests and simpleaudit, and ships top-level packages named ``judges``, ``deploy`` and
``config``, so it never shares the project's environment) and names its interpreter in
``AUDITPACKS_STUDIO_PYTHON``.

Studio runs as its users run it, ``simpleaudit-studio --visualize-only --results_dir DIR`` (its migrations, its
login, its results browser), with three changes: its web server binds 127.0.0.1 (the CLI hard-codes
``runserver 0.0.0.0:PORT``; the launcher below rewrites that one argument), no browser is opened
(``--no-browser``), and no process holding the port is stopped (``--no-force-kill``). Its environment is built
from nothing, so no ``SENTRY_DSN``, Langfuse, Hatchet or OpenTelemetry setting reaches it; chat is off; its
database and home folder live in a temporary folder; the login is a fresh random password. In this mode it
starts no sidecar (no Hatchet, no worker, no chat): one process, started in a session of its own and stopped
with its whole process group (and told to die with the test process, Linux ``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import ctypes
import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.support.paths import ROOT

VERSION = "0.5.20"
PYTHON_ENV = "AUDITPACKS_STUDIO_PYTHON"
START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 10.0

#: Runs Studio's own CLI with the web server's address moved from 0.0.0.0 to 127.0.0.1.
LAUNCHER = """
import sys
from django.core import management
run = management.call_command
def call_command(name, *args, **kwargs):
    if name == "runserver":
        args = tuple(a.replace("0.0.0.0:", "127.0.0.1:", 1) if isinstance(a, str) else a for a in args)
    return run(name, *args, **kwargs)
management.call_command = call_command
from simpleaudit_studio.cli import main
sys.argv = ["simpleaudit-studio", *sys.argv[1:]]
main()
"""


def studio_python() -> Path:
    """The interpreter of Studio's environment: ``AUDITPACKS_STUDIO_PYTHON``, else ``.venv-studio`` beside the
    repository's ``.venv``."""
    given = os.environ.get(PYTHON_ENV)
    return Path(given) if given else ROOT / ".venv-studio" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def studio_unavailable() -> str | None:
    """Why Studio cannot run here, or None."""
    python = studio_python()
    if not python.exists():
        return f"no SimpleAudit Studio environment at {python} (python3 scripts/bootstrap.py test installs it)"
    check = "from importlib.metadata import version; print(version('simpleaudit-studio'))"
    done = subprocess.run([str(python), "-c", check], check=False, capture_output=True, text=True, timeout=60)
    found = done.stdout.strip()
    if done.returncode != 0 or found != VERSION:
        return f"{python} holds simpleaudit-studio {found or 'nothing'}, not {VERSION}"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:  # runs in the child before exec
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def group_alive(pgid: int) -> bool:
    """Whether any process of the process group ``pgid`` is still there."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Studio:
    """Studio browsing ``results_dir``; ``home`` is its home folder and holds its log. ``beside``: another Studio
    whose database (and so login) this one shares, with its migrations done (started after that one answers)."""

    def __init__(self, results_dir: Path, home: Path, beside: Studio | None = None) -> None:
        self.results_dir, self.home = Path(results_dir), Path(home)
        self.data = beside.data if beside else self.home / "data"
        self.username = beside.username if beside else "auditor"
        self.password = beside.password if beside else secrets.token_urlsafe(16)
        self.port = 0
        self.log = self.home / "studio.log"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def environment(self) -> dict[str, str]:
        keep = {name: os.environ[name] for name in ("PATH", "LANG", "LC_ALL", "TMPDIR") if name in os.environ}
        return {**keep, "HOME": str(self.home), "SIMPLEAUDIT_DATA_DIR": str(self.data),
                "BOOTSTRAP_USERNAME": self.username, "BOOTSTRAP_PASSWORD": self.password,
                "SIMPLEAUDIT_CHAT": "off", "OTEL_SDK_DISABLED": "true", "PYTHONUNBUFFERED": "1"}

    def start(self) -> Studio:
        """Launch Studio and wait until it answers."""
        return self.launch().wait()

    def launch(self) -> Studio:
        """Start Studio's process (its results folder must exist: Studio reads no folder that is not there yet);
        :meth:`wait` until it answers."""
        self.home.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        command = [str(studio_python()), "-c", LAUNCHER, "--visualize-only", "--results_dir", str(self.results_dir),
                   "--port", str(self.port), "--no-browser", "--no-force-kill"]
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(command, cwd=self.home, env=self.environment(), stdout=out,
                                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            start_new_session=True, preexec_fn=_die_with_parent)
        return self

    def wait(self) -> Studio:
        """Wait until Studio's web server answers; a Studio that exits or stays silent is stopped and named with
        the end of its log."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as reply:
                    if reply.status == 200:
                        return self.on_loopback_only()
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = self.log.read_text(encoding="utf-8", errors="replace")[-800:]
                raise RuntimeError(f"SimpleAudit Studio did not start on {self.url}: {tail}")
            time.sleep(0.5)

    def on_loopback_only(self) -> Studio:
        """Studio as it said it listens: on 127.0.0.1 (Django's own line), else stopped, with what it said."""
        said = self.log.read_text(encoding="utf-8", errors="replace")
        if f"Starting development server at {self.url}/" not in said:
            self.stop()
            raise RuntimeError(f"SimpleAudit Studio does not say it listens on {self.url} only: {said[-800:]}")
        return self

    def stop(self) -> None:
        """Stop Studio's whole process group: SIGTERM, then SIGKILL after :data:`STOP_TIMEOUT_S`."""
        if self.process is None:
            return
        pgid = self.process.pid  # the session's leader: its process group has its id
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                continue
            deadline = time.monotonic() + STOP_TIMEOUT_S
            while group_alive(pgid) and time.monotonic() < deadline:
                time.sleep(0.1)
            if not group_alive(pgid):
                return

    def __enter__(self) -> Studio:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
