"""Scorer: hand-computed metrics on the fixture predictions, strictness, CLI."""

from __future__ import annotations

import argparse
import json
import math

import pytest

from auditpacks.judges.icj import score as icj_score
from auditpacks.core.errors import FormatError
from auditpacks.core.io import read_jsonl
from auditpacks.judges.icj.score import score, score_files
from auditpacks.packs.icj.targets import load_targets
from tests.support.paths import FIXTURES

FIX = FIXTURES / "icj"
TEST = FIX / "data" / "test.jsonl"
PRED = FIX / "results" / "predictions.jsonl"

# Gold sizes per target (cases C, provisions P, resolutions R), from data/test.jsonl:
#   001: C 0, P 5, R 0    003: C 0, P 6, R 0    070: C 2, P 4, R 2
#   131: C 2, P 4, R 4    187: C 3, P 2, R 1    totals: C 7, P 21, R 7


def sd2(a, b):
    """Sample standard deviation of two values as the scorer computes it: sqrt(float((a - b)^2 / 2))."""
    return math.sqrt((a - b) ** 2 / 2)


@pytest.fixture(scope="module")
def scores():
    return score_files(PRED, TEST)


def metric(scores, model, condition, family):
    return scores["results"][model][condition][family]


def test_counts_and_layout(scores):
    assert scores["targets"] == 5 and scores["records"] == 25
    assert scores["families"] == ["case_ids", "provision_keys", "resolution_symbols"]
    # three answers are marked partial in the fixture (designed_tools r1 187; deepseek 070 and 131)
    assert scores["validation"] == {"partial": 3, "valid": 22}
    entry = scores["results"]["gpt-5-mini"]["parametric"]
    assert entry["rounds"] == [1, 2] and entry["answered"] == [5, 5] and entry["missing"] == [0, 0]
    assert list(scores["results"]) == ["deepseek-v4-flash-0731", "gpt-5-mini"]


def test_gpt5mini_parametric(scores):
    c = metric(scores, "gpt-5-mini", "parametric", "case_ids")
    # round 1: 070 predicts "1" (-> 001, TP) and "070" (FP), misses 064; 131 predicts 053 (TP), misses 061;
    #          187 predicts nothing, misses 3.  TP 2, FP 1, FN 1+1+3 = 5
    # round 2: 003 predicts 004 (FP); 070 predicts "64","64" (one TP 064, set semantics), misses 001;
    #          131 nothing, misses 2; 187 all 3 right.  TP 1+3 = 4, FP 1, FN 1+2 = 3
    assert (c["tp"], c["fp"], c["fn"]) == ([2, 4], [1, 1], [5, 3])
    assert c["precision"]["per_round"] == [2 / 3, 4 / 5]
    assert c["recall"]["per_round"] == [2 / 7, 4 / 7]
    assert c["f1"]["per_round"] == [4 / 10, 8 / 12]  # F1 = 2TP / (2TP + FP + FN)
    assert c["precision"]["mean"] == 11 / 15  # (2/3 + 4/5) / 2 = (10 + 12) / 30
    assert c["precision"]["std"] == math.sqrt(2 / 225)  # (2/3 - 4/5)^2 / 2 = (2/15)^2 / 2
    assert c["recall"]["mean"] == 3 / 7 and c["recall"]["std"] == math.sqrt(2 / 49)  # (2/7)^2 / 2
    assert c["f1"]["mean"] == 8 / 15 and c["f1"]["std"] == math.sqrt(8 / 225)  # (2/5 + 2/3)/2; (4/15)^2/2

    p = metric(scores, "gpt-5-mini", "parametric", "provision_keys")
    # round 1: 001 TP 2 (48, 53) FP 1 (charter:article_2) FN 3; 003 TP 2 (article_4, 65 twice -> once) FN 4;
    #          070 TP 2 FN 2; 131 TP 1 FN 3; 187 FN 2.  TP 7, FP 1, FN 14
    # round 2: 001 TP 5; 003 FN 6; 070 TP 1 FN 3; 131 FN 4; 187 TP 1 (65) FP 1 (96) FN 1.  TP 7, FP 1, FN 14
    assert (p["tp"], p["fp"], p["fn"]) == ([7, 7], [1, 1], [14, 14])
    assert p["precision"] == {"mean": 7 / 8, "std": 0.0, "per_round": [7 / 8, 7 / 8]}
    assert p["recall"] == {"mean": 1 / 3, "std": 0.0, "per_round": [1 / 3, 1 / 3]}
    assert p["f1"] == {"mean": 14 / 29, "std": 0.0, "per_round": [14 / 29, 14 / 29]}

    r = metric(scores, "gpt-5-mini", "parametric", "resolution_symbols")
    # round 1: 070 TP 1 FN 1; 131 "S/RES/242(1967)" is not "S/RES/242 (1967)": FP 1, FN 4; 187 TP 1.
    #          TP 2, FP 1, FN 5
    # round 2: 131 all four exact (TP 4); 070 FN 2; 187 FN 1.  TP 4, FP 0, FN 3
    assert (r["tp"], r["fp"], r["fn"]) == ([2, 4], [1, 0], [5, 3])
    assert r["precision"]["per_round"] == [2 / 3, 1.0]
    assert r["precision"]["mean"] == 5 / 6 and r["precision"]["std"] == math.sqrt(1 / 18)  # (1/3)^2 / 2
    assert r["recall"]["mean"] == 3 / 7 and r["recall"]["std"] == math.sqrt(2 / 49)
    assert r["f1"]["per_round"] == [4 / 10, 8 / 11]
    assert r["f1"]["mean"] == 31 / 55  # (22/55 + 40/55) / 2
    assert r["f1"]["std"] == math.sqrt(162 / 3025)  # (18/55)^2 / 2 = 324/3025 / 2


def test_gpt5mini_designed_tools(scores):
    c = metric(scores, "gpt-5-mini", "designed_tools", "case_ids")
    # round 1: 070 and 131 exact (TP 4); 187 is an empty partial answer (FN 3).  TP 4, FP 0, FN 3
    # round 2: as round 1, and 187 gives its 3 plus "999" (FP 1).              TP 7, FP 1, FN 0
    assert (c["tp"], c["fp"], c["fn"]) == ([4, 7], [0, 1], [3, 0])
    assert c["precision"]["mean"] == 15 / 16 and c["precision"]["std"] == math.sqrt(1 / 128)  # (1/8)^2/2
    assert c["recall"]["mean"] == 11 / 14 and c["recall"]["std"] == math.sqrt(9 / 98)  # (3/7)^2/2
    assert c["f1"]["per_round"] == [8 / 11, 14 / 15]
    assert c["f1"]["mean"] == 137 / 165  # (120/165 + 154/165) / 2
    assert c["f1"]["std"] == math.sqrt(578 / 27225)  # (34/165)^2 / 2 = 1156/27225 / 2

    p = metric(scores, "gpt-5-mini", "designed_tools", "provision_keys")
    # round 1: 001 5 + 003 6 + 070 4 + 131 4 = TP 19, 187 FN 2.  round 2: TP 21, nothing wrong
    assert (p["tp"], p["fp"], p["fn"]) == ([19, 21], [0, 0], [2, 0])
    assert p["precision"] == {"mean": 1.0, "std": 0.0, "per_round": [1.0, 1.0]}
    assert p["recall"]["mean"] == 20 / 21 and p["recall"]["std"] == math.sqrt(2 / 441)  # (2/21)^2 / 2
    assert p["f1"]["per_round"] == [19 / 20, 1.0]  # 38 / 40
    assert p["f1"]["mean"] == 39 / 40 and p["f1"]["std"] == math.sqrt(1 / 800)  # (1/20)^2 / 2

    r = metric(scores, "gpt-5-mini", "designed_tools", "resolution_symbols")
    # round 1: 070 TP 2; 131 TP 2 FN 2; 187 FN 1.  TP 4, FP 0, FN 3.   round 2: 187 TP 1.  TP 5, FP 0, FN 2
    assert (r["tp"], r["fp"], r["fn"]) == ([4, 5], [0, 0], [3, 2])
    assert r["recall"]["mean"] == 9 / 14 and r["recall"]["std"] == math.sqrt(1 / 98)  # (1/7)^2 / 2
    assert r["f1"]["per_round"] == [8 / 11, 5 / 6]  # 8/11 and 10/12
    assert r["f1"]["mean"] == 103 / 132 and r["f1"]["std"] == math.sqrt(49 / 8712)  # (7/66)^2 / 2


def test_single_round_and_zero_denominators(scores):
    entry = scores["results"]["deepseek-v4-flash-0731"]["parametric"]
    assert entry["rounds"] == [1]
    c, p, r = (entry[f] for f in ("case_ids", "provision_keys", "resolution_symbols"))
    # cases: 003 answers "1" -> 001, not gold for 003: TP 0, FP 1, FN 7 -> P 0/1, R 0/7, F1 0
    assert (c["tp"], c["fp"], c["fn"]) == ([0], [1], [7])
    # provisions: nothing predicted: TP + FP = 0 -> precision 0 by the zero-denominator rule
    assert (p["tp"], p["fp"], p["fn"]) == ([0], [0], [21])
    assert (r["tp"], r["fp"], r["fn"]) == ([0], [1], [7])  # 001: "A/RES/377(V)" is not gold
    for fam in (c, p, r):
        for m in ("precision", "recall", "f1"):
            assert fam[m] == {"mean": 0.0, "std": None, "per_round": [0.0]}  # one round: no sample sd


def test_allow_partial_subset():
    records = [r for _, r in read_jsonl(PRED)
               if r["model_id"] == "gpt-5-mini" and r["condition"] == "parametric" and r["round"] == 1
               and r["case_id"] in ("001", "003")]
    with pytest.raises(FormatError, match=r"answers 2 of 5 targets \(first missing: ICJ_070_"):
        score(records, load_targets(TEST))
    out = score(records, load_targets(TEST), allow_partial=True)
    entry = out["results"]["gpt-5-mini"]["parametric"]
    assert entry["answered"] == [2] and entry["missing"] == [3]
    # cases and resolutions: no gold, nothing predicted on 001/003 -> every denominator is zero -> 0
    for family in ("case_ids", "resolution_symbols"):
        assert (entry[family]["tp"], entry[family]["fp"], entry[family]["fn"]) == ([0], [0], [0])
        assert entry[family]["f1"]["mean"] == entry[family]["precision"]["mean"] == 0.0
    # provisions: 001 TP 2 FP 1 FN 3; 003 TP 2 FN 4 -> TP 4, FP 1, FN 7: P 4/5, R 4/11, F1 8/16
    p = entry["provision_keys"]
    assert (p["tp"], p["fp"], p["fn"]) == ([4], [1], [7])
    assert (p["precision"]["mean"], p["recall"]["mean"], p["f1"]["mean"]) == (4 / 5, 4 / 11, 1 / 2)


def test_accepts_raw_test_records_and_padding():
    gold = [json.loads(line) for line in TEST.read_text().splitlines()]
    rec = {"case_id": "070", "target_document_id": gold[2]["target_document_id"], "model_id": "m",
           "condition": "c", "round": 1,
           "prediction": {"citation_case_ids": ["1", "0064", "001"], "citation_provision_keys": [],
                          "citation_resolution_symbols": []}}
    out = score([rec], gold, allow_partial=True)
    c = out["results"]["m"]["c"]["case_ids"]
    # "1" and "001" are one id (001, TP); "0064" pads to 064 (TP): TP 2, FP 0, FN 0
    assert (c["tp"], c["fp"], c["fn"]) == ([2], [0], [0])
    assert out["validation"] == {"unrecorded": 1}


BAD_PREDICTIONS = [
    ("missing_field.jsonl", r"^missing_field\.jsonl line 1 \(m/parametric/round 1, ICJ_001_\S+\) prediction: "
                            r"field citation_resolution_symbols is missing$"),
    ("non_string.jsonl", r"^non_string\.jsonl line 1 .*field citation_case_ids\[0\] is a int \(1\), not a string$"),
    ("not_a_list.jsonl", r"^not_a_list\.jsonl line 1 .*field citation_provision_keys is a str, not a list$"),
    ("duplicate.jsonl", r"^duplicate\.jsonl line 6: duplicate answer for m/parametric/1 and ICJ_131_\S+ "
                        r"\(first at line 4\)$"),
    ("unknown_target.jsonl", r"^unknown_target\.jsonl line 1: target_document_id ICJ_999_\S+ is not a target"),
    ("case_mismatch.jsonl", r"^case_mismatch\.jsonl line 1: case_id '003' does not match target ICJ_001_\S+ "
                            r"\(case 001\)$"),
    ("incomplete.jsonl", r"^incomplete\.jsonl: m/parametric/1 answers 4 of 5 targets \(first missing: ICJ_070_"),
    ("bad_round.jsonl", r"^bad_round\.jsonl line 1: field round is '1', not a positive integer$"),
    ("missing_model.jsonl", r"^missing_model\.jsonl line 1: field model_id is missing$"),
    ("missing_prediction.jsonl", r"^missing_prediction\.jsonl line 1 \(.*\): field prediction is missing$"),
    ("bad_json.jsonl", r"^bad_json\.jsonl line 2: invalid JSON: "),
]


@pytest.mark.parametrize("name,message", BAD_PREDICTIONS)
def test_rejects_bad_predictions(name, message):
    with pytest.raises(FormatError, match=message) as info:
        score_files(FIX / "bad" / name, TEST)
    assert "\n" not in str(info.value)


BAD_TESTS = [
    ("test_missing_gold.jsonl", r"^test_missing_gold\.jsonl line 3 \(ICJ_070_\S+\): field "
                                r"gold_citation_resolution_symbols is missing$"),
    ("test_non_string_gold.jsonl", r"line 4 \(ICJ_131_\S+\): field gold_citation_case_ids\[1\] is a int \(61\)"),
    ("test_bad_date.jsonl", r"line 1 \(ICJ_001_\S+\): field target_decision_date '15/12/1949' is not an ISO date$"),
    ("test_long_case_id.jsonl", r"^test_long_case_id\.jsonl line 2: field case_id '0003' is not a three-character id$"),
    ("test_duplicate_target.jsonl", r"line 6: target_document_id ICJ_187_2025-07-23_ADV_EN repeats line 5$"),
]


@pytest.mark.parametrize("name,message", BAD_TESTS)
def test_rejects_bad_test_file(name, message):
    with pytest.raises(FormatError, match=message):
        load_targets(FIX / "bad" / name)


def _args(**kw):
    parser = argparse.ArgumentParser()
    icj_score.add_arguments(parser)
    argv = ["--pred", str(kw.pop("pred", PRED)), "--test", str(TEST)]
    argv += ["--out", str(kw["out"])] if "out" in kw else []
    argv += ["--allow-partial"] if kw.get("allow_partial") else []
    return parser.parse_args(argv)


def test_cli_writes_scores(tmp_path, capsys):
    out = tmp_path / "scores.json"
    assert icj_score.main(_args(out=out)) == 0
    assert json.loads(out.read_text()) == score_files(PRED, TEST)
    assert "gpt-5-mini" in capsys.readouterr().out


def test_cli_prints_a_table_without_out(capsys):
    assert icj_score.main(_args()) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("25 records, ")


def test_cli_error_is_one_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "scores.json"
    from auditpacks.runner.cli.main import main as cli

    assert cli(["score", "icj", "--pred", str(FIX / "bad" / "duplicate.jsonl"), "--test", str(FIX / "data" / "test.jsonl"),
                "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("auditpacks: error: duplicate.jsonl line 6") and err.count("\n") == 1
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_the_command_prints_a_table_and_json_names_no_temporary_file(capsys):
    from auditpacks.runner.cli.main import main

    argv = ["score", "icj", "--pred", str(FIX / "results" / "predictions.jsonl"),
            "--test", str(FIX / "data" / "test.jsonl")]
    assert main(argv) == 0
    printed = capsys.readouterr()
    lines = printed.out.splitlines()
    assert len(lines) < 40 and not printed.out.lstrip().startswith("{")
    assert lines[-1].endswith("targets; validation " + str(score_files(*argv[3:6:2])["validation"]))
    assert main([*argv, "--json"]) == 0
    printed = capsys.readouterr()
    assert json.loads(printed.out) == score_files(*argv[3:6:2]) and "wrote" not in printed.err
    assert "scores.json" not in printed.err
