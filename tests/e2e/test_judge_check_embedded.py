"""``judge-check`` with the embedded model as the judge, end to end: plumbing only (SmolLM2 cannot check a
quote; whether it qualifies means nothing, that it runs and writes its report does). The judge's cap is
kept short so the six calls end quickly (at temperature 0 its six replies run past a cap of 192 too, so a
longer cap only costs time); a reply cut at the cap is ungraded, which the report counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditpacks.runner.cli.main import main
from tests.support.paths import FIXTURES

pytestmark = pytest.mark.model



def test_the_embedded_judge_is_checked_and_its_report_written(tmp_path, embedded_model, capsys):
    pack = tmp_path / "jacite.json"
    assert main(["build", "jacite", "--source", str(FIXTURES / "jacite"), "--out", str(pack)]) == 0
    capsys.readouterr()
    code = main(["judge-check", "--pack", str(pack), "--judge-model", "embedded", "--limit", "1",
                 "--judge-timeout", "1800", "--judge-max-tokens", "48", "--out", str(tmp_path / "judges"), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code in (0, 4) and data["qualified"] is (code == 0)
    assert data["items"] == 6 and len(data["transcripts"]) == 6   # 3 core items and their longer probes
    assert (data["settings"]["model"], data["settings"]["provider"]) == ("smollm2", "embedded")
    assert data["settings"]["requests"] == 6
    saved = json.loads(Path(data["file"]).read_text(encoding="utf-8"))
    assert saved["judge"] == {"model": "smollm2", "provider": "embedded", "base_url": None}
    assert {row["verdict"] for row in saved["transcripts"]} <= {"pass", "fail", None}
