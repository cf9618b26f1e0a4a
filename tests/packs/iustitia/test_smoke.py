"""The card's smoke set found by content on copies of the dataset that differ from the fixtures."""

from __future__ import annotations

import json

import pytest
import yaml

from auditpacks.core.errors import PackError
from auditpacks.packs.codebook import DEFAULT_PATH
from auditpacks.runner.cli.main import main
from tests.support.iustitia import build_pack, copy_source, manifest, rows, write_rows

RENAMED = {"GUILTY.VERDICT": "VERDICT", "DEF.SUSPENDED_SENTENCE": "SENTENCE_SUSP", "VIC.PRESENT_AT_HEARING": "V.HEARD"}


def _rename(root, names):
    """The copy with question ids renamed everywhere they appear (tasks, task ids, questions)."""
    tasks = []
    for task in rows("tasks"):
        new = names.get(task["question_id"], task["question_id"])
        tasks.append({**task, "question_id": new, "task_id": task["task_id"].replace(task["question_id"], new)})
    write_rows(root, "tasks", tasks)
    write_rows(root, "questions", [{**q, "question_id": names.get(q["question_id"], q["question_id"])}
                                   for q in rows("questions")])


def _drop(root, question_id):
    write_rows(root, "tasks", [t for t in rows("tasks") if t["question_id"] != question_id])


def test_renamed_questions_are_found_by_what_they_ask(tmp_path):
    root = copy_source(tmp_path, smoke=False)
    _rename(root, RENAMED)
    pack = build_pack(tmp_path, "--smoke", source=root)
    # the first eligible task of each: the fixture's first canonical judgment domv901 and its first persons
    assert [s["name"] for s in pack] == ["VERDICT - domv901", "SENTENCE_SUSP - domv901_d1", "V.HEARD - domv901_v1"]


def test_the_count_question_is_not_the_verdict(tmp_path):
    # N_GUILTY_DEFENDANTS also mentions guilt (4 options); the yes/no question wins, whatever the names
    root = copy_source(tmp_path, smoke=False)
    _rename(root, {"GUILTY.VERDICT": "Q1", "N_GUILTY_DEFENDANTS": "Q0"})
    assert build_pack(tmp_path, "--smoke", source=root)[0]["name"] == "Q1 - domv901"


def test_a_missing_smoke_question_stops_the_build_with_one_line(tmp_path, capsys):
    root = copy_source(tmp_path, smoke=False)
    _drop(root, "DEF.SUSPENDED_SENTENCE")
    out = tmp_path / "out" / "smoke.json"
    assert main(["build", "iustitia", "--source", str(root), "--smoke", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "smoke question 'suspended sentence': no eligible question" in err
    assert "codebook.yaml" in err
    assert not out.exists()


def _codebook(tmp_path, monkeypatch, ids):
    book = yaml.safe_load(DEFAULT_PATH.read_text(encoding="utf-8"))
    book["iustitia"]["smoke"]["questions"][1]["ids"] = ids
    path = tmp_path / "codebook.yaml"
    path.write_text(yaml.safe_dump(book, allow_unicode=True), encoding="utf-8")
    monkeypatch.setenv("AUDITPACKS_CODEBOOK", str(path))


def test_two_equal_candidates_are_refused_until_one_is_pinned(tmp_path, monkeypatch):
    root = copy_source(tmp_path, smoke=False)
    twin = [{**t, "question_id": "DEF.SUSPENDED_TWIN", "task_id": t["task_id"] + "_TWIN"}
            for t in rows("tasks") if t["question_id"] == "DEF.SUSPENDED_SENTENCE"]
    write_rows(root, "tasks", rows("tasks") + twin)
    with pytest.raises(PackError) as err:
        build_pack(tmp_path, "--smoke", source=root, name="a.json")
    assert str(err.value) == ("smoke question 'suspended sentence': several questions fit equally "
                              "(DEF.SUSPENDED_SENTENCE, DEF.SUSPENDED_TWIN); pin its id under "
                              "iustitia.smoke.questions in codebook.yaml")
    _codebook(tmp_path, monkeypatch, ["NOT.IN.THIS.COPY", "DEF.SUSPENDED_TWIN"])
    pack = build_pack(tmp_path, "--smoke", source=root, name="b.json")
    assert [s["metadata"]["question_id"] for s in pack] == ["GUILTY.VERDICT", "DEF.SUSPENDED_TWIN",
                                                           "VIC.PRESENT_AT_HEARING"]


def test_a_short_published_smoke_file_is_refused_unless_accepted(tmp_path, capsys):
    root = copy_source(tmp_path)
    path = root / "simpleaudit" / "iustitia_marigonae_smoke3.json"
    path.write_text(json.dumps(json.loads(path.read_text(encoding="utf-8"))[:1]), encoding="utf-8")
    with pytest.raises(PackError, match=r"iustitia --smoke: asked for 3 scenarios, the selection has 1"):
        build_pack(tmp_path, "--smoke", source=root, name="a.json")
    assert len(build_pack(tmp_path, "--smoke", "--allow-fewer", source=root, name="b.json")) == 1
    assert "going on with 1 (--allow-fewer)" in capsys.readouterr().err


def test_a_limit_over_the_tasks_is_refused_unless_accepted(tmp_path):
    with pytest.raises(PackError, match=r"iustitia --limit 99: asked for 99 scenarios, the selection has 15"):
        build_pack(tmp_path, "--limit", "99", name="a.json")
    assert len(build_pack(tmp_path, "--limit", "99", "--allow-fewer", name="b.json")) == 15


@pytest.mark.parametrize("extra", [(), ("--allow-fewer",)])
def test_a_full_build_never_needs_the_smoke_questions(tmp_path, extra):
    root = copy_source(tmp_path, smoke=False)
    _drop(root, "DEF.SUSPENDED_SENTENCE")
    pack = build_pack(tmp_path, *extra, source=root)
    kept = [t for t in rows("tasks") if t["question_id"] != "DEF.SUSPENDED_SENTENCE"]
    assert len(pack) == len([t for t in kept if t["is_canonical"]])
    book = manifest(tmp_path)
    assert book["smoke"] == ["GUILTY.VERDICT - domv901", "VIC.PRESENT_AT_HEARING - domv901_v1"]
    assert len(book["smoke_missing"]) == 1
    assert book["smoke_missing"][0].startswith("smoke question 'suspended sentence': no eligible question")


def test_a_full_build_notes_smoke_file_tasks_this_copy_lacks(tmp_path):
    root = copy_source(tmp_path)
    listed = [s["metadata"]["task_id"] for s in json.loads((root / "simpleaudit" / "iustitia_marigonae_smoke3.json")
                                                             .read_text(encoding="utf-8"))]
    write_rows(root, "tasks", [t for t in rows("tasks") if t["task_id"] != listed[1]])
    build_pack(tmp_path, source=root)
    book = manifest(tmp_path)
    assert len(book["smoke"]) == 2
    assert book["smoke_missing"] == [f"smoke task {listed[1]}: not an eligible task of this track"]
