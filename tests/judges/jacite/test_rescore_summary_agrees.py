"""A run's grounding headline and ``rescore`` grade the same replies alike and name the extractor.

The replies are the fixture benchmark's responses; each is graded the way a run grades it
(the pack manifest's registry, the judge's default settings) and the pooled headline is
compared with ``rescore --summary`` on the same rows. The real-but-not-gold counts are
worked out by hand for one model (see test_jacite_rescore.py for the per-row citations).
"""

from __future__ import annotations

import argparse
import json

from auditpacks.judges.jacite import grounding
from auditpacks.judges.jacite import rescore as jacite_rescore
from auditpacks.judges.statistics.stats import wilson_interval
from auditpacks.packs.jacite.numerals import DEFAULT_MODE
from auditpacks.packs.jacite.registry import load_registry, registry_to_manifest
from tests.support.paths import FIXTURES

BENCHMARK = FIXTURES / "jacite" / "benchmark.json"
QWEN = "Qwen/Qwen2.5-7B-Instruct"


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    jacite_rescore.add_arguments(parser)
    return parser.parse_args([*argv])


def _run_headline(rows: list[dict]) -> dict:
    return grounding.headline([(scenario, result) for scenario, result in _pairs(rows)])


def _graded(rows: list[dict]) -> list[dict]:
    """The result dicts a run stores (each judgment names its extractor)."""
    return [result for _, result in _pairs(rows)]


def _pairs(rows: list[dict]) -> list[tuple[dict, dict]]:
    manifest = {"grading": {"judge": "grounding", "registry": registry_to_manifest(load_registry())}}
    judge = grounding.make_judge(manifest)  # the run's default settings
    pairs = []
    for row in rows:
        scenario = {"name": row["id"], "severity": "medium",
                    "metadata": {"law_id": row["law_id"], "gold_article": row["gold_article"],
                                 "language": row["language"], "question_id": row["id"]}}
        judgment = judge["grade"](conversation=[{"role": "assistant", "content": row["response"]}],
                                  scenario_meta=scenario)
        pairs.append((scenario, {"scenario_name": row["id"], "severity": judgment["severity"], "judgment": judgment}))
    return pairs


def test_run_headline_and_rescore_agree_and_name_the_extractor(tmp_path, capsys):
    rows = [r for r in json.loads(BENCHMARK.read_text(encoding="utf-8")) if r["model"] == QWEN]
    path = tmp_path / "benchmark.json"
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    summary_path = tmp_path / "summary.json"
    assert jacite_rescore.main(_args(str(path), "--summary", str(summary_path), "--out", str(tmp_path / "r.json"))) == 0
    printed = capsys.readouterr().out
    assert f"{DEFAULT_MODE} extractor" in printed
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    headline = _run_headline(rows)
    assert headline["extractor"] == summary["extractor"] == DEFAULT_MODE == "full"
    assert headline["deleted_as"] == summary["deleted_as"] == "real"
    assert {k: v for k, v in headline.items() if k not in ("extractor", "deleted_as")} == summary["models"][QWEN]
    assert all(r["extractor"] == "full" for r in json.loads((tmp_path / "r.json").read_text(encoding="utf-8")))
    assert all(j["judgment"]["extractor"] == "full" for j in _graded(rows))


def test_real_not_gold_rate_by_hand():
    """Qwen, full extractor, deleted placeholders real (per-row lists in test_jacite_rescore.py):

    ja q0004 gold 5: [5, 附則1, 38, 84, 517] → 附則1, 38, 84, 517 exist and are not gold: 4.
    ja q0006 gold 3-2: [3-2, 3, 208, 90-2-3] → 3 and 208 exist; 90-2-3 is invented: 2.
    So ja: 6 of 9 mentions. en q0005 gold 5: [5, 4, 6, 6-2] → 4, 6: 2; en q0007 gold 3-2: [3-2, 3] → 3: 1.
    So en: 3 of 6 mentions.
    """
    rows = [r for r in json.loads(BENCHMARK.read_text(encoding="utf-8")) if r["model"] == QWEN]
    headline = _run_headline(rows)
    assert (headline["ja"]["real_not_gold"], headline["ja"]["cited"]) == (6, 9)
    assert (headline["en"]["real_not_gold"], headline["en"]["cited"]) == (3, 6)
    assert headline["ja"]["real_not_gold_rate"] == 6 / 9
    assert headline["ja"]["real_not_gold_wilson95"] == list(wilson_interval(6, 9))
    # invented + real-not-gold + gold mentions = cited
    assert headline["ja"]["invented"] + 6 + 2 == 9


def test_summary_table_shows_the_rate_and_names_the_extractor():
    from auditpacks.judges.reader import Reader

    rows = [r for r in json.loads(BENCHMARK.read_text(encoding="utf-8")) if r["model"] == QWEN]
    shown = {(f.group, f.name): f for f in Reader.of("grounding").figures(_run_headline(rows))}
    assert shown[("ja", "real but not gold rate")].value == 6 / 9
    # the same method as the report's per-language table: resample ja's two questions (4 of 5, 2 of 4);
    # a replicate is both q0004 (8/10), both q0006 (4/8) or one each (6/9): percentiles 0.5 and 0.8
    assert shown[("ja", "real but not gold rate")].interval == (0.5, 0.8)
    assert shown[("ja", "real but not gold rate")].interval_name == "95% CI, bootstrap over questions"
    assert "full extractor" in shown[("ja", "invented rate")].meaning
