"""Runner pieces without a model: journal, selection, configuration, CLI errors."""

from __future__ import annotations

import json
import socket

import pytest

from auditpacks.judges.reader import Reader
from auditpacks.packs.pack import Pack, PackWriter
from auditpacks.runner.scenarios import selection as select
from auditpacks.runner.cli.main import main
from auditpacks.runner.settings.config import model_slug
from auditpacks.runner.store.journal import Journal, JournalError, scenario_key
from tests.packs.test_pack import scenario
from tests.support.run_config import run_config


def test_scenario_key_changes_with_any_edit():
    s = scenario(1)
    edited = {**s, "test_prompt": s["test_prompt"] + " "}
    assert scenario_key(s) == scenario_key(dict(reversed(list(s.items()))))
    assert scenario_key(s) != scenario_key(edited)


def test_journal_survives_a_torn_last_line(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    with Journal(path, "fp").open() as journal:
        journal.append("k1", "a", {"severity": "pass"})
        journal.append("k2", "b", {"severity": "ERROR"})
    with open(path, "a") as fh:
        fh.write('{"key": "k3", "name": "c", "res')  # killed mid-write
    reopened = Journal(path, "fp").open()
    assert set(reopened.done) == {"k1", "k2"}
    reopened.append("k3", "c", {"severity": "pass"})
    reopened.close()
    assert set(Journal(path, "fp").open().done) == {"k1", "k2", "k3"}


def test_journal_of_other_settings_is_refused(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    Journal(path, "fp-a").open().close()
    with pytest.raises(JournalError, match="m.journal.jsonl: made by a run with other settings"):
        Journal(path, "fp-b").open()
    assert Journal(path, "fp-b").open(resume=False).done == {}


def test_selection_smoke_per_question_and_limit(tmp_path):
    scenarios = [scenario(i, metadata={"question_id": f"Q{i % 3}"}) for i in range(9)]
    pack = Pack(path=tmp_path / "p.json", scenarios=scenarios, manifest={"smoke": [scenarios[4]["name"]]}, sha256="")
    assert select.select(pack, smoke=True) == [scenarios[4]]
    question = Reader.of("grounding").question   # jacite's questions: metadata.question_id
    sampled = select.select(pack, per_question_n=1, seed=3, question=question)
    assert sorted(s["metadata"]["question_id"] for s in sampled) == ["Q0", "Q1", "Q2"]
    assert sampled == select.select(pack, per_question_n=1, seed=3, question=question)
    assert select.select(pack, limit=2) == scenarios[:2]


def test_public_settings_never_hold_a_key():
    config = run_config(pack="p.json", api_key="sk-secret", judge_api_key="sk-judge")
    text = json.dumps(config.public(), default=str)
    assert "sk-secret" not in text and "sk-judge" not in text


def test_model_slug():
    assert model_slug("qwen3:8b") == "qwen3_8b"
    assert model_slug("typesafe/jev-1.13") == "typesafe_jev-1.13"


def test_check_exits_1_on_a_duplicate_name(tmp_path, capsys):
    path = tmp_path / "dup.json"
    path.write_text(json.dumps([scenario(1), scenario(2, name="Topic 1 - Concern")]))
    assert main(["check", str(path)]) == 1
    assert "ERROR #1 'Topic 1 - Concern' [name]: duplicates the name of record #0" in capsys.readouterr().out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_base_url_is_one_line_and_writes_nothing(tmp_path, capsys):
    pack = tmp_path / "p.json"
    with PackWriter(pack, builder="test", extra={"grading": {"judge": "choice_match"}}) as writer:
        writer.add(scenario(1))
    url = f"http://127.0.0.1:{free_port()}/v1"
    out = tmp_path / "out"
    code = main(["run", "--pack", str(pack), "--target", "m", "--base-url", url, "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.startswith(f"auditpacks: error: cannot reach {url}") and "\n" not in err
    assert not out.exists()
