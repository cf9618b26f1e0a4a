"""``auditpacks rescore jacite``: its options, the real-but-not-gold column, the --summary file and table edges.

Counts per (model, language) in the upstream extractor, by hand from the fixture (see
tests/test_jacite_rescore.py for each row): real but not gold = cited - invented - gold,
per mention. Intervals come from scipy (Wilson; Fisher's exact test), not from our code.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from scipy.stats import binomtest, fisher_exact

from auditpacks.core.errors import PackError
from auditpacks.judges.jacite import rescore as jacite_rescore
from auditpacks.packs.jacite.registry import load_registry
from tests.support.paths import FIXTURES

BENCHMARK = FIXTURES / "jacite" / "benchmark.json"
LLMJP, QWEN = "llm-jp/llm-jp-3-1.8b-instruct3", "Qwen/Qwen2.5-7B-Instruct"

#: (model, language) -> (answered, cited, invented, real but not gold, gold hits), upstream extractor
BY_HAND = {
    (LLMJP, "ja"): (3, 7, 3, 2, 2),   # q0000 0 (gold 1), q0002 2 (1, 3-2), q0004 0
    (LLMJP, "en"): (3, 6, 2, 1, 3),   # q0001 0, q0003 1 (3-2), q0005 0
    (QWEN, "ja"): (2, 8, 3, 3, 2),    # q0004 2 (1, 38), q0006 1 (208)
    (QWEN, "en"): (2, 4, 1, 1, 2),    # q0005 0, q0007 1 (3)
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    jacite_rescore.add_arguments(parser)
    return parser


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _wilson(k: int, n: int) -> str:
    ci = binomtest(k, n).proportion_ci(method="wilson")
    return f"[{_pct(ci.low)}, {_pct(ci.high)}]"


def test_options_defaults_and_help():
    args = _parser().parse_args(["b.json"])
    assert (args.benchmark, args.registry, args.mode, args.deleted_as, args.out, args.summary) == \
        (Path("b.json"), None, "full", "real", None, None)
    helps = {a.dest: a.help for a in _parser()._actions if a.dest != "help"}
    assert helps == {
        "benchmark": "a jacite-bench benchmark.json (list of response rows)",
        "registry": "a jacite registry.json (default: the bundled 民法 text, packs/data/minpo.json)",
        "mode": "extractor: ours (full) or jacite-bench's published one (upstream); default full, "
                "the one a run's grounding judge uses",
        "deleted_as": "how a citation of a deleted placeholder article counts (default real, as published)",
        "out": "write the re-scored rows here (JSON list)",
        "summary": "write the pooled figures per model and language here (the run summary's shape)",
    }


def test_the_real_but_not_gold_column(capsys):
    assert jacite_rescore.main(_parser().parse_args([str(BENCHMARK), "--mode", "upstream"])) == 0
    out = capsys.readouterr().out
    for (model, lang), (_, cited, _, real, _) in BY_HAND.items():
        line = next(x for x in out.splitlines() if x.startswith(model.split("/")[-1]) and f" {lang} " in x)
        assert f"| {real}/{cited} {100 * real / cited:.2f}% {_wilson(real, cited)}" in line


def test_the_summary_file_pools_per_model_and_language(tmp_path, capsys):
    path = tmp_path / "summary.json"
    assert jacite_rescore.main(_parser().parse_args([str(BENCHMARK), "--mode", "upstream", "--summary", str(path)])) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"wrote {path}"
    summary = json.loads(path.read_text(encoding="utf-8"))
    assert (summary["extractor"], summary["deleted_as"], summary["registry"]) == ("upstream", "real", "bundled 民法 text")
    assert list(summary["models"]) == [QWEN, LLMJP]
    got = {(model, lang): tuple(summary["models"][model][lang][k]
                                for k in ("answered", "cited", "invented", "real_not_gold", "gold_hit"))
           for model, lang in BY_HAND}
    assert got == BY_HAND
    fisher = fisher_exact([[3, 4], [2, 4]])[1]
    assert summary["models"][LLMJP]["ja_vs_en"]["fisher_p"] == fisher


def _group(q, n, inv, real, gold, per_question):
    return {"q": q, "n": n, "inv": inv, "real": real, "n_v1": n + 1, "inv_v1": inv, "gold": gold, "gold_v1": gold,
            "per_question": per_question}


def test_table_edges_no_mentions_one_language_and_no_english_inventions():
    groups = {("l", "ja"): _group(1, 2, 1, 1, 0, [(1, 2)]),
              ("m", "ja"): _group(1, 0, 0, 0, 0, [(0, 0)]), ("m", "en"): _group(1, 2, 1, 0, 1, [(1, 2)]),
              ("z", "ja"): _group(1, 2, 0, 0, 0, [(0, 2)]), ("z", "en"): _group(1, 3, 0, 0, 0, [(0, 3)])}
    lines = jacite_rescore.format_tables(groups).splitlines()
    assert lines[0].startswith("model lang | first release")  # the model column is at least 5 wide
    assert [part.strip() for part in lines[2].split("|")] == ["m     ja", "0/1", "0/0", "n/a", "n/a", "n/a",
                                                             "0/1 (0.0%; first release 0)"]
    assert lines[-4:] == ["", "Fisher exact, Japanese vs English (per mention):",  # no English rows for l: no test
                          "  m     JA 0/0 vs EN 1/2  ratio n/a  p = 1",              # no Japanese mention: no ratio
                          "  z     JA 0/2 vs EN 0/3  ratio n/a  p = n/a"]            # no invention at all: no p
    groups = {("model-x", "ja"): _group(2, 4, 2, 0, 1, [(1, 2), (1, 2)]),
              ("model-x", "en"): _group(2, 4, 0, 1, 2, [(0, 2), (0, 2)])}
    lines = jacite_rescore.format_tables(groups).splitlines()
    assert lines[-1] == f"  model-x JA 2/4 vs EN 0/4  ratio n/a  p = {fisher_exact([[2, 2], [0, 4]])[1]:.2g}"


def _rows(tmp_path, rows, name="benchmark.json"):
    path = tmp_path / name
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return path


BARE = {"gold_article": "1", "law": "民法", "response": None, "cited": [], "invented": [], "n_cited": 0, "n_invented": 0}


def test_row_defaults_and_the_rescore_defaults(tmp_path, capsys):
    rows = jacite_rescore.load_benchmark(_rows(tmp_path, [BARE]))
    assert {k: rows[0][k] for k in ("id", "model", "language", "response", "n_cited_v1")} == \
        {"id": "row0", "model": "unknown", "language": "?", "response": "", "n_cited_v1": 0}
    (row,) = jacite_rescore.rescore_rows(rows, load_registry())  # joined on the law's title
    assert (row["law_id"], row["extractor"], row["deleted_as"], row["cited"]) == ("129AC0000000089", "upstream", "real", [])
    assert jacite_rescore.main(_parser().parse_args([str(_rows(tmp_path, [BARE]))])) == 0
    assert "\nunknown ?    |    0/0       |    0/0      | " in capsys.readouterr().out
    v1 = {**BARE, "cited_v1": ["1", "2"], "invented_v1": ["2"]}
    (row,) = jacite_rescore.load_benchmark(_rows(tmp_path, [v1]))
    assert (row["n_cited_v1"], row["n_invented_v1"]) == (2, 1)  # counted from the lists when absent


def _error(tmp_path, rows, name="benchmark.json") -> str:
    with pytest.raises(PackError) as err:
        jacite_rescore.main(_parser().parse_args([str(_rows(tmp_path, rows, name))]))
    return str(err.value)


def test_errors_word_for_word(tmp_path):
    assert _error(tmp_path, {"rows": []}) == "benchmark.json: a benchmark file is a JSON list of rows, found a dict"
    no_gold = {k: v for k, v in BARE.items() if k != "gold_article"}
    assert _error(tmp_path, [no_gold], "b.json") == "b.json: row 0 (id ?): field 'gold_article' is missing or not a string"
    bad_v1 = {**BARE, "id": "q7", "cited_v1": [1], "invented_v1": []}
    assert _error(tmp_path, [bad_v1], "b.json") == \
        "b.json: row 0 (id q7): field 'cited_v1' is missing or not a list of article ids"
    for count in (-1, True):
        assert _error(tmp_path, [{**BARE, "cited_v1": [], "invented_v1": [], "n_invented_v1": count}], "b.json") == \
            "b.json: row 0 (id ?): field 'n_invented_v1' is not a count"
    assert _error(tmp_path, [{**BARE, "law_id": "999AC"}], "b.json") == \
        "b.json: row 0 (id row0): field 'law_id' '999AC' is not a law of the registry"
    rows = jacite_rescore.load_benchmark(_rows(tmp_path, [{**BARE, "law_id": "999AC"}], "b.json"))
    with pytest.raises(PackError, match=r"^benchmark.json: row 0 \(id row0\)"):  # the default name
        jacite_rescore.rescore_rows(rows, load_registry())


def test_option_values_are_checked_and_paths():
    args = _parser().parse_args(["b.json", "--out", "o.json", "--summary", "s.json"])
    assert (args.out, args.summary) == (Path("o.json"), Path("s.json"))
    for argv in (["b.json", "--mode", "loose"], ["b.json", "--deleted-as", "gone"]):
        with pytest.raises(SystemExit):
            _parser().parse_args(argv)


def _row(model, language):
    return {"model": model, "language": language, "n_cited": 1, "n_invented": 0, "n_real_not_gold": 0,
            "n_cited_v1": 1, "n_invented_v1": 0, "gold_article": "1", "cited": ["1"], "cited_v1": ["1"]}


def test_groups_by_model_short_name_japanese_first_then_english_then_by_name():
    rows = [_row("org/b", "en"), _row("a/x/a", "fr"), _row("a", "de"), _row("org/a", "en"), _row("a", "ja")]
    assert list(jacite_rescore.aggregate(rows)) == [("a", "ja"), ("a", "en"), ("a", "de"), ("a", "fr"), ("b", "en")]
