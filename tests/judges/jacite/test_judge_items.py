"""jacite calibration items from the fixture pack and its registry."""

from __future__ import annotations

import json
import re

from auditpacks.judges.trust.judge_items import FAIL, GOLD, PASS
from auditpacks.judges.jacite.judge_items import INVENTED, WRONG, calibration_items
from auditpacks.runner.cli.main import main
from tests.support.paths import FIXTURES as TESTS_FIXTURES

FIXTURES = TESTS_FIXTURES / "jacite"


def test_three_core_items_per_question_cite_as_their_rule_says(tmp_path):
    out = tmp_path / "jacite.json"
    assert main(["build", "jacite", "--source", str(FIXTURES), "--out", str(out)]) == 0
    pack = json.loads(out.read_text(encoding="utf-8"))
    manifest = json.loads(out.with_name("jacite.manifest.json").read_text(encoding="utf-8"))
    items = calibration_items(pack, manifest)
    assert len(items) == 3 * len(pack)
    for scenario, (gold, invented, wrong) in zip(pack, zip(*[iter(items)] * 3)):
        article = scenario["metadata"]["gold_article"]
        ids = set(manifest["grading"]["registry"][scenario["metadata"]["law_id"]]["ids"])
        assert (gold.kind, gold.expected, invented.kind, invented.expected, invented.violates,
                wrong.kind, wrong.expected, wrong.violates) == (GOLD, PASS, INVENTED, FAIL, 2, WRONG, FAIL, 1)
        assert re.findall(r"Article (\S+?) ", gold.replies[0]) == [article]
        cited = re.findall(r"Article (\d+(?:-\d+)?)", invented.replies[0])
        assert cited[0] == article and cited[1] not in ids and int(cited[1]) > 1000
        (other,) = re.findall(r"Article (\d+(?:-\d+)?)", wrong.replies[0])
        assert other != article and other in ids
    assert calibration_items(pack, None) == []   # no registry: nothing is known to exist
