"""``--shard i/2`` on each benchmark's pack: which scenarios each shard runs, worked out by hand.

Iustitia's scenarios stay together by judgment, ICJ's by case, jacite's stand alone (no source document);
variants whose documents, cases or questions are arranged so that another grouping would split them otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditpacks.packs.pack import PackWriter
from tests.support.fake_openai import FakeOpenAI
from tests.support.paths import FIXTURES, ROOT
from tests.support.runs import results, run_here
from auditpacks.runner.cli.main import main

CARD = ROOT / "tests" / "fixtures" / "iustitia" / "simpleaudit" / "iustitia_marigonae_smoke3.json"


@pytest.fixture(scope="module")
def packs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("packs")
    assert main(["build", "jacite", "--out", str(root / "jacite.json"), "--limit", "8"]) == 0
    assert main(["build", "iustitia", "--source", str(FIXTURES / "iustitia"), "--out", str(root / "iustitia.json")]) == 0
    assert main(["build", "icj", "--source", str(FIXTURES / "icj"), "--out", str(root / "icj.json")]) == 0
    return root


def variant(built: Path, out: Path, change) -> Path:
    """The pack ``built`` with each scenario passed through ``change(index, scenario)``, its manifest's builder,
    grading and run settings kept."""
    manifest = json.loads(built.with_suffix(".manifest.json").read_text(encoding="utf-8"))
    scenarios = json.loads(built.read_text(encoding="utf-8"))
    extra = {k: manifest[k] for k in ("grading", "run", "answer", "condition") if k in manifest}
    with PackWriter(out, manifest["builder"]["name"], extra=extra) as writer:
        writer.add_all(change(i, s) for i, s in enumerate(scenarios))
    return out


def shards(pack: Path, tmp: Path) -> list[list[str]]:
    """The scenario names each of two shards ran, in pack order."""
    got = []
    with FakeOpenAI() as server:
        for i in (1, 2):
            assert run_here(pack, tmp / f"s{i}", server.base_url, "--shard", f"{i}/2") == 0
            got.append([r["scenario_name"] for r in results(tmp / f"s{i}")])
    return got


def names(pack: Path, *indices: int) -> list[str]:
    scenarios = json.loads(pack.read_text(encoding="utf-8"))
    return [scenarios[i]["name"] for i in indices]


def test_iustitia_judgments_stay_together_whatever_their_documents(packs, tmp_path):
    # 15 scenarios: judgment domv901 (0-8), then domv902 (9-14). domv901 goes to shard 1, domv902 to shard 2
    # (it holds none yet), whether a judgment's scenarios carry one document or each its own.
    built = packs / "iustitia.json"
    by_judgment = [names(built, *range(9)), names(built, *range(9, 15))]
    assert shards(built, tmp_path / "built") == by_judgment

    def own_document(i, s):
        return {**s, "documents": [f"{s['documents'][0]}\n(unit {i})"]}

    apart = variant(built, tmp_path / "apart" / "iustitia.json", own_document)
    assert shards(apart, tmp_path / "apart") == by_judgment


def test_icj_targets_stay_together_by_case(packs, tmp_path):
    # 5 targets of cases 001, 003, 070, 131, 187 (no documents): one each, dealt 1, 2, 1, 2, 1
    built = packs / "icj.json"
    assert shards(built, tmp_path / "built") == [names(built, 0, 2, 4), names(built, 1, 3)]

    def second_of_case_001(i, s):
        return {**s, "metadata": {**s["metadata"], "case_id": "001"}} if i == 1 else s

    # targets 0 and 1 of case 001 -> shard 1 (2); 070 -> 2 (1); 131 -> 2 (sizes 2, 1); 187 -> 1 (tie 2, 2)
    same_case = variant(built, tmp_path / "case" / "icj.json", second_of_case_001)
    assert shards(same_case, tmp_path / "case") == [names(built, 0, 1, 4), names(built, 2, 3)]


def test_jacite_questions_each_stand_alone(packs, tmp_path):
    # 8 questions, no documents: each scenario its own group, dealt 1, 2, 1, 2, ... even when two share a question
    built = packs / "jacite.json"
    alternate = [names(built, 0, 2, 4, 6), names(built, 1, 3, 5, 7)]
    assert shards(built, tmp_path / "built") == alternate

    def one_question(i, s):
        return {**s, "metadata": {**s["metadata"], "question_id": "q0000"}} if i == 1 else s

    shared = variant(built, tmp_path / "shared" / "jacite.json", one_question)
    assert shards(shared, tmp_path / "shared") == alternate


def test_the_cards_pack_without_a_manifest_keeps_judgments_together(tmp_path):
    # domv902, domv902, domv901 (the card's three, reordered), each with its own document: domv902 -> shard 1,
    # domv901 -> shard 2
    first, second, third = json.loads(CARD.read_text(encoding="utf-8"))
    scenarios = [{**s, "documents": [f"{s['documents'][0]}\n({n})"]} for n, s in enumerate((first, third, second))]
    pack = tmp_path / "iustitia_marigonae.json"
    pack.write_text(json.dumps(scenarios, ensure_ascii=False), encoding="utf-8")
    assert shards(pack, tmp_path) == [[first["name"], third["name"]], [second["name"]]]
