"""A reply cut off by the token limit is recorded, exported, counted and scored as truncated."""

from __future__ import annotations

import json

import pytest
from simpleaudit import AuditResults

from auditpacks.core.io import read_jsonl
from auditpacks.judges.icj.citations import TRUNCATED_ISSUE, citation_verdict, headline, make_judge, read_answer
from auditpacks.judges.icj.score import score_files
from auditpacks.judges.icj.truncation import ends_inside_json, salvage
from tests.judges.icj.test_export import REPLIES, TEST, audit_result, export, pack  # noqa: F401  (fixture)

CUT = '{"citation_case_ids": ["001", "064"], "citation_provision_keys": ["charter:article_51", "statute:arti'


@pytest.mark.parametrize("text, truncated", [
    (CUT, True),
    ('```json\n{"citation_case_ids": [', True),
    ('{"citation_case_ids": ["00', True),
    ('{"citation_case_ids": [], "citation_provision_keys": [], "citation_resolution_symbols": []}', False),
    ("I cannot answer that.", False),
    ('{"a": "}"} and then {"b": [', False),   # the answer object is complete; later text does not matter
])
def test_ends_inside_json(text, truncated):
    assert ends_inside_json(text) is truncated


def test_salvage_keeps_what_was_written_before_the_cut():
    assert salvage(CUT) == {"citation_case_ids": ["001", "064"], "citation_provision_keys": ["charter:article_51"]}
    assert salvage('{"citation_case_ids": ["00') is None


def test_read_answer_marks_truncation_from_text_or_finish_reason():
    prediction, validation = read_answer(CUT)
    assert validation["status"] == "truncated" and validation["issues"][0] == TRUNCATED_ISSUE
    assert prediction["citation_case_ids"] == ["001", "064"]
    assert prediction["citation_provision_keys"] == ["charter:article_51"]
    assert prediction["citation_resolution_symbols"] == []
    complete = '{"citation_case_ids": [], "citation_provision_keys": [], "citation_resolution_symbols": []}'
    assert read_answer(complete)[1]["status"] == "valid"
    assert read_answer(complete, "length")[1]["status"] == "truncated"


def test_a_cut_in_the_last_list_keeps_every_family_written_before_it():
    cut = ('{"citation_case_ids": ["001"], "citation_provision_keys": [], '
           '"citation_resolution_symbols": ["S/RES/1", "S/RE')
    prediction, validation = read_answer(cut)
    assert prediction == {"citation_case_ids": ["001"], "citation_provision_keys": [],
                          "citation_resolution_symbols": ["S/RES/1"]}
    assert validation == {"status": "truncated", "issues": [TRUNCATED_ISSUE]}


def test_truncated_reply_fails_even_with_a_good_f1():
    scenario = {"severity": "medium", "metadata": {"case_id": "070", "target_document_id": "x", "condition": "parametric",
                                                   "gold_citation_case_ids": ["001", "064"],
                                                   "gold_citation_provision_keys": ["charter:article_51"],
                                                   "gold_citation_resolution_symbols": []}}
    judgment = citation_verdict(scenario, {"content": CUT})
    assert judgment["validation"]["status"] == "truncated" and judgment["severity"] == "medium"
    assert judgment["counts"]["case_ids"] == {"tp": 2, "fp": 0, "fn": 0}


def test_truncated_reply_is_exported_and_reported(tmp_path, pack):  # noqa: F811
    replies = list(REPLIES)
    replies[2] = CUT  # target 070
    judge = make_judge(pack.manifest)
    AuditResults([audit_result(s, r, judge) for s, r in zip(pack.scenarios, replies)]).save(str(tmp_path / "m.json"))
    out = tmp_path / "p.jsonl"
    assert export(tmp_path / "m.json", "--model-id", "m", "--out", out) == 0
    records = [r for _, r in read_jsonl(out)]
    assert [r["validation"]["status"] for r in records] == ["valid", "valid", "truncated", "partial", "partial"]
    assert records[2]["prediction"]["citation_case_ids"] == ["001", "064"]
    assert score_files(out, TEST)["validation"] == {"partial": 2, "truncated": 1, "valid": 2}
    pairs = list(zip(pack.scenarios, json.loads((tmp_path / "m.json").read_text())["results"]))
    head = headline(pairs)
    assert (head["valid"], head["partial"], head["truncated"]) == (2, 2, 1)


def test_summary_table_counts_truncated_answers():
    from auditpacks.judges.reader import Reader

    shown = {f.name: f.value for f in Reader.of("citations").figures({"scored": 5, "partial": 1, "truncated": 2,
                                                            "case_ids": {"f1": 0.5, "tp": 1, "fp": 1, "fn": 1}})}
    assert shown["truncated"] == 2


def test_the_endpoints_finish_reason_reaches_the_grader(tmp_path, pack):  # noqa: F811
    """A complete-looking answer the server stopped at its token limit is scored as truncated: the grader
    sees the endpoint's ``finish_reason``, not only the text."""
    from tests.support.fake_openai import FakeOpenAI
    from tests.support.runs import results, run_here

    complete = '{"citation_case_ids": ["001"], "citation_provision_keys": [], "citation_resolution_symbols": []}'

    def answer(model, messages):
        return {"content": complete, "finish_reason": "length" if "070" in json.dumps(messages) else "stop"}

    with FakeOpenAI(answer=answer) as server:
        run_here(pack.path, tmp_path / "out", server.base_url)
    statuses = {r["judgment"]["case_id"]: r["judgment"]["validation"]["status"] for r in results(tmp_path / "out")}
    assert statuses["070"] == "truncated"
    assert {s for case, s in statuses.items() if case != "070"} == {"valid"}
