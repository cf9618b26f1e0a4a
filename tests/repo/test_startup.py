"""Start-up: ``auditpacks --help`` and ``auditpacks check`` import none of the heavy libraries.

Each command runs in a fresh interpreter, which then lists the heavy modules it has
imported. Model clients, statistics and dataset libraries are imported where they are
used (a run, a scorer, a builder), so the commands that need none of them start at once.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.tiny_pack import write_pack

HEAVY = ("simpleaudit", "any_llm", "anthropic", "openai", "ollama", "scipy", "scipy.stats", "datasets", "numpy",
         "huggingface_hub", "pyarrow", "rich", "inspect_ai", "jsonschema")
#: The optional extras' libraries: imported only by the export that needs them, when it runs.
EXTRAS = ("inspect_ai", "jsonschema")

PROBE = """
import json, sys
from auditpacks.runner.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "heavy": sorted(m for m in %r if m in sys.modules)}))
""" % (HEAVY,)


def imported(*argv: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_help_imports_no_heavy_library():
    probe = imported("--help")
    assert probe == {"code": 0, "heavy": []}


def test_check_imports_no_heavy_library(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 12, documents=True)  # decisions: validated without simpleaudit's clients
    probe = imported("check", str(pack))
    assert probe == {"code": 0, "heavy": []}


def test_run_help_imports_no_heavy_library():
    assert imported("run", "--help") == {"code": 0, "heavy": []}


def test_export_help_imports_no_extra():
    """``export --help`` loads every export's arguments, none of the optional extras (inspect, eee)."""
    for argv in (("export", "--help"), ("export", "inspect", "--help"), ("export", "eee", "--help")):
        probe = imported(*argv)
        assert probe["code"] == 0 and not set(EXTRAS) & set(probe["heavy"]), argv


def test_a_run_imports_no_statistics_test_it_does_not_run(tmp_path):
    """A finished run of closed questions (clusters counted for its warnings, nothing compared) leaves
    ``scipy.stats`` unimported: only a comparison's tests need it."""
    from tests.support.fake_openai import FakeOpenAI

    pack = write_pack(tmp_path / "tiny.json", 4)
    with FakeOpenAI() as server:
        probe = imported("run", "--pack", str(pack), "--target", "m", "--base-url", server.base_url,
                         "--out", str(tmp_path / "out"), "--quiet")
    assert probe["code"] == 0 and "scipy.stats" not in probe["heavy"], probe
    assert "simpleaudit" in probe["heavy"]  # the run itself did happen in this interpreter
