"""Selection (smoke, names, per question, limit) and the shard split, against hand-worked cases."""

from __future__ import annotations

import hashlib
import json
import random
from decimal import Decimal
from pathlib import Path

import pytest

from auditpacks.core.errors import PackError
from auditpacks.judges.reader import Reader
from auditpacks.packs.pack import Pack
from auditpacks.runner.scenarios import selection
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.store.journal import scenario_key
from auditpacks.runner.scenarios.shard import ShardSpec, assign, document_key, parse_spec, produced, take


def _s(i, **metadata):
    return {"name": f"S{i}", "test_prompt": f"p{i}", "metadata": metadata}


def _pack(tmp_path, scenarios, manifest=None):
    return Pack(path=tmp_path / "p.json", scenarios=scenarios, manifest=manifest, sha256="")


#: Iustitia's grouping: a scenario's judgment (metadata.verdict_id) and question (metadata.question_id).
IUSTITIA = Reader.of("choice", {"name": "iustitia"})


def test_smoke_is_the_manifest_list_in_its_order_and_never_the_first_three(tmp_path):
    scenarios = [_s(i) for i in range(5)]
    assert selection.select(_pack(tmp_path, scenarios)) == scenarios
    for manifest in (None, {}, {"smoke": []}):
        with pytest.raises(PackError) as err:
            selection.select(_pack(tmp_path, scenarios, manifest), smoke=True)
        assert str(err.value) == ("p.json: the manifest names no smoke scenarios (field smoke); "
                                  "use --limit N for the first N, or rebuild the pack")
    assert selection.select(_pack(tmp_path, scenarios, {"smoke": ["S4", "S1"]}), smoke=True) == [scenarios[4], scenarios[1]]
    with pytest.raises(PackError) as err:
        selection.select(_pack(tmp_path, scenarios, {"smoke": ["S1", "S9", "S8"]}), smoke=True)
    assert str(err.value) == "p.json: manifest field smoke names unknown scenario 'S9'"


def test_a_cards_published_smoke_file_is_its_own_smoke_set(tmp_path):
    scenarios = [_s(i) for i in range(3)]
    card = Pack(path=tmp_path / "simpleaudit" / "iustitia_marigonae_smoke3.json", scenarios=scenarios, manifest=None,
                sha256="")
    assert selection.select(card, smoke=True) == scenarios  # the registry's card smoke file name, no manifest
    renamed = Pack(path=tmp_path / "smoke3.json", scenarios=scenarios, manifest=None, sha256="")
    with pytest.raises(PackError, match="the manifest names no smoke scenarios"):
        selection.select(renamed, smoke=True)


def test_names_pick_scenarios_in_the_order_given(tmp_path):
    scenarios = [_s(i) for i in range(4)]
    pack = _pack(tmp_path, scenarios)
    assert selection.select(pack, names=["S3", "S0"]) == [scenarios[3], scenarios[0]]
    with pytest.raises(PackError) as err:
        selection.select(pack, names=["S0", "nope", "S7"])
    assert str(err.value) == "p.json: no scenario named 'nope'"


def test_per_question_draws_with_a_seeded_rng_then_limit(tmp_path):
    scenarios = [_s(i, question_id=f"Q{i % 2}") for i in range(6)] + [_s(6)]
    # by hand: groups visited in sorted key text ("None", "Q0", "Q1"); only groups over n draw with random.Random(seed)
    rng = random.Random(5)
    q0 = rng.sample([0, 2, 4], 2)
    q1 = rng.sample([1, 3, 5], 2)
    expected = [scenarios[i] for i in sorted([6] + q0 + q1)]
    question = IUSTITIA.question
    assert selection.select(_pack(tmp_path, scenarios), per_question_n=2, seed=5, question=question) == expected
    assert selection.select(_pack(tmp_path, scenarios), per_question_n=2, seed=5, limit=3,
                            question=question) == expected[:3]
    rng = random.Random(0)  # the default seed
    q0, q1 = rng.sample([0, 2, 4], 2), rng.sample([1, 3, 5], 2)
    assert selection.select(_pack(tmp_path, scenarios), per_question_n=2,
                            question=question) == [scenarios[i] for i in sorted([6] + q0 + q1)]
    by_case = selection.per_question(scenarios[:4], 1, seed=0, question=lambda s: s["metadata"].get("missing"))
    assert len(by_case) == 1  # every scenario lacks the key: one group


def test_parse_spec_messages():
    assert parse_spec("2/3") == ShardSpec(2, 3) and str(ShardSpec(2, 3)) == "2/3"
    assert parse_spec("1/1") == ShardSpec(1, 1) and parse_spec("3/3") == ShardSpec(3, 3)
    with pytest.raises(RunError) as err:
        parse_spec("x/2")
    assert str(err.value) == "--shard 'x/2': expected i/n, e.g. 1/4"
    with pytest.raises(RunError) as err:
        parse_spec("4/3")
    assert str(err.value) == "--shard '4/3': shards are numbered 1..n (got 4 of 3)"
    with pytest.raises(RunError, match=r"got 0 of 0"):
        parse_spec("0/0")


def test_document_keys_by_hand():
    case = Reader.of("citations", {"name": "icj"}).document   # ICJ's: the case
    assert document_key({"metadata": {"verdict_id": "", "case_id": "C1"}}, case) == "document:C1"
    assert document_key({"metadata": {"verdict_id": 0}}, IUSTITIA.document) == "document:0"
    assert document_key({"metadata": {"verdict_id": ""}, "name": "n"}, IUSTITIA.document) == "name:n"  # none named
    assert document_key({"metadata": {"verdict_id": "V", "case_id": "C"}, "name": "n"}) == "name:n"  # generic
    docs = ["Judgment A.", {"text": "é"}]
    blob = json.dumps(docs, sort_keys=True, ensure_ascii=False)
    assert document_key({"documents": docs}) == "documents:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()
    assert document_key({"documents": [], "name": "n"}) == "name:n"
    assert document_key({}) == "name:None"


def test_assignment_by_hand():
    # documents A A B C C C D: A -> 1; B -> 2 (1 holds 2); C -> 3; D -> 2 (sizes 2, 1, 3: the fewest)
    docs = "AABCCCD"
    scenarios = [{"name": f"n{i}", "metadata": {"verdict_id": d}} for i, d in enumerate(docs)]
    judgment = IUSTITIA.document
    assert assign(scenarios, 3, judgment) == [1, 1, 2, 3, 3, 3, 2]
    # ties go to the lowest number
    assert assign(scenarios[:1] + scenarios[2:3], 2, judgment) == [1, 2]
    # no document named: each scenario on its own, dealt 1, 2, 3, 1, 2, 3, 1
    assert assign(scenarios, 3) == [1, 2, 3, 1, 2, 3, 1]
    part, record = take(scenarios, ShardSpec(2, 3), judgment)
    assert part == [scenarios[2], scenarios[6]]
    assert record == {"spec": "2/3", "index": 2, "count": 3, "split_by": "document", "selected": 7,
                      "selection_sha256": hashlib.sha256("\n".join(scenario_key(s) for s in scenarios).encode()).hexdigest(),
                      "positions": [2, 6]}
    narrowed = produced(record, part, [scenarios[6]])
    assert narrowed["assigned"] == 2 and narrowed["positions"] == [6] and narrowed["selected"] == 7


class _Stub(dict):
    doc_key = "documents:9999"


def test_document_keys_precomputed_or_of_documents_json_cannot_hold():
    assert document_key(_Stub(metadata={"verdict_id": "V1"})) == "documents:9999"  # a stub carries its key
    assert document_key(_Stub(metadata={"verdict_id": "V1"}), IUSTITIA.document) == "document:V1"  # one named first
    blob = '["a/b", {"a": "é", "n": "7"}]'  # values JSON cannot hold, as text; keys sorted
    assert document_key({"documents": [Path("a/b"), {"n": Decimal(7), "a": "é"}]}) == \
        "documents:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()
    for text in ("1/2/3", "2", ""):
        with pytest.raises(RunError, match=r"expected i/n, e\.g\. 1/4"):
            parse_spec(text)


def test_per_question_needs_a_question_id_somewhere(tmp_path):
    for question in (IUSTITIA.question, Reader("checklist").question):   # a benchmark's questions, decision ids
        with pytest.raises(PackError) as err:
            selection.select(_pack(tmp_path, [_s(0), _s(1, case_id="C")]), per_question_n=1, question=question)
        assert str(err.value) == ("p.json: --per-question needs questions, and no scenario of this pack has one; "
                                  "use --limit or --smoke")
    asked = [{**_s(i), "decision": {"id": f"D{i % 2}"}} for i in range(4)]   # generic: the decision's id
    assert len(selection.select(_pack(tmp_path, asked), per_question_n=1)) == 2


def test_a_limit_over_the_selection_is_refused_unless_accepted(tmp_path, capsys):
    scenarios = [_s(i, question_id=f"Q{i % 2}") for i in range(4)]
    pack = _pack(tmp_path, scenarios)
    assert selection.select(pack, limit=4) == scenarios  # exactly as many: fine
    with pytest.raises(PackError) as err:
        selection.select(pack, limit=5)
    assert str(err.value) == ("p.json: --limit 5: asked for 5 scenarios, the selection has 4 "
                              "(--allow-fewer accepts fewer)")
    with pytest.raises(PackError, match="asked for 3 scenarios, the selection has 2"):
        selection.select(pack, per_question_n=1, limit=3, question=IUSTITIA.question)  # after the per-question draw
    assert selection.select(pack, limit=5, allow_fewer=True) == scenarios
    assert capsys.readouterr().err.strip() == ("note: p.json: --limit 5: asked for 5 scenarios, the selection has 4; "
                                               "going on with 4 (--allow-fewer)")
