"""The demo ends by naming the environment to activate and the next commands, which exist as typed."""

from __future__ import annotations

import importlib.util

from tests.support.paths import ROOT

spec = importlib.util.spec_from_file_location("bootstrap_script", ROOT / "scripts" / "bootstrap.py")
bootstrap = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bootstrap)


def test_the_demo_names_the_venv_and_the_next_commands(monkeypatch):
    monkeypatch.setattr(bootstrap, "VENV", ROOT / ".venv")
    lines = bootstrap.next_steps().splitlines()
    assert lines[0] == ("next: activate the environment once (. .venv/bin/activate), or call .venv/bin/auditpacks "
                        "instead of auditpacks; then, as the README goes on:")
    assert lines[1:] == ["  auditpacks report results/demo --out report.html",
                         "  auditpacks run --pack results/packs/jacite.json --limit 50"]
