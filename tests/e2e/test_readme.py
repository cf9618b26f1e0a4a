"""The README's commands, top to bottom, in one fresh folder: no run refuses another's folder, and every
file a command reads is where an earlier command (or a download the README names) put it.

Lines that need the network or a server the README assumes (hosted providers, Ollama, the Hugging
Face hub, e-Gov) are left out, each by the marker below that names why; the published files the
README re-scores come from the fixtures, which have the benchmarks' exact schemas. Runs get short
reply and judge caps, and the decision run its first scenario only (the embedded model is a plumbing
check, CI has two cores, and each Iustitia judgment is a prefill of a thousand tokens or more); a run
may end with exit 3 (finished, some scenarios not graded), which is that model's honest outcome.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from auditpacks.core.runs.run_files import LATEST_NAME, RECORD_SUFFIX, record_name
from auditpacks.runner.serving.embedded import embedded_available
from tests.conftest import model_unusable
from tests.support.paths import FIXTURES, ROOT

NEEDS_NETWORK = ("hf:raihan-js", "./jacite-bench", "registry jacite", "localhost", "--provider openai",
                 "gpt-4o-mini", "results/icj/", "bootstrap.py", "mutation.py")
DOWNLOADS = {"benchmark.json": FIXTURES / "jacite" / "benchmark.json",   # the card's published results
             "iustitia-marigonae": FIXTURES / "iustitia",                # `hf download` of the Iustitia card
             "icj-predictions.jsonl": FIXTURES / "icj" / "results" / "predictions.jsonl",
             "data/test.jsonl": FIXTURES / "icj" / "data" / "test.jsonl"}
SHORT = {"--smoke": ["--max-tokens", "16"], "--limit": ["--max-tokens", "16"],
         "--judge-model": ["--judge-max-tokens", "96"], "--decision-url": ["--limit", "1"]}
HUB = {"hf:Kushtrim/iustitia-marigonae": "./iustitia-marigonae"}   # the hub's copy, as downloaded above


def readme_commands() -> list[str]:
    """Every ``auditpacks`` command line of the README's bash blocks, in order, comments removed."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [line.split("  #")[0].strip() for block in re.findall(r"```bash\n(.*?)```", text, re.S)
             for line in block.splitlines()]
    return [line for line in lines if line.startswith("auditpacks ")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(port: int, seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"serve-decision did not listen on {port}")


@pytest.mark.model
def test_the_readme_commands_run_in_order_without_a_collision(tmp_path):
    reason = embedded_available()
    if reason:
        model_unusable(reason)
    for name, source in DOWNLOADS.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "NO_COLOR": "1"}
    port, server, ran = str(free_port()), None, []
    try:
        for line in readme_commands():
            if any(marker in line for marker in NEEDS_NETWORK):
                continue
            for hub, local in HUB.items():
                line = line.replace(hub, local)
            argv = [sys.executable, "-m", "auditpacks", *shlex.split(line.replace("11435", port))[1:]]
            if argv[-1] == "&":
                server = subprocess.Popen(argv[:-1], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True)
                wait_for(int(port))
                continue
            if argv[3] == "run":
                argv += [arg for marker, args in SHORT.items() if marker in argv[4:] for arg in args]
            done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
            assert done.returncode in ((0, 3) if argv[3] == "run" else (0,)), f"{line}\n{done.stderr[-2000:]}"
            ran.append(line)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
    assert len(ran) >= 12, ran
    jacite = tmp_path / "results" / "jacite"
    runs = sorted(p.parent.name for p in jacite.glob("*/*" + RECORD_SUFFIX) if p.parent.name != LATEST_NAME)
    assert [r.rsplit("-", 2)[0] for r in runs] == ["smollm2-checklist-embedded", "smollm2-grounding",
                                                  "smollm2-grounding-t0.7"]   # three settings, three runs
    assert (jacite / LATEST_NAME).resolve().name == runs[2]
    assert (jacite / LATEST_NAME / record_name("smollm2")).is_file()
    assert not (tmp_path / "packs").exists()
