"""Citation grader: reply parsing, per-scenario verdicts, the judge config and the run headline."""

from __future__ import annotations

import importlib
import json

import pytest
from auditpacks.judges.icj.citations import (
    citation_verdict,
    headline,
    make_judge,
    parse_prediction,
)

from auditpacks.core.reasoning import strip_reasoning
from auditpacks.core.registry import JUDGES

ANSWER = '{"citation_case_ids": ["001"], "citation_provision_keys": ["statute:article_53"], ' \
         '"citation_resolution_symbols": ["S/RES/242 (1967)"]}'
PARSED = {"citation_case_ids": ["001"], "citation_provision_keys": ["statute:article_53"],
          "citation_resolution_symbols": ["S/RES/242 (1967)"]}
EMPTY = {"citation_case_ids": [], "citation_provision_keys": [], "citation_resolution_symbols": []}

PARSING = [
    ("bare JSON", ANSWER, PARSED, []),
    ("code fence", f"```json\n{ANSWER}\n```", PARSED, []),
    ("unlabelled fence", f"```\n{ANSWER}\n```", PARSED, []),
    ("text around", f"Here is my answer:\n{ANSWER}\nI hope this helps.", PARSED, []),
    ("think block with a decoy object", '<think>maybe {"citation_case_ids": ["999"]}</think>\n' + ANSWER, PARSED, []),
    ("orphan closing think tag", "I recall the 1949 judgment...</think>" + ANSWER, PARSED, []),
    ("unclosed think block", ANSWER + "\n<think>second thoughts {", PARSED, []),
    ("braces in prose before the answer", "Sets {like this} aside: " + ANSWER, PARSED, []),
    ("nested under a key", '{"answer": ' + ANSWER + "}", PARSED, []),
    ("case ids padded and deduplicated",
     '{"citation_case_ids": ["1", "001", "70"], "citation_provision_keys": [], "citation_resolution_symbols": []}',
     {**EMPTY, "citation_case_ids": ["001", "070"]}, []),
    ("spelling kept exactly",
     '{"citation_case_ids": [], "citation_provision_keys": ["Statute:Article_53"], '
     '"citation_resolution_symbols": ["S/RES/242(1967)"]}',
     {**EMPTY, "citation_provision_keys": ["Statute:Article_53"], "citation_resolution_symbols": ["S/RES/242(1967)"]},
     []),
    ("truncated JSON", '{"citation_case_ids": ["001",', EMPTY, ["invalid or truncated JSON object in the reply"]),
    ("think block only", "<think>{\"citation_case_ids\": [\"001\"]}", EMPTY, ["empty reply"]),
    ("prose only", "I am not sure which cases are cited.", EMPTY, ["no JSON object in the reply"]),
    ("an unrelated object", '{"cases": ["001"]}', EMPTY, ["the JSON object has none of the citation fields"]),
    ("empty reply", "   ", EMPTY, ["empty reply"]),
    ("missing field", '{"citation_case_ids": ["001"], "citation_provision_keys": []}',
     {**EMPTY, "citation_case_ids": ["001"]}, ["missing field citation_resolution_symbols"]),
    ("number as case id", '{"citation_case_ids": [1], "citation_provision_keys": [], "citation_resolution_symbols": []}',
     {**EMPTY, "citation_case_ids": ["001"]}, ["citation_case_ids[0] is the number 1, not a string"]),
    ("string instead of list",
     '{"citation_case_ids": [], "citation_provision_keys": "charter:article_4", "citation_resolution_symbols": []}',
     {**EMPTY, "citation_provision_keys": ["charter:article_4"]},
     ["citation_provision_keys is a string, not a list; read as one citation"]),
    ("null field", '{"citation_case_ids": null, "citation_provision_keys": [], "citation_resolution_symbols": [7]}',
     EMPTY, ["citation_case_ids is null, not a list", "citation_resolution_symbols[0] is 7, not a string; dropped"]),
]


@pytest.mark.parametrize("text,prediction,issues", [p[1:] for p in PARSING], ids=[p[0] for p in PARSING])
def test_parse_prediction(text, prediction, issues):
    assert parse_prediction(text) == (prediction, issues)


def test_parse_prediction_non_text():
    assert parse_prediction(None) == (EMPTY, ["empty reply"])


def test_strip_reasoning():
    assert strip_reasoning("<THINK>a</THINK> b <thinking>c</thinking>") == "b"


def scenario(cases=("001", "064"), provisions=("charter:article_51",), resolutions=(), severity="high"):
    return {"severity": severity, "category": "System Integrity", "metadata": {
        "case_id": "070", "target_document_id": "ICJ_070_X", "condition": "parametric",
        "gold_citation_case_ids": list(cases), "gold_citation_provision_keys": list(provisions),
        "gold_citation_resolution_symbols": list(resolutions)}}


def reply(cases=(), provisions=(), resolutions=()):
    return {"role": "assistant", "content": json.dumps({
        "citation_case_ids": list(cases), "citation_provision_keys": list(provisions),
        "citation_resolution_symbols": list(resolutions)})}


def test_verdict_counts_and_identifiers():
    j = citation_verdict(scenario(), reply(["1", "005"], ["charter:article_51"], ["A/RES/2625(XXV)"]))
    assert j["counts"] == {"case_ids": {"tp": 1, "fp": 1, "fn": 1},
                           "provision_keys": {"tp": 1, "fp": 0, "fn": 0},
                           "resolution_symbols": {"tp": 0, "fp": 1, "fn": 0}}
    assert (j["case_id"], j["target_document_id"], j["condition"]) == ("070", "ICJ_070_X", "parametric")
    assert j["prediction"]["citation_case_ids"] == ["001", "005"]
    assert j["validation"] == {"status": "valid", "issues": []}
    # pooled over families: TP 2, FP 2, FN 1 -> F1 = 4 / (4 + 2 + 1)
    assert j["f1_all"] == 4 / 7 and j["severity"] == "pass"


def test_verdict_below_threshold_gets_designed_severity():
    j = citation_verdict(scenario(), reply(["001"], ["x:article_1", "y:article_2"]))
    # TP 1, FP 2, FN 2 -> F1 2/6 < 0.5
    assert j["f1_all"] == 1 / 3 and j["severity"] == "high" and j["designed_severity"] == "high"
    assert citation_verdict(scenario(), reply(["001"], ["x:article_1", "y:article_2"]), pass_f1=0.3)["severity"] == "pass"


def test_verdict_partial_answer_never_passes():
    j = citation_verdict(scenario(cases=(), provisions=()), {"content": "no idea"})
    assert j["validation"]["status"] == "partial" and j["severity"] == "high"
    assert j["prediction"] == EMPTY


def test_verdict_nothing_to_cite_nothing_cited_passes():
    j = citation_verdict(scenario(cases=(), provisions=(), severity=None), reply())
    assert j["f1_all"] is None and j["severity"] == "pass" and j["designed_severity"] == "medium"


def test_verdict_without_gold_is_ungraded():
    assert citation_verdict({"metadata": {}}, reply())["severity"] == "ungraded"


def test_make_judge_grades_in_code():
    judge = make_judge({"grading": {"judge": "citations", "pass_f1": 0.9}})
    assert judge["name"] == "citations" and callable(judge["grade"])
    conversation = [{"role": "user", "content": "q"}, reply(["001"], ["charter:article_51"])]
    j = judge["grade"](conversation=conversation, expected_behavior=None, scenario_meta=scenario())
    # TP 2, FN 1 -> F1 4/5 < 0.9
    assert j["f1_all"] == 0.8 and j["severity"] == "high" and j["pass_f1"] == 0.9
    assert make_judge(None)["grade"](conversation=conversation, scenario_meta=scenario())["severity"] == "pass"


def test_registry_points_here():
    module = importlib.import_module(JUDGES["citations"])
    assert callable(module.make_judge) and callable(module.headline)


def test_headline_pools_counts():
    s = scenario()
    graded = {"judgment": citation_verdict(s, reply(["001"], ["charter:article_51", "x:article_9"]))}
    other_judge = {"judgment": {"severity": "low", "summary": "checklist"},
                   "conversation": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "none"}]}
    error = {"severity": "ERROR", "judgment": {"severity": "ERROR", "error": "Timeout"}}
    out = headline([(s, graded), (s, other_judge), (s, error)])
    assert {k: out[k] for k in ("scenarios", "scored", "valid", "partial", "errors", "passed")} == \
        {"scenarios": 3, "scored": 2, "valid": 1, "partial": 1, "errors": 1, "passed": 1}
    # cases: graded TP 1 FN 1; re-graded "none" FN 2 -> TP 1, FP 0, FN 3: P 1, R 1/4, F1 2/5
    # (one target: the F1 interval over targets is the point itself)
    assert out["case_ids"] == {"tp": 1, "fp": 0, "fn": 3, "precision": 1.0, "recall": 0.25, "f1": 0.4,
                               "f1_bootstrap95": [0.4, 0.4]}
    # provisions: TP 1 FP 1 (x:article_9), FN 0 + 1 -> P 1/2, R 1/2, F1 1/2
    assert out["provision_keys"] == {"tp": 1, "fp": 1, "fn": 1, "precision": 0.5, "recall": 0.5, "f1": 0.5,
                                     "f1_bootstrap95": [0.5, 0.5]}
    # resolutions: no gold, nothing predicted -> every denominator 0 -> undefined, shown n/a (not 0%)
    assert out["resolution_symbols"] == {"tp": 0, "fp": 0, "fn": 0, "precision": None, "recall": None, "f1": None,
                                         "f1_bootstrap95": None}


def test_the_f1_interval_resamples_targets_and_the_summary_shows_it():
    from auditpacks.judges.reader import Reader

    right = scenario(cases=("001",), provisions=())
    wrong = {**right, "metadata": {**right["metadata"], "target_document_id": "ICJ_071_Y"}}
    pairs = [(right, {"judgment": citation_verdict(right, reply(["001"]))}),    # TP 1: 2TP / (2TP+FP+FN) = 2/2
             (wrong, {"judgment": citation_verdict(wrong, reply(["999"]))})]    # FP 1, FN 1: 0/2
    out = headline(pairs)
    # cases: target 1 all right, target 2 all wrong. A replicate of two draws of target 1 has F1 1, of two of
    # target 2 has F1 0, each a quarter of the 2,000 replicates: the 2.5% and 97.5% percentiles are 0 and 1
    assert out["case_ids"]["f1_bootstrap95"] == [0.0, 1.0]
    f1 = next(f for f in Reader.of("citations").figures(out) if f.name == "F1" and f.group == "case_ids")
    assert (f1.interval, f1.interval_name) == ((0.0, 1.0), "95% CI, bootstrap over targets")
