"""A one-node SLURM cluster on loopback for tests: munged, slurmctld and slurmd in a short private folder.

``SlurmCluster(logs).start()`` generates a munge key and a ``slurm.conf`` (the node is
``localhost`` with this machine's CPUs, process tracking without cgroups, free ports), starts
the three daemons and waits until the node is idle; ``env`` is the environment that points
SLURM's commands at it (``SLURM_CONF``). Sockets, state and spool live in a folder of its own
under ``/tmp`` (``ap-XXXXXXXX``), whatever pytest's base temp: a Unix socket's path holds at
most 107 bytes, and slurmstepd's sockets in the spool would pass that under a long base temp
(jobs then fail to launch and are requeued). A daemon that exits or dies while starting is a
``RuntimeError`` at once, with the last error line of its own log. ``stop()`` shuts the
cluster down, copies the daemons' logs to ``logs`` and removes the private folder. Where it
cannot run at all, :func:`unavailable` says why (for ``pytest.skip``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol")
#: The longest Unix socket path (``sun_path`` less its final NUL).
SOCKET_PATH_MAX = 107
#: slurmstepd's socket in the spool: ``<node>_<job id>.<step id>`` with 32-bit ids at their longest.
STEP_SOCKET = "localhost_4294967294.4294967294"


def unavailable() -> str | None:
    """Why no cluster can start here (None: it can)."""
    missing = [name for name in DAEMONS if shutil.which(name) is None]
    if missing:
        return f"{', '.join(missing)} not installed (Debian: apt-get install slurm-wlm munge)"
    if os.geteuid() != 0:
        return "the SLURM daemons run as root here, and this is not root"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def total_memory_mib() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)


def last_error(log: Path) -> str:
    """The last line of a daemon's log that says error or fatal (else its last line)."""
    try:
        lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return f"{log.name}: no log written"
    marked = [line for line in lines if any(word in line.lower() for word in ("error", "fatal", "failed"))]
    return f"{log.name}: {(marked or lines or ['(empty)'])[-1][:300]}"


class SlurmCluster:
    """munged + slurmctld + slurmd for one node, all state under a short private folder; logs kept in ``logs``."""

    def __init__(self, logs: Path | None = None) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="ap-", dir="/tmp"))
        self.logs = Path(logs) if logs is not None else None
        self.conf = self.folder / "slurm.conf"
        self.socket = self.folder / "munge" / "munge.socket"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}
        self.started: list[str] = []
        longest = max(len(str(self.socket)), len(str(self.folder / "spool" / STEP_SOCKET)))
        if longest > SOCKET_PATH_MAX:  # only when /tmp itself is a long path
            raise RuntimeError(f"socket paths under {self.folder} would be {longest} bytes, over the "
                               f"{SOCKET_PATH_MAX}-byte limit of a Unix socket")

    #: each daemon's log and pid file, relative to the folder
    FILES = {"munged": ("log/munged.log", "munge/munged.pid"), "slurmctld": ("log/slurmctld.log", "slurmctld.pid"),
             "slurmd": ("log/slurmd.log", "slurmd.pid")}

    def write_config(self) -> None:
        f = self.folder
        for sub in ("munge", "state", "spool", "log"):
            (f / sub).mkdir(parents=True, exist_ok=True)
        (f / "munge").chmod(0o755)
        key = f / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        cpus = max(2, os.cpu_count() or 1)  # the job script asks for 2 CPUs a task
        self.conf.write_text(f"""ClusterName=auditpackstest
SlurmctldHost=localhost
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={self.socket}
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
StateSaveLocation={f / 'state'}
SlurmdSpoolDir={f / 'spool'}
SlurmctldPidFile={f / 'slurmctld.pid'}
SlurmdPidFile={f / 'slurmd.pid'}
SlurmctldLogFile={f / 'log' / 'slurmctld.log'}
SlurmdLogFile={f / 'log' / 'slurmd.log'}
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SchedulerParameters=sched_interval=1
MinJobAge=600
NodeName=localhost CPUs={cpus} RealMemory={max(4096, total_memory_mib() // 2)} State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
""")

    def start(self, timeout: float = 30.0) -> "SlurmCluster":
        """Start the daemons and wait for the node to take jobs; raise RuntimeError saying what failed."""
        self.write_config()
        munge = self.folder / "munge"
        self._daemon("munged", "munged", f"--socket={self.socket}", f"--key-file={munge / 'munge.key'}",
                     f"--log-file={self.folder / 'log' / 'munged.log'}", f"--pid-file={munge / 'munged.pid'}",
                     f"--seed-file={munge / 'munged.seed'}", "--force")
        self._daemon("slurmctld", "slurmctld", "-c", "-f", str(self.conf))
        self._daemon("slurmd", "slurmd", "-f", str(self.conf))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check_alive()
            state = subprocess.run(["sinfo", "--noheader", "--format=%T"], env=self.env, capture_output=True,
                                   text=True).stdout.strip()
            if state in ("idle", "mixed", "allocated"):
                return self
            time.sleep(0.5)
        raise RuntimeError(f"the node did not become idle within {timeout:g} s (sinfo: {state!r}); "
                           + "; ".join(last_error(self.folder / log) for log, _ in self.FILES.values()))

    def _daemon(self, name: str, *command: str, wait: float = 5.0) -> None:
        """Start one daemon and wait for its pid file; a daemon that exits first raises with its log's line."""
        done = subprocess.run(list(command), env=self.env, capture_output=True, text=True)
        log, pid_file = (self.folder / part for part in self.FILES[name])
        if done.returncode != 0:
            raise RuntimeError(f"{name} did not start (exit {done.returncode}): "
                               f"{(done.stderr or done.stdout).strip()[:300] or last_error(log)}")
        self.started.append(name)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and self._pid(pid_file) is None:
            time.sleep(0.1)
        self.check_alive()

    @staticmethod
    def _pid(pid_file: Path) -> int | None:
        try:
            return int(pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def check_alive(self) -> None:
        """Raise RuntimeError, with the daemon's own last error line, for a started daemon that is not running."""
        for name in self.started:
            if not self._running(name):
                raise RuntimeError(f"{name} is not running: {last_error(self.folder / self.FILES[name][0])}")

    def _running(self, name: str) -> bool:
        pid = self._pid(self.folder / self.FILES[name][1])
        return pid is not None and _alive(pid)

    def check(self) -> None:
        """:meth:`check_alive`, and a RuntimeError with slurmd's last error line for a job whose launch failed
        (SLURM requeues and holds it, so a test waiting on it would otherwise wait until its timeout)."""
        self.check_alive()
        queue = self.run("squeue", "--noheader", "--array", "--format=%i %r", check=False)
        failed = [line.split()[0] for line in queue.splitlines() if "launch failed" in line.lower()]
        if failed:
            raise RuntimeError(f"job {failed[0]} failed to launch: "
                               f"{last_error(self.folder / self.FILES['slurmd'][0])}")

    def log_tail(self) -> str:
        """The last error line of each daemon's log (for a test's timeout message)."""
        return "; ".join(last_error(self.folder / log) for log, _ in self.FILES.values())

    def run(self, *command: str, check: bool = True) -> str:
        """A SLURM command against this cluster; its stdout."""
        done = subprocess.run(list(command), env=self.env, capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(command)} failed: {done.stderr.strip()}")
        return done.stdout

    def stop(self) -> None:
        """Cancel every job, shut down slurmctld and slurmd (signalled when slurmctld is not there to), stop munged,
        keep the logs, remove the folder."""
        if "slurmctld" in self.started and self._running("slurmctld"):  # its commands hang on a dead slurmctld
            self.run("scancel", "--full", "--user=root", check=False)
            self.run("scontrol", "shutdown", check=False)
        else:
            for name in ("slurmd", "slurmctld"):
                pid = self._pid(self.folder / self.FILES[name][1])
                if name in self.started and pid is not None and _alive(pid):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGTERM)
        for pid_file in ("slurmd.pid", "slurmctld.pid"):
            self._wait_gone(self.folder / pid_file)
        for pid in self.step_daemons():  # a job's slurmstepd can outlive slurmd's shutdown
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if "munged" in self.started:
            subprocess.run(["munged", "--stop", f"--socket={self.socket}"], capture_output=True)
        self.started.clear()
        if self.logs is not None and (self.folder / "log").is_dir():
            shutil.copytree(self.folder / "log", self.logs, dirs_exist_ok=True)
        shutil.rmtree(self.folder, ignore_errors=True)

    def step_daemons(self) -> list[int]:
        """The pids of this cluster's slurmstepd processes (their environment names our slurm.conf)."""
        mine = f"SLURM_CONF={self.conf}".encode()
        found = []
        for proc in Path("/proc").glob("[0-9]*"):
            with contextlib.suppress(OSError):
                if (proc / "comm").read_text().strip() == "slurmstepd" and \
                        mine in (proc / "environ").read_bytes().split(b"\0"):
                    found.append(int(proc.name))
        return found

    @staticmethod
    def _wait_gone(pid_file: Path, timeout: float = 15.0) -> None:
        try:
            pid = int(pid_file.read_text().strip())
        except (OSError, ValueError):
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _alive(pid):
                return
            time.sleep(0.2)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie, exited but not reaped, as where no init reaps daemons, does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return not any(line.startswith("State:") and "zombie" in line for line in status.splitlines())
