"""A one-node SLURM cluster on loopback for tests: munged, slurmctld and slurmd in a temporary folder.

``SlurmCluster(folder).start()`` generates a munge key and a ``slurm.conf`` (the node is
``localhost`` with this machine's CPUs, process tracking without cgroups, state and spool in
``folder``, free ports), starts the three daemons and waits until the node is idle; ``env``
is the environment that points SLURM's commands at it (``SLURM_CONF``). ``stop()`` shuts the
cluster down. Where it cannot run, :func:`unavailable` says why (for ``pytest.skip``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol")


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


class SlurmCluster:
    """munged + slurmctld + slurmd for one node, all state under ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.conf = self.folder / "slurm.conf"
        self.socket = self.folder / "munge" / "munge.socket"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}
        self.started: list[str] = []

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
            state = subprocess.run(["sinfo", "--noheader", "--format=%T"], env=self.env, capture_output=True,
                                   text=True).stdout.strip()
            if state in ("idle", "mixed", "allocated"):
                return self
            time.sleep(0.5)
        raise RuntimeError(f"the node did not become idle within {timeout:g} s (sinfo: {state!r}); "
                           f"see {self.folder / 'log'}")

    def _daemon(self, name: str, *command: str) -> None:
        done = subprocess.run(list(command), env=self.env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{name} did not start: {(done.stderr or done.stdout).strip()[:300]}")
        self.started.append(name)

    def run(self, *command: str, check: bool = True) -> str:
        """A SLURM command against this cluster; its stdout."""
        done = subprocess.run(list(command), env=self.env, capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(command)} failed: {done.stderr.strip()}")
        return done.stdout

    def stop(self) -> None:
        """Cancel every job, shut down slurmctld and slurmd, stop munged."""
        if "slurmctld" in self.started:
            self.run("scancel", "--full", "--user=root", check=False)
            self.run("scontrol", "shutdown", check=False)
        for pid_file in ("slurmd.pid", "slurmctld.pid"):
            self._wait_gone(self.folder / pid_file)
        for pid in self.step_daemons():  # a job's slurmstepd can outlive slurmd's shutdown
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if "munged" in self.started:
            subprocess.run(["munged", "--stop", f"--socket={self.socket}"], capture_output=True)
        self.started.clear()

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
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
