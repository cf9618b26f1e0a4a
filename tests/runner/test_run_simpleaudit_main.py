"""The card runner's command in process: its help, the card's pack taken when no ``--pack`` is given (said on
stderr), library chatter kept off stdout, the results file at the card's path only without ``--out``, the
summary table on stdout, the viewer line last, and a failed run as one line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.runner import run_simpleaudit
from tests.support.fake_openai import FakeOpenAI
from tests.support.tiny_pack import write_pack


def words(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_help_is_the_modules_doc_as_written_and_names_the_card_options(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "120")
    with pytest.raises(SystemExit) as stopped:
        run_simpleaudit.main(["--help"])
    assert stopped.value.code == 0
    shown = capsys.readouterr().out
    lines = shown.splitlines()
    assert "Run a scenario pack with SimpleAudit, with the flags the benchmark cards use." in lines
    # the examples keep their own lines (the description is not re-wrapped) and lose the doc's markup
    assert "    python runner/run_simpleaudit.py --smoke --target gpt-4o-mini" in lines
    assert "Without --pack it uses the pack of the card an installed benchmark declares (its plugin's card:" in lines
    assert "``" not in shown
    flat = words(shown)
    assert "--pack PACK scenario pack (default: the card's pack, from Hugging Face)" in flat
    assert ("--card BENCHMARK the benchmark whose card's pack runs without --pack (default: the one installed "
            "benchmark that declares a card)") in flat


def test_without_a_pack_the_named_cards_pack_runs_and_is_said_on_stderr(tmp_path, monkeypatch, capsys):
    pack, asked = write_pack(tmp_path / "card.json", 2), []
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run_simpleaudit, "card_benchmark", lambda name: asked.append(name) or ("bench", "CARD"))
    monkeypatch.setattr(run_simpleaudit, "local_pack", lambda card, smoke: asked.append((card, smoke)) and None)
    monkeypatch.setattr(run_simpleaudit, "card_pack",
                        lambda benchmark, card, smoke: asked.append((benchmark, card, smoke)) or pack)
    from auditpacks.runner.run import run as run_module
    real_run = run_module.run
    monkeypatch.setattr(run_module, "run", lambda config: print("library chatter") or real_run(config))
    with FakeOpenAI() as server:
        code = run_simpleaudit.main(["--card", "bench", "--target", "m", "--base-url", server.base_url,
                                     "--out", str(tmp_path / "out")])
    assert code == 0
    assert asked == ["bench", ("CARD", False), ("bench", "CARD", False)]
    said = capsys.readouterr()
    assert f"run_simpleaudit: pack {pack}" in said.err.splitlines()
    assert "run_simpleaudit: pack" not in said.out
    assert "library chatter" in said.err.splitlines() and "library chatter" not in said.out  # printed in the run
    assert not said.out.lstrip().startswith("{") and "scenarios" in said.out      # the summary table


def test_with_out_the_results_stay_there_and_nothing_goes_to_the_cards_path(tmp_path, monkeypatch, capsys):
    pack = write_pack(tmp_path / "tiny.json", 2)
    monkeypatch.chdir(tmp_path)
    with FakeOpenAI() as server:
        assert run_simpleaudit.main(["--pack", str(pack), "--target", "m", "--base-url", server.base_url,
                                     "--out", str(tmp_path / "out"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "run_simpleaudit: results" not in err and not (tmp_path / "results").exists()
    assert err.rstrip().splitlines()[-1] == ("auditpacks: view the results: uvx simpleaudit-studio "
                                             f"--visualize-only --results_dir {tmp_path / 'out'}")


def test_a_run_that_cannot_start_is_one_line_naming_why(tmp_path, monkeypatch, capsys):
    pack = write_pack(tmp_path / "tiny.json", 2)
    monkeypatch.chdir(tmp_path)
    assert run_simpleaudit.main(["--pack", str(pack), "--target", "m", "--base-url", "http://127.0.0.1:9/v1",
                                 "--quiet"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("auditpacks: ") and "127.0.0.1:9" in lines[0], lines
    assert not (tmp_path / "results").exists()


def test_a_card_that_cannot_be_found_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert run_simpleaudit.main(["--card", "no-such-benchmark", "--target", "m"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "no-such-benchmark" in lines[0], lines


def test_the_cards_results_folder_is_made_with_its_parents(tmp_path):
    source = tmp_path / "run.json"
    source.write_text(json.dumps({"results": []}), encoding="utf-8")
    target = run_simpleaudit.card_results(SimpleNamespace(model="qwen3:8b"), source, tmp_path / "a" / "b")
    assert target == tmp_path / "a" / "b" / "qwen3_8b.json" and target.read_bytes() == source.read_bytes()
    assert isinstance(target, Path)
