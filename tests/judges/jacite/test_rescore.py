"""``auditpacks rescore jacite``: the fixture benchmark.json, counts worked out by hand.

The fixture has 10 rows (2 models x ja/en) against the bundled 民法 registry. Eight
are rescored rows (``cited`` = the published extractor, ``*_v1`` = the first
release), one of them with ``cited_v1`` stored as a string; two are first-release
rows without ``*_v1`` fields. Per row (upstream cited / invented; full cited / invented):

* llm-jp ja q0000: 第一条, 第二条の二, 第千五十一条: [1, 2-2, 1051] / [2-2, 1051] in both modes;
  v1 adds a phantom 2 (4 mentions, 2 invented).
* llm-jp en q0001: Article 1, Articles 2 and 3, Art. 90: upstream [1] / []; full [1, 2, 3, 90] / [].
* llm-jp ja q0002: 第二条, 第１条, 第三条の二: [2, 1, 3-2] / [] in both; v1 [3-2, 2, 1, 3] (a string).
* llm-jp en q0003: Article 2, 3-2, 2-2: [2, 3-2, 2-2] / [2-2] in both; v1 the same.
* Qwen ja q0004: 第五条, 附則第一条, 第三十八条から第八十四条まで, 第五百十七条: upstream
  [5, 1, 38, 84, 517] / [84, 517] (84 and 517 were never registered); full [5, 附則1, 38, 84, 517] / [].
  Deleted placeholders as invented: 38, 84 and 517 invented in both modes.
* Qwen en q0005: Article 5, Articles 4 to 6, Article 6-2: upstream [5, 6-2] / [6-2]; full [5, 4, 6, 6-2] / [6-2].
* Qwen ja q0006: 第三条の二, 民法3条, 第２０８条, 第九十条の二の三: upstream [3-2, 208, 90-2-3] / [90-2-3];
  full adds 3 (4 mentions); deleted as invented adds 208. v1 [3-2, 90-2, 3, 208, 90] / [90-2].
* Qwen en q0007: Article 3-2, Article 3: [3-2, 3] / [] in both.
* llm-jp ja q0004 (first release): 第五条の二 only: [5-2] / [5-2]; v1 [5-2, 5] hit gold 5, corrected misses it.
* llm-jp en q0005 (first release): Article 5, Article 1051: [5, 1051] / [1051].
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from auditpacks.judges.jacite import rescore as jacite_rescore
from auditpacks.packs.jacite.registry import load_registry
from auditpacks.core.errors import PackError
from tests.support import paths

FIXTURES = paths.FIXTURES / "jacite"
BENCHMARK = FIXTURES / "benchmark.json"
LLMJP, QWEN = "llm-jp-3-1.8b-instruct3", "Qwen2.5-7B-Instruct"

# (model, language) -> (n_v1, inv_v1, n, inv, gold, gold_v1, questions)
UPSTREAM = {
    (LLMJP, "ja"): (10, 3, 7, 3, 2, 3, 3),
    (LLMJP, "en"): (6, 2, 6, 2, 3, 3, 3),
    (QWEN, "ja"): (10, 3, 8, 3, 2, 2, 2),
    (QWEN, "en"): (4, 1, 4, 1, 2, 2, 2),
}
FULL = {
    (LLMJP, "ja"): (10, 3, 7, 3, 2, 3, 3),
    (LLMJP, "en"): (6, 2, 9, 2, 3, 3, 3),
    (QWEN, "ja"): (10, 3, 9, 1, 2, 2, 2),
    (QWEN, "en"): (4, 1, 6, 1, 2, 2, 2),
}


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    jacite_rescore.add_arguments(parser)
    return parser.parse_args([*argv])


def _sums(mode: str, deleted_as: str = "real") -> dict:
    rows = jacite_rescore.rescore_rows(jacite_rescore.load_benchmark(BENCHMARK), load_registry(),
                                       mode=mode, deleted_as=deleted_as)
    return {k: tuple(g[f] for f in ("n_v1", "inv_v1", "n", "inv", "gold", "gold_v1", "q"))
            for k, g in jacite_rescore.aggregate(rows).items()}


@pytest.mark.parametrize("mode, expected", [("upstream", UPSTREAM), ("full", FULL)])
def test_counts_by_hand(mode, expected):
    assert _sums(mode) == expected


def test_deleted_as_invented_changes_only_the_japanese_qwen_rows():
    for mode, base, qwen_ja in (("upstream", UPSTREAM, (10, 3, 8, 5, 2, 2, 2)), ("full", FULL, (10, 3, 9, 5, 2, 2, 2))):
        assert _sums(mode, "invented") == {**base, (QWEN, "ja"): qwen_ja}


def _line(out: str, model: str, lang: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(model) and f" {lang} " in line)


def test_main_upstream(capsys, tmp_path):
    out_path = tmp_path / "rescored.json"
    assert jacite_rescore.main(_args(str(BENCHMARK), "--mode", "upstream", "--out", str(out_path))) == 0
    out = capsys.readouterr().out
    assert "10 rows, upstream extractor, registry bundled 民法 text" in out
    line = _line(out, LLMJP, "ja")
    assert "3/10" in line and "3/7" in line and "42.86% [15.8%, 75.0%]" in line and "2/3 (66.7%; first release 3)" in line
    assert "37.50% [13.7%, 69.4%]" in _line(out, QWEN, "ja")      # Wilson 3/8
    assert "25.00% [4.6%, 69.9%]" in _line(out, QWEN, "en")       # Wilson 1/4
    assert "33.33% [9.7%, 70.0%]" in _line(out, LLMJP, "en")      # Wilson 2/6
    assert f"{QWEN}     JA 3/8 vs EN 1/4  ratio 1.50  p = 1" in out
    assert "reproduces the recorded cited_v1 in 10/10 rows" in out

    rows = json.loads(out_path.read_text(encoding="utf-8"))
    assert len(rows) == 10
    q2 = next(r for r in rows if r["id"] == "q0002")
    assert q2["cited_v1"] == ["3-2", "2", "1", "3"] and q2["n_cited_v1"] == 4     # the string was parsed
    first = next(r for r in rows if r["id"] == "q0004" and r["model"].startswith("llm-jp"))
    assert first["cited_v1"] == ["5-2", "5"] and first["cited"] == ["5-2"] and first["real_not_gold"] == []
    q4 = next(r for r in rows if r["id"] == "q0004" and r["model"].startswith("Qwen"))
    assert (q4["cited"], q4["invented"], q4["real_not_gold"]) == (["5", "1", "38", "84", "517"], ["84", "517"], ["1", "38"])


def test_main_full(capsys):
    assert jacite_rescore.main(_args(str(BENCHMARK), "--mode", "full")) == 0
    out = capsys.readouterr().out
    assert "full extractor" in out
    assert "11.11% [2.0%, 43.5%]" in _line(out, QWEN, "ja")       # 1/9
    assert "22.22% [6.3%, 54.7%]" in _line(out, LLMJP, "en")      # 2/9
    assert f"{LLMJP} JA 3/7 vs EN 2/9  ratio 1.93  p = 0.6" in out


def test_main_deleted_as_invented(capsys):
    assert jacite_rescore.main(_args(str(BENCHMARK), "--mode", "upstream", "--deleted-as", "invented")) == 0
    assert "62.50% [30.6%, 86.3%]" in _line(capsys.readouterr().out, QWEN, "ja")   # 5/8


def test_registry_json_and_its_limits(capsys):
    assert jacite_rescore.main(_args(str(BENCHMARK), "--registry", str(FIXTURES / "mini_registry.json"))) == 0
    assert "registry mini_registry.json" in capsys.readouterr().out
    with pytest.raises(PackError, match="deleted placeholders are not marked"):
        jacite_rescore.main(_args(str(BENCHMARK), "--registry", str(FIXTURES / "mini_registry.json"),
                                  "--deleted-as", "invented"))


def _write(tmp_path, rows) -> Path:
    path = tmp_path / "benchmark.json"
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return path


ROW = {"id": "q0000", "model": "m/x", "language": "ja", "law": "民法", "law_id": "129AC0000000089",
       "gold_article": "1", "response": "第一条", "cited": ["1"], "invented": [], "n_cited": 1, "n_invented": 0}


@pytest.mark.parametrize("rows, message", [
    ({"rows": []}, "a JSON list of rows"),
    ([ROW, 3], "row 1 is a int"),
    ([{**ROW, "law_id": None, "law": "刑法"}], r"row 0 \(id q0000\): cannot tell which law"),
    ([{k: v for k, v in ROW.items() if k != "gold_article"}], "field 'gold_article' is missing"),
    ([{**ROW, "response": 5}], "field 'response' is not a string"),
    ([{k: v for k, v in ROW.items() if k != "n_cited"}], "field 'n_cited' is missing"),
    ([{**ROW, "cited_v1": "__import__('os').getcwd()", "invented_v1": []}], "field 'cited_v1' is a string that is not a list"),
    ([{**ROW, "cited_v1": "[1, 2]", "invented_v1": []}], "field 'cited_v1' is missing or not a list of article ids"),
    ([{**ROW, "cited_v1": [], "invented_v1": [], "n_cited_v1": "3"}], "field 'n_cited_v1' is not a count"),
    ([ROW, {**ROW, "id": "q0009", "law_id": "999AC"}], r"row 1 \(id q0009\): field 'law_id' '999AC' is not a law of the registry"),
])
def test_bad_benchmark(tmp_path, rows, message):
    with pytest.raises(PackError, match=message):
        jacite_rescore.main(_args(str(_write(tmp_path, rows))))


def test_invalid_json(tmp_path):
    path = tmp_path / "benchmark.json"
    path.write_text("[{", encoding="utf-8")
    with pytest.raises(PackError, match="benchmark.json: invalid JSON at line 1"):
        jacite_rescore.main(_args(str(path)))


def test_nothing_written_on_bad_input(tmp_path):
    out_path = tmp_path / "rescored.json"
    with pytest.raises(PackError):
        jacite_rescore.main(_args(str(_write(tmp_path, [ROW, {**ROW, "law_id": "999AC"}])), "--out", str(out_path)))
    assert not out_path.exists()


def test_through_the_command_line(capsys):
    from auditpacks.runner.cli import main as cli

    assert cli.main(["rescore", "jacite", str(BENCHMARK), "--mode", "full"]) == 0
    assert "full extractor" in capsys.readouterr().out
    assert cli.main(["rescore", "jacite", "nothere.json"]) == 2
    assert "nothere.json: benchmark file not found" in capsys.readouterr().err
