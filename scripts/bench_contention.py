"""The embedded model on a busy machine: the jacite smoke run idle, then beside CPU-bound processes.

    python scripts/bench_contention.py [--busy 6] [--settle 75]

Runs the README's demo run (``auditpacks run --pack <bundled jacite pack> --smoke``, the embedded
model, a fresh server each time) twice in one invocation: on the machine as it is, then with
``--busy`` processes that each spin one core. Before the busy run it waits up to ``--settle``
seconds for the 1-minute load to show the spinners (the embedded model picks its thread count
from that load, as it would on a machine that has been busy for a while). It prints both wall
times, their ratio and the fair-share ratio: with ``c`` cores and ``b`` spinners, a process that
gets its share of the cores runs about ``(b + 1) / c`` times slower than alone. Acceptance: at most
6× on 2 cores with 6 spinners (a fair share is about 3.5×). A benchmark, not a test; timings
depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def spin() -> None:
    while True:
        pass


def demo_run(pack: Path, out: Path) -> float:
    """Seconds for one smoke run of ``pack`` on the embedded model (a failed run stops the benchmark)."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "auditpacks", "run", "--pack", str(pack), "--smoke", "--out",
                           str(out), "--quiet"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"bench_contention: the run failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--busy", type=int, default=6, help="CPU-bound processes beside the busy run")
    parser.add_argument("--settle", type=float, default=75.0, help="seconds to wait for the load to show them")
    args = parser.parse_args(argv)
    cores = len(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory() as tmp:
        pack = Path(tmp) / "jacite.json"
        subprocess.run([sys.executable, "-m", "auditpacks", "build", "jacite", "--out", str(pack)], check=True,
                       capture_output=True)
        print(f"cores {cores}, load before {os.getloadavg()[0]:.1f}", flush=True)
        idle = demo_run(pack, Path(tmp) / "idle")
        print(f"idle run: {idle:.1f} s", flush=True)
        spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
        for process in spinners:
            process.start()
        try:
            until = time.monotonic() + args.settle
            while os.getloadavg()[0] < min(args.busy, 0.8 * args.busy) and time.monotonic() < until:
                time.sleep(1)
            print(f"{args.busy} spinners, load {os.getloadavg()[0]:.1f}", flush=True)
            busy = demo_run(pack, Path(tmp) / "busy")
        finally:
            for process in spinners:
                process.terminate()
    fair = (args.busy + 1) / cores
    print(f"\n{'run':<8}{'seconds':>10}{'× idle':>9}")
    print(f"{'idle':<8}{idle:>10.1f}{1.0:>9.2f}")
    print(f"{'busy':<8}{busy:>10.1f}{busy / idle:>9.2f}")
    print(f"fair share: about {fair:.1f}× ({args.busy} spinners on {cores} cores); acceptance at most 6×: "
          f"{'yes' if busy / idle <= 6 else 'NO'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
