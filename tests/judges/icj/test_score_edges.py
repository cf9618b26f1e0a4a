"""The ICJ scorer's arithmetic, table and messages on small hand-worked cases."""

from __future__ import annotations

import argparse
import math
from fractions import Fraction

import pytest

from auditpacks.core.errors import FormatError
from auditpacks.judges.icj import score as icj_score
from auditpacks.judges.icj.score import format_table, mean_std, prf, score
from auditpacks.packs.icj.targets import load_targets
from tests.support.paths import FIXTURES

TEST = FIXTURES / "icj" / "data" / "test.jsonl"


@pytest.fixture(scope="module")
def target():
    return load_targets(TEST)[0]  # case 001: no cited cases or resolutions, five provisions


def _record(target, rnd, provisions, model="m", condition="c", **extra):
    return {"case_id": target.case_id, "target_document_id": target.target_document_id, "model_id": model,
            "condition": condition, "round": rnd,
            "prediction": {"citation_case_ids": [], "citation_provision_keys": list(provisions),
                           "citation_resolution_symbols": []}, **extra}


@pytest.mark.parametrize("counts, expected", [
    ((0, 0, 0), (0, 0, 0)),
    ((1, 0, 0), (1, 1, 1)),
    ((0, 2, 3), (0, 0, 0)),
    ((2, 1, 3), (Fraction(2, 3), Fraction(2, 5), Fraction(1, 2))),  # F1 = 4 / (4 + 1 + 3)
    ((3, 0, 1), (1, Fraction(3, 4), Fraction(6, 7))),
    ((1, 1, 0), (Fraction(1, 2), 1, Fraction(2, 3))),
    ((1, 0, 1), (1, Fraction(1, 2), Fraction(2, 3))),  # tp = fn: recall is not 0
])
def test_prf_is_exact(counts, expected):
    assert prf(*counts) == expected


def test_mean_and_sample_deviation():
    assert mean_std([Fraction(1, 2)]) == (0.5, None)
    assert mean_std([Fraction(0), Fraction(1)]) == (0.5, math.sqrt(0.5))
    mean, std = mean_std([Fraction(1), Fraction(2), Fraction(3), Fraction(4)])
    assert mean == 2.5 and std == pytest.approx(math.sqrt(5 / 3))  # squared deviations 5 over n - 1 = 3
    assert mean_std([Fraction(1, 3)] * 3) == (1 / 3, 0.0)


def test_two_rounds_summary_and_table(target):
    gold = list(target.gold["provision_keys"])
    records = [_record(target, 2, gold), _record(target, 1, gold[:2] + ["x:article_1"])]
    out = score(records, load_targets(TEST), allow_partial=True)
    entry = out["results"]["m"]["c"]
    assert entry["rounds"] == [1, 2] and entry["answered"] == [1, 1] and entry["missing"] == [4, 4]
    p = entry["provision_keys"]
    assert (p["tp"], p["fp"], p["fn"]) == ([2, 5], [1, 0], [3, 0])
    # round 1: P 2/3, R 2/5, F1 4/8; round 2: all 1
    assert p["f1"] == {"mean": 0.75, "std": math.sqrt(0.125), "per_round": [0.5, 1.0]}
    assert p["precision"]["per_round"] == [2 / 3, 1.0] and p["recall"]["mean"] == 0.7
    cells = ["0.0000 ± 0.0000".rjust(22), "0.7500 ± 0.3536".rjust(22), "0.0000 ± 0.0000".rjust(22)]
    header = f"{'model':<28} {'condition':<20} {'rounds':>6}  " + "  ".join(
        f"{f + ' F1':>22}" for f in ("case_ids", "provision_keys", "resolution_symbols"))
    assert format_table(out).splitlines() == [header, f"{'m':<28} {'c':<20} {2:>6}  " + "  ".join(cells) + "  (8 missing)"]


def test_a_single_round_shows_no_deviation_and_nothing_missing(target):
    targets = load_targets(TEST)
    records = [_record(t, 1, []) | {"case_id": t.case_id, "target_document_id": t.target_document_id} for t in targets]
    line = format_table(score(records, targets)).splitlines()[1]
    assert line.endswith("0.0000 ± n/a") and "missing" not in line


@pytest.mark.parametrize("change, message", [
    (lambda r: [r], "predictions record #1: a list, not a JSON object"),
    (lambda r: {k: v for k, v in r.items() if k != "case_id"}, "predictions record #1: field case_id is missing"),
    (lambda r: {k: v for k, v in r.items() if k != "condition"}, "predictions record #1: field condition is missing"),
    (lambda r: {**r, "round": 0}, "predictions record #1: field round is 0, not a positive integer"),
    (lambda r: {**r, "round": True}, "predictions record #1: field round is True, not a positive integer"),
    (lambda r: {**r, "prediction": ["x"]}, "predictions record #1 (m/c/round 1, {doc}): field prediction is a list, "
                                           "not an object"),
    (lambda r: {k: v for k, v in r.items() if k != "target_document_id"},
     "predictions record #1: field target_document_id is missing"),
])
def test_record_errors_word_for_word(target, change, message):
    with pytest.raises(FormatError) as err:
        score([change(_record(target, 1, []))], [target], allow_partial=True)
    assert str(err.value) == message.format(doc=target.target_document_id)


def test_duplicates_name_both_records(target):
    with pytest.raises(FormatError) as err:
        score([_record(target, 1, []), _record(target, 1, ["x"])], [target], source="p.jsonl")
    assert str(err.value) == (f"p.jsonl record #2: duplicate answer for m/c/1 and {target.target_document_id} "
                              "(first at record #1)")


def test_models_and_rounds_are_sorted(target):
    records = [_record(target, 3, [], model="z"), _record(target, 1, [], model="a", condition="y"),
               _record(target, 1, [], model="a", condition="x"), _record(target, 2, [], model="z")]
    out = score(records, [target])
    assert list(out["results"]) == ["a", "z"] and list(out["results"]["a"]) == ["x", "y"]
    assert out["results"]["z"]["c"]["rounds"] == [2, 3]
    assert out["validation"] == {"unrecorded": 4} and out["records"] == 4 and out["allow_partial"] is False


def test_cli_summary_line(tmp_path, capsys, target):
    pred = tmp_path / "p.jsonl"
    pred.write_text(__import__("json").dumps(_record(target, 1, [])) + "\n")
    parser = argparse.ArgumentParser()
    icj_score.add_arguments(parser)
    out = tmp_path / "s.json"
    assert icj_score.main(parser.parse_args(["--pred", str(pred), "--test", str(TEST), "--allow-partial",
                                             "--out", str(out)])) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == f"1 records, 5 targets; validation {{'unrecorded': 1}}; wrote {out}"
    assert out.read_text().endswith("}\n")


def _parser():
    parser = argparse.ArgumentParser()
    icj_score.add_arguments(parser)
    return parser


def test_command_line_options_and_help():
    with pytest.raises(SystemExit):
        _parser().parse_args(["--test", "t.jsonl"])
    with pytest.raises(SystemExit):
        _parser().parse_args(["--pred", "p.jsonl"])
    helps = {a.option_strings[0]: a.help for a in _parser()._actions if a.option_strings[0] != "-h"}
    assert helps == {
        "--pred": "predictions.jsonl (one record per model/condition/round/target)",
        "--test": "data/test.jsonl with the reference citations",
        "--allow-partial": "score a subset; report missing targets",
        "--out": "also write the scores as JSON here (--json: print them)",
    }
    args = _parser().parse_args(["--pred", "p", "--test", "t"])
    assert (args.allow_partial, args.out) == (False, None)


def test_scores_print_as_a_table_and_are_written_as_indented_json(tmp_path, capsys, target):
    pred = tmp_path / "p.jsonl"
    pred.write_text(__import__("json").dumps(_record(target, 1, [])) + "\n")
    assert icj_score.main(_parser().parse_args(["--pred", str(pred), "--test", str(TEST), "--allow-partial"])) == 0
    printed = capsys.readouterr().out
    assert printed.split()[:3] == ["model", "condition", "rounds"] and "{" not in printed.splitlines()[0]
    out = tmp_path / "s.json"
    assert icj_score.main(_parser().parse_args(["--pred", str(pred), "--test", str(TEST), "--allow-partial",
                                                "--out", str(out)])) == 0
    assert out.read_text().startswith('{\n  "families": [\n    "case_ids",')


def test_raw_gold_records_are_labelled_by_number(target):
    with pytest.raises(FormatError, match=r"^gold record #1"):
        score([], [{"case_id": "001"}])


def test_an_empty_prediction_file_is_refused_by_name(target):
    with pytest.raises(FormatError) as err:
        score([], [target], source="p.jsonl")
    assert str(err.value) == "p.jsonl: no prediction records; nothing to score"
