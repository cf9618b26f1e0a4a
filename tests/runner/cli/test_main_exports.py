"""Each benchmark's own format from a run: ``export jacite`` → ``rescore jacite`` and ``export iustitia`` →
``score iustitia`` give back the run's own figures (runs against the fake server, whose answers are fixed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditpacks.judges.jacite.export import export_rows
from auditpacks.judges.jacite.rescore import aggregate
from auditpacks.judges.statistics.stats import ratio_bootstrap, wilson_interval
from auditpacks.runner.cli.main import main
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import run_file, run_here
from tests.support.paths import FIXTURES


def citing_answer(model: str, messages: list) -> dict:
    """Japanese: the gold-ish article 1, an invented 9999 and a real 2; English: Article 1 and Article 8888."""
    text = str(messages[-1]["content"])
    if "第" in text or "民法" in text:
        return {"content": "民法第一条と第九千九百九十九条、そして第二条を参照してください。第九千九百九十九条です。"}
    return {"content": "See Article 1 of the Civil Code, and Article 8888."}


@pytest.fixture(scope="module")
def jacite_run(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("jacite")
    pack = folder / "jacite.json"
    assert main(["build", "jacite", "--out", str(pack), "--limit", "8"]) == 0
    with FakeOpenAI(answer=citing_answer) as server:
        assert run_here(pack, folder / "run", server.base_url) == 0
    return folder, run_file(folder / "run")


def test_export_jacite_then_rescore_gives_the_runs_own_figures(jacite_run, capsys):
    folder, record = jacite_run
    bench, rescored = folder / "benchmark.json", folder / "rescored.json"
    assert main(["export", "jacite", str(folder / "run" / "m.json"), "--out", str(bench)]) == 0
    assert "--mode full --deleted-as real" in capsys.readouterr().out
    assert main(["rescore", "jacite", str(bench), "--mode", "full", "--out", str(rescored)]) == 0
    printed = capsys.readouterr().out
    groups = aggregate(json.loads(rescored.read_text(encoding="utf-8")))
    headline = record["summary"]["headline"]
    languages = [lang for lang, value in headline.items() if lang != "ja_vs_en" and isinstance(value, dict)]
    assert sorted(languages) == ["en", "ja"]
    for lang in languages:
        g, h = groups[("m", lang)], headline[lang]
        assert (g["inv"], g["n"], g["gold"], g["q"]) == (h["invented"], h["cited"], h["gold_hit"], h["answered"])
        assert h["invented"] > 0 and h["cited"] > h["invented"]  # the planted answers cite real and invented articles
        assert list(wilson_interval(g["inv"], g["n"])) == pytest.approx(h["invented_wilson95"])
        _, low, high = ratio_bootstrap(*zip(*g["per_question"]))
        assert [low, high] == pytest.approx(h["invented_bootstrap95"])
        assert f"{100 * h['invented_rate']:5.2f}%" in printed


def test_export_jacite_rows_have_the_rescore_fields(jacite_run):
    folder, _ = jacite_run
    results = json.loads((folder / "run" / "m.json").read_text(encoding="utf-8"))
    rows, skipped, modes = export_rows(results, model="m")
    assert skipped == [] and modes == {("full", "real")} and len(rows) == len(results["results"])
    ja = next(r for r in rows if r["language"] == "ja")
    # 第一条, 第九千九百九十九条 (invented), 第二条, 第九千九百九十九条 again: four mentions, two invented
    assert ja["n_cited"] == 4 and ja["n_invented"] == 2 and ja["invented"] == ["9999", "9999"]


def test_export_iustitia_then_score_gives_the_runs_own_figures(tmp_path, capsys):
    pack = tmp_path / "iustitia.json"
    assert main(["build", "iustitia", "--source", str(FIXTURES / "iustitia"), "--out", str(pack)]) == 0
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "run", server.base_url) == 0
    headline = run_file(tmp_path / "run")["summary"]["headline"]
    predictions, scores = tmp_path / "predictions.jsonl", tmp_path / "scores.json"
    assert main(["export", "iustitia", str(tmp_path / "run" / "m.json"), "--out", str(predictions)]) == 0
    lines = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == headline["tasks"] == 15 and lines[0] == {"task_id": "domv901::GUILTY.VERDICT",
                                                                 "choice": lines[0]["choice"]}
    with_pack = tmp_path / "predictions-pack.jsonl"
    assert main(["export", "iustitia", str(tmp_path / "run" / "m.json"), "--pack", str(pack), "--out",
                 str(with_pack)]) == 0
    assert with_pack.read_text(encoding="utf-8") == predictions.read_text(encoding="utf-8")
    assert main(["score", "iustitia", "--pred", str(predictions), "--source", str(FIXTURES / "iustitia"),
                 "--out", str(scores)]) == 0
    scored = json.loads(scores.read_text(encoding="utf-8"))
    for key in ("tasks", "judgments", "correct", "answered", "micro", "macro", "coverage", "ci"):
        assert scored[key] == headline[key], key
    capsys.readouterr()
    assert main(["report", str(tmp_path / "run"), "--format", "md"]) == 0  # the report shows the run's own figures
    low, high = headline["ci"]["micro"]
    assert (f"| agreement (micro) | {100 * headline['micro']:.1f}% | [{100 * low:.1f}%, {100 * high:.1f}%]"
            in capsys.readouterr().out)


def test_report_of_the_jacite_run_counts_invented_and_real_but_wrong_mentions(jacite_run, capsys):
    folder, _ = jacite_run
    assert main(["report", str(folder / "run"), "--format", "md"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # ja: 4 answers × (1, 9999, 2, 9999) = 16 mentions, 8 invented; real but not gold: 2 (gold 1), 1 (gold 2),
    # 1 and 2 (gold 4), 1 and 2 (gold 5) = 6. en: 4 × (1, 8888) = 8 mentions, 4 invented; not gold: 0+1+1+1 = 3.
    ja = next(line for line in lines if line.startswith("| ja | 16 |"))
    en = next(line for line in lines if line.startswith("| en | 8 |"))
    assert "| 50.00% [" in ja and "| 37.50% [" in ja
    assert "| 50.00% [" in en and "| 37.50% [" in en
