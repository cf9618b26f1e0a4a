"""The quote's prompts in process: the run's own selection, checks, shard and prompt order applied to the pack, each
scenario's first target turn laid out as the target sends it (marked for a marking provider only when asked)."""

from __future__ import annotations

import json

import pytest

from auditpacks.packs.pack import PackWriter
from auditpacks.runner.hosted import plan
from auditpacks.runner.models.errors import RunError
from tests.support.hosted_pack import judgment_text, write_hosted_pack
from tests.support.run_config import run_config
from tests.support.tiny_pack import tiny_scenario, write_pack

WORDS = 20
OPTIONS = ("\n\nOptions:\n- guilty: The court found the accused guilty.\n"
           "- acquitted: The court acquitted the accused.\n- dismissed: The court dismissed the case.\n\n"
           "Reply with the key of exactly one option on the first line.")


@pytest.fixture
def pack(tmp_path):
    return write_hosted_pack(tmp_path / "long.json", words=WORDS)


def question(i: int) -> str:
    return f"Case {i}: what did the court decide in judgment V{i // 3:04d}?" + OPTIONS


def test_the_prompts_are_each_scenarios_first_turn_in_the_runs_order_named_by_its_document(pack):
    items, order = plan.prompts(run_config(pack=pack, prompt_order="document-first", system_prompt="Be brief."))
    assert order == "document-first" and len(items) == 9
    assert [item.document for item in items] == [f"document:V{i // 3:04d}" for i in range(9)]
    first = items[0]
    document = "--- DOCUMENT 1 ---\n" + judgment_text("V0000", WORDS)
    assert (first.question, first.documents) == (question(0), [judgment_text("V0000", WORDS)])
    user = document + "\n\n" + question(0)
    assert first.messages == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": user}]
    assert first.text == "Be brief.\x00" + user   # the messages' texts apart


def test_prompts_carry_cache_marks_only_when_asked_and_the_packs_manifest_comes_back(pack):
    config = run_config(pack=pack, prompt_order="document-first")
    plain, order, manifest = plan.selection(config)
    assert "cache_control" not in str([item.messages for item in plain])
    marked, _, _ = plan.selection(config, mark=True)
    assert marked[0].messages[0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert [item.question for item in marked] == [item.question for item in plain]
    assert manifest["answer"] == {"format": "an option key, then a short quote", "tokens": 54}


def test_a_shard_takes_whole_documents_as_the_benchmark_names_them(tmp_path):
    """Each scenario carries its own excerpt of judgment i // 3; the judgments are dealt out in order, each to the
    shard holding fewest scenarios (ties: the first): V0000 to 1, V0001 to 2, V0002 to 1."""
    pack = write_pack(tmp_path / "excerpts.json", 9, documents=True)
    shards = [plan.prompts(run_config(pack=pack, shard=f"{i}/2"))[0] for i in (1, 2)]
    assert [[item.question for item in shard] for shard in shards] == [
        [question(i) for i in (0, 1, 2, 6, 7, 8)], [question(i) for i in (3, 4, 5)]]


@pytest.mark.parametrize("builder, documents", [("iustitia", 1), ("jacite", 3)])
def test_the_packs_builder_decides_what_a_document_is(tmp_path, builder, documents):
    """Iustitia names the judgment a question is about; jacite groups scenarios by their documents' text."""
    path = tmp_path / f"{builder}.json"
    with PackWriter(path, builder=builder, extra={"grading": {"judge": "choice_match"}}) as writer:
        for i in range(3):
            writer.add(tiny_scenario(i, documents=True))
    assert len({item.document for item in plan.prompts(run_config(pack=path))[0]}) == documents


def test_with_checks_on_a_pack_with_an_error_is_refused(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{**tiny_scenario(0), "severity": "extreme"}]), encoding="utf-8")
    with pytest.raises(RunError, match="1 ERROR finding"):
        plan.selection(run_config(pack=path, check=True))
    assert len(plan.prompts(run_config(pack=path, check=False))[0]) == 1


def test_per_question_picks_by_the_packs_question_ids(pack):
    items, _ = plan.prompts(run_config(pack=pack, per_question=1))
    cases = [int(item.question.split(":")[0].removeprefix("Case ")) for item in items]
    assert sorted(case % 5 for case in cases) == [0, 1, 2, 3, 4]   # one of each question id q0..q4


def test_a_scenario_without_a_test_prompt_asks_its_description_and_its_images_go_along(tmp_path):
    path, image = tmp_path / "raw.json", tmp_path / "exhibit.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\nxx")
    path.write_text(json.dumps([{**tiny_scenario(0), "test_prompt": ""}, {**tiny_scenario(1), "file_uri": str(image)}]),
                    encoding="utf-8")
    bare, pictured = plan.prompts(run_config(pack=path, check=False, prompt_order="stock"))[0]
    assert bare.question == "Asks for the outcome of judgment V0000." and bare.messages[-1]["content"] == bare.question
    assert pictured.question == question(1)
    assert pictured.messages[-1]["content"][0] == {"type": "text", "text": question(1)}
    assert pictured.messages[-1]["content"][1:] == [{"type": "image_url", "image_url": {
        "url": "data:image/png;base64,iVBORw0KGgp4eA=="}}]   # the eight PNG signature bytes and "xx"
