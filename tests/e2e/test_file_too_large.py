"""A write that the file system refuses (a file-size limit: ``File too large``) ends the run in one line that names
the file."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support.fake_openai import FakeOpenAI
from tests.support.paths import ROOT
from tests.support.runs import run_args
from tests.support.tiny_pack import write_pack

#: the command line under a 3,000-byte file-size limit, SIGXFSZ ignored so that a write fails with EFBIG
LIMITED = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
           "resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000)); "
           "from auditpacks.runner.cli.main import main; sys.exit(main(sys.argv[1:]))")


def test_a_file_too_large_is_one_line_naming_it(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 3)
    with FakeOpenAI() as server:
        # -B: under the limit, the interpreter's own compiled-module writes would be cut short and kept
        done = subprocess.run([sys.executable, "-B", "-c", LIMITED, *run_args(pack, tmp_path / "out", server.base_url)],
                              cwd=ROOT, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    [line] = done.stderr.strip().splitlines()[-1:]
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert line.startswith("auditpacks: error: [Errno 27] File too large: '") and "/out/m." in line, line
