"""``auditpacks registry jacite``: the registry from saved e-Gov Law API v2 responses, and its use.

Fixtures: tests/fixtures/jacite/egov (民法 and 地方自治法, a few articles each, tree format).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from auditpacks.core.errors import PackError
from auditpacks.judges.jacite.grounding import ground_reply
from auditpacks.packs.jacite import builder as jacite_builder
from auditpacks.packs.jacite.egov import law_entry, text_of
from auditpacks.packs.jacite.registry import load_registry
from tests.support.paths import FIXTURES

EGOV = FIXTURES / "jacite" / "egov"
MINPO, CHIHO = "129AC0000000089", "322AC0000000067"


@pytest.fixture(scope="module")
def registry_path(tmp_path_factory) -> Path:
    from auditpacks.runner.cli.main import main

    out = tmp_path_factory.mktemp("registry") / "registry.json"
    assert main(["registry", "jacite", "--from", str(EGOV), "--laws", f"{MINPO},{CHIHO}", "--out", str(out)]) == 0
    return out


def test_registry_lists_titles_in_document_order_with_marks(registry_path):
    data = json.loads(registry_path.read_text(encoding="utf-8"))
    assert data["source"] == "e-Gov Law API v2"
    minpo = data["laws"][0]
    assert (minpo["law_id"], minpo["title"], minpo["revision_id"]) == (
        MINPO, "民法", "129AC0000000089_20250601_504AC0000000068")
    assert [a["article"] for a in minpo["articles"]] == [
        "第一条", "第二条", "第三条の二", "第三十八条から第八十四条まで", "第九十三条", "第二百八条",
        "第五百十六条及び第五百十七条", "第五百四十一条", "第一条", "第一条"]
    deleted = [a["article"] for a in minpo["articles"] if a["deleted"]]
    assert deleted == ["第三十八条から第八十四条まで", "第二百八条", "第五百十六条及び第五百十七条"]
    assert [a["supplementary"] for a in minpo["articles"]] == [False] * 8 + [True, True]
    assert [a.get("amend_law_num") for a in minpo["articles"][8:]] == ["", "平成二九年六月二日法律第四四号"]
    ruby = next(a for a in minpo["articles"] if a["article"] == "第九十三条")
    assert ruby["caption"] == "（心裡留保）"  # Ruby base kept whole, reading left out
    assert data["laws"][1]["articles"][1]["article"] == "第二百五十二条の十七の二"


def test_grader_reads_the_marks(registry_path):
    index = load_registry(registry_path)
    minpo = index[MINPO]
    assert minpo.deleted == frozenset({str(n) for n in range(38, 85)} | {"208", "516", "517"})
    assert minpo.supplementary == frozenset({"1"})
    assert "252-17-2" in index[CHIHO].ids
    reply = "民法第二百八条と第五百四十一条、附則第一条を参照。"
    assert ground_reply(reply, minpo, "541")["invented"] == []
    assert ground_reply(reply, minpo, "541", deleted_as="invented")["invented"] == ["208"]


def test_builder_accepts_the_registry(registry_path, tmp_path):
    source = tmp_path / "jacite"
    source.mkdir()
    (source / "registry.json").write_bytes(registry_path.read_bytes())
    parser = argparse.ArgumentParser()
    jacite_builder.add_arguments(parser)
    out = jacite_builder.build(parser.parse_args(["--source", str(source), "--out", str(tmp_path / "p.json")]))
    scenarios = json.loads(Path(out).read_text(encoding="utf-8"))
    # captioned, parseable titles in order: 民法 1, 2, 93, 541 (and its 附則 第一条 twice), 地方自治法 252-17-2
    golds = [s["metadata"]["gold_article"] for s in scenarios if s["metadata"]["language"] == "ja"]
    assert golds[:4] == ["1", "2", "93", "541"]
    manifest = json.loads((tmp_path / "p.manifest.json").read_text(encoding="utf-8"))
    assert manifest["grading"]["registry"][MINPO]["deleted"][:2] == ["38", "39"]


def test_bad_responses_fail_in_one_line(tmp_path):
    with pytest.raises(PackError, match=r"^x\.json: not an e-Gov law_data response"):
        law_entry({"law_info": {}}, MINPO, "x.json")
    saved = json.loads((EGOV / f"{CHIHO}.json").read_text(encoding="utf-8"))
    with pytest.raises(PackError, match=r"law_info\.law_id is '322AC0000000067', expected 129AC0000000089"):
        law_entry(saved, MINPO, "y.json")
    from auditpacks.runner.cli.main import main

    assert main(["registry", "jacite", "--from", str(tmp_path), "--laws", MINPO, "--out", str(tmp_path / "r.json")]) == 2
    assert not (tmp_path / "r.json").exists()


def test_text_of_skips_ruby_readings():
    node = {"tag": "ArticleCaption", "children": ["（代理行為の", {"tag": "Ruby", "children": [
        {"tag": "Rb", "children": ["瑕"]}, {"tag": "Rt", "children": ["か"]}]}, "疵）"]}
    assert text_of(node) == "（代理行為の瑕疵）"
