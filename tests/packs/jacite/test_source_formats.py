"""jacite questions in every format a copy may hold them in, read whole; an unreadable file is an error."""

from __future__ import annotations

import json
import shutil

import pytest
from datasets import Dataset

from auditpacks.packs.pack import load_pack
from auditpacks.runner.cli.main import main
from tests.support import paths

FIXTURES = paths.FIXTURES / "jacite"
QUESTIONS = json.loads((FIXTURES / "questions.json").read_text(encoding="utf-8"))


def _copy(tmp_path):
    root = tmp_path / "src"
    root.mkdir()
    shutil.copy(FIXTURES / "registry.json", root / "registry.json")
    return root


def _to_json(root, name):
    Dataset.from_list(QUESTIONS).to_json(str(root / name), force_ascii=False)  # JSON Lines, as datasets writes


def _to_parquet(root, name):
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    half = len(QUESTIONS) // 2  # two part files of one table
    Dataset.from_list(QUESTIONS[:half]).to_parquet(str(root / name))
    Dataset.from_list(QUESTIONS[half:]).to_parquet(str(root / name.replace("00000-of", "00001-of")))


@pytest.mark.parametrize("write, name", [
    (_to_json, "questions.jsonl"),
    (_to_json, "questions.json"),        # to_json writes JSON Lines whatever the file is called
    (_to_json, "data/questions.jsonl"),  # a clone of the repository: under data/
    (_to_parquet, "questions/train-00000-of-00002.parquet"),
])
def test_every_question_of_the_file_is_built(tmp_path, write, name):
    root = _copy(tmp_path)
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    write(root, name)
    out = tmp_path / "pack.json"
    assert main(["build", "jacite", "--source", str(root), "--out", str(out)]) == 0
    pack = load_pack(out)
    assert [s["test_prompt"] for s in pack.scenarios] == [q["question"] for q in QUESTIONS]
    assert [s["metadata"]["gold_article"] for s in pack.scenarios] == [q["gold_article"] for q in QUESTIONS]
    assert not pack.manifest["questions"].startswith("generated")


@pytest.mark.parametrize("name, content", [
    ("questions.jsonl", '{"id": "q1", "question": "x"\n'),
    ("questions.json", "[{\"id\": \"q1\", "),
    ("questions.jsonl", ""),
    ("questions/part-00000.parquet", "not parquet"),
])
def test_a_questions_file_that_cannot_be_read_is_an_error_never_a_fallback(tmp_path, capsys, name, content):
    root = _copy(tmp_path)
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(content, encoding="utf-8")
    out = tmp_path / "pack.json"
    assert main(["build", "jacite", "--source", str(root), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and name.split("/")[-1] in err
    assert not out.exists()


def test_questions_are_reconciled_with_the_copys_declared_count(tmp_path, capsys):
    root = _copy(tmp_path)
    _to_json(root, "questions.jsonl")
    n = len(QUESTIONS)
    (root / "README.md").write_text("---\ndataset_info:\n- config_name: questions\n  splits:\n  - name: train\n"
                                    f"    num_examples: {n + 1}\n---\n", encoding="utf-8")
    out = tmp_path / "pack.json"
    capsys.readouterr()  # datasets' progress bars
    assert main(["build", "jacite", "--source", str(root), "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip() == (f"auditpacks: error: questions.jsonl: read {n} rows, README.md "
                                               f"dataset_info declares {n + 1} for questions; --allow-partial reads "
                                               "on and records it")
    assert not out.exists()
    assert main(["build", "jacite", "--source", str(root), "--out", str(out), "--allow-partial"]) == 0
    report = load_pack(out).manifest["read_report"]
    assert report["tables"][1] == {"table": "questions", "files": ["questions.jsonl"], "rows": n,
                                   "declared": n + 1, "declared_by": "README.md dataset_info"}
    assert len(report["warnings"]) == 1


def test_a_second_questions_file_left_out_is_an_error(tmp_path, capsys):
    root = _copy(tmp_path)
    _to_json(root, "questions.jsonl")
    (root / "extra").mkdir()
    _to_json(root, "extra/more_questions.jsonl")
    assert main(["build", "jacite", "--source", str(root), "--out", str(tmp_path / "p.json")]) == 2
    assert "extra/more_questions.jsonl: skipped (not the questions table read), and it looks like data" in \
        capsys.readouterr().err
