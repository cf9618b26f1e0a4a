"""``runner/run_simpleaudit.py``: the benchmark cards' runner, as a plain script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditpacks.core.runs.run_files import LATEST_NAME, results_name
from auditpacks.runner.cli.main import main
from tests.support.paths import ROOT

SCRIPT = ROOT / "runner" / "run_simpleaudit.py"


def script(*argv: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *argv], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


def test_without_a_pack_and_offline_it_says_what_to_do(tmp_path):
    done = script("--smoke", "--target", "gpt-4o-mini", cwd=tmp_path,
                  env={"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "hf:Kushtrim/iustitia-marigonae" in lines[0]
    assert "hf auth login" in lines[0] and "--pack" in lines[0]
    assert not (tmp_path / "results").exists()


@pytest.mark.model
def test_smoke_on_a_local_pack_writes_results_like_the_card(tmp_path, embedded_model):
    pack = tmp_path / "jacite.json"
    assert main(["build", "jacite", "--out", str(pack)]) == 0
    done = script("--smoke", "--pack", str(pack), "--target", "smollm2", "--base-url", embedded_model.base_url,
                  "--api-key", "local", "--max-tokens", "16", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "judge grounding" in done.stdout
    saved = json.loads((tmp_path / "results" / "jacite" / LATEST_NAME / results_name("smollm2")).read_text())
    assert len(saved["results"]) == 3
    assert json.loads((tmp_path / "results" / "smollm2.json").read_text())["results"] == saved["results"]


def dead_endpoint() -> str:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_an_unreachable_hub_is_reported_in_one_line_without_retries(tmp_path):
    done = script("--smoke", "--target", "gpt-4o-mini", cwd=tmp_path,
                  env={"HF_ENDPOINT": dead_endpoint(), "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "0"})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach 127.0.0.1" in lines[0]
    assert "hf auth login" in lines[0] and "--pack" in lines[0] and "auditpacks build jacite" in lines[0]


def test_a_locally_built_iustitia_pack_is_used_without_the_hub(tmp_path):
    fixtures = ROOT / "tests" / "fixtures" / "iustitia"
    assert main(["build", "iustitia", "--source", str(fixtures), "--out", str(tmp_path / "iustitia.json")]) == 0
    # no server either: the run stops at the target, after the pack was found locally
    done = script("--smoke", "--target", "m", "--base-url", dead_endpoint() + "/v1", "--api-key", "k", cwd=tmp_path,
                  env={"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")})
    assert done.returncode == 2
    assert "run_simpleaudit: pack iustitia.json" in done.stderr
    assert "hf:Kushtrim" not in done.stderr


def test_decision_openrouter_honours_base_url():
    from auditpacks.runner.systemone.decision import make_decision_target

    target = make_decision_target("openrouter", "typesafe/jev", base_url="http://127.0.0.1:9/api/v1", api_key="k")
    assert target.url == "http://127.0.0.1:9/api/v1/systemone"
    assert make_decision_target("openrouter", "m", api_key="k").url == "https://openrouter.ai/api/v1/systemone"


def test_the_last_line_is_the_studio_viewer_command_for_the_results_folder(tmp_path):
    from tests.support.fake_openai import FakeOpenAI
    from tests.support.tiny_pack import write_pack

    pack = write_pack(tmp_path / "tiny.json", 2)
    with FakeOpenAI() as server:
        done = script("--pack", str(pack), "--target", "m", "--base-url", server.base_url, "--out",
                      str(tmp_path / "out"), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.rstrip().splitlines()[-1] == ("auditpacks: view the results: uvx simpleaudit-studio "
                                                     f"--visualize-only --results_dir {tmp_path / 'out'}")
    assert "simpleaudit serve" not in done.stdout + done.stderr


def test_results_go_to_results_model_json_as_the_card_says(tmp_path, monkeypatch, capsys):
    from simpleaudit import AuditResults

    from auditpacks.core.runs.run_files import LATEST_NAME, results_name
    from auditpacks.runner import run_simpleaudit
    from auditpacks.runner.settings.config import model_stem
    from auditpacks.runner.store.layout import pack_folder
    from tests.support.fake_openai import FakeOpenAI
    from tests.support.tiny_pack import write_pack

    monkeypatch.chdir(tmp_path)
    pack = write_pack(tmp_path / "tiny.json", 3)
    with FakeOpenAI() as server:
        assert run_simpleaudit.main(["--pack", str(pack), "--target", "qwen3:8b", "--base-url", server.base_url,
                                     "--quiet"]) == 0
    card = tmp_path / "results" / "qwen3_8b.json"  # the card's AuditResults.load("results/qwen3_8b.json")
    assert len(AuditResults.load(str(card))) == 3
    assert "run_simpleaudit: results results/qwen3_8b.json" in capsys.readouterr().err
    # the project's own layout is kept beside it: results/<pack>/<stem>.json with the same results
    own = pack_folder(pack) / LATEST_NAME / results_name(model_stem("qwen3:8b"))
    assert own.parent.parent.name == "tiny" and own.name != "qwen3_8b.json"
    assert json.loads(own.read_text())["results"] == json.loads(card.read_text())["results"]


@pytest.mark.parametrize("where", ["simpleaudit/iustitia_marigonae_smoke3.json", "iustitia_marigonae_smoke3.json"])
def test_the_cards_own_smoke_file_runs_its_three_scenarios(tmp_path, monkeypatch, where):
    """The card's smoke file is a plain list of 3 scenarios with no manifest: ``--smoke`` runs all three,
    where ``hf download`` puts it and in ``simpleaudit/`` itself (the card runs ``cd simpleaudit``)."""
    from auditpacks.runner import run_simpleaudit
    from tests.support.fake_openai import FakeOpenAI

    card_file = ROOT / "tests" / "fixtures" / "iustitia" / "simpleaudit" / "iustitia_marigonae_smoke3.json"
    names = [s["name"] for s in json.loads(card_file.read_text(encoding="utf-8"))]
    assert len(names) == 3
    (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / where).write_bytes(card_file.read_bytes())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with FakeOpenAI() as server:
        assert run_simpleaudit.main(["--smoke", "--target", "m", "--base-url", server.base_url, "--quiet"]) == 0
        assert server.chat_requests == 3
    saved = json.loads((tmp_path / "results" / "m.json").read_text(encoding="utf-8"))
    assert sorted(r["scenario_name"] for r in saved["results"]) == sorted(names)


def test_the_cards_full_file_runs_per_question_and_is_no_smoke_set(tmp_path, monkeypatch, capsys):
    """The card's full file (a plain list, no manifest) runs as the card says with ``--per-question 1``; for
    ``--smoke`` it is passed over (it names no smoke set) and the smoke file is looked for in the cache/hub."""
    from auditpacks.runner import run_simpleaudit
    from tests.support.fake_openai import FakeOpenAI

    card_file = ROOT / "tests" / "fixtures" / "iustitia" / "simpleaudit" / "iustitia_marigonae_smoke3.json"
    scenarios = json.loads(card_file.read_text(encoding="utf-8"))
    (tmp_path / "simpleaudit").mkdir()
    (tmp_path / "simpleaudit" / "iustitia_marigonae.json").write_text(json.dumps(scenarios), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    questions = {s["metadata"]["question_id"] for s in scenarios}
    with FakeOpenAI() as server:
        assert run_simpleaudit.main(["--per-question", "1", "--target", "m", "--base-url", server.base_url,
                                     "--quiet"]) == 0
        assert server.chat_requests == len(questions)
        capsys.readouterr()
        assert run_simpleaudit.main(["--smoke", "--target", "m", "--base-url", server.base_url, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert "hf:Kushtrim/iustitia-marigonae/simpleaudit/iustitia_marigonae_smoke3.json" in err
        assert server.chat_requests == len(questions)
