"""Every builder builds from copies of its fixtures mutated the way a real dataset may differ.

Mutations: extra keys and columns, renamed keys the card does not name, keys in another
order, optional columns and files absent, a configuration shipped as JSONL instead of
parquet, several parquet shards. Plus the stale-cache case: two folders with the same
name and different rows each build their own rows, and the manifest hashes those bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from auditpacks.packs.icj import builder as icj
from auditpacks.packs.jacite import builder as jacite
from auditpacks.judges.jacite import rescore as jacite_rescore
from tests.support.iustitia import CONFIGS, build_pack, copy_source, manifest, parquet_source, rows
from tests.support.paths import FIXTURES

ICJ = FIXTURES / "icj"
JACITE = FIXTURES / "jacite"
CANONICAL = 15  # canonical fixture tasks


# -- Iustitia ------------------------------------------------------------------------------------

def _write_config(root: Path, config: str, records: list[dict], *, parquet: bool = False, shards: int = 1) -> None:
    folder = root / config
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    if not parquet:
        (folder / "test-00000-of-00001.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    size = -(-len(records) // shards)
    for i in range(shards):
        part = records[i * size:(i + 1) * size]
        pq.write_table(pa.Table.from_pylist(part), folder / f"test-{i:05d}-of-{shards:05d}.parquet")


def _mutate_state(task: dict, change) -> dict:
    state = json.loads(task["state_json"])
    return {**task, "state_json": json.dumps(change(state), ensure_ascii=False)}


def _rename(record: dict, old: str, new: str) -> dict:
    return {(new if k == old else k): v for k, v in record.items()}


def _extra(root: Path) -> None:
    _write_config(root, "tasks", [_mutate_state({**t, "split_v2": "test", "annotator": 3}, lambda s: {
        **s, "court_level": "Basic Court", "target_index": 1}) for t in rows("tasks")])
    _write_config(root, "documents", [{**d, "pages": 12, "ocr": False} for d in rows("documents")])
    _write_config(root, "questions", [{**q, "codebook_variable": q["question_id"]} for q in rows("questions")])


def _renamed(root: Path) -> None:
    tasks = [_mutate_state(t, lambda s: {(("target_person" if k == "target" else k)): v for k, v in s.items()})
             for t in rows("tasks")]
    tasks = [_rename(_rename(_rename(t, "unit_id", "unit"), "reference_origin", "origin"), "question_group", "group")
             for t in tasks]
    _write_config(root, "tasks", tasks)
    _write_config(root, "documents", [_rename(d, "source_url", "url") for d in rows("documents")])


def _reordered(root: Path) -> None:
    _write_config(root, "tasks", [_mutate_state(dict(reversed(t.items())), lambda s: dict(reversed(s.items())))
                                  for t in rows("tasks")])
    _write_config(root, "documents", [dict(reversed(d.items())) for d in rows("documents")])


def _optional_absent(root: Path) -> None:
    optional = {"unit_id", "unit_type", "question_group", "kind", "reference_json", "reference_origin",
                "legacy_split", "canonical_verdict_id", "clef_supported"}
    _write_config(root, "tasks", [{k: v for k, v in t.items() if k not in optional} for t in rows("tasks")])
    _write_config(root, "documents", [{"verdict_id": d["verdict_id"]} for d in rows("documents")])
    shutil.rmtree(root / "units")
    shutil.rmtree(root / "questions")


def _parquet_with_jsonl_tasks(root: Path) -> None:
    for config in CONFIGS:
        _write_config(root, config, rows(config), parquet=config != "tasks")
    readme = ["---", "configs:"] + [line for c in CONFIGS for line in (
        f"- config_name: {c}", "  data_files:", "  - split: test", f"    path: {c}/test-*")] + ["---", ""]
    (root / "README.md").write_text("\n".join(readme), encoding="utf-8")


def _sharded(root: Path) -> None:
    for config in CONFIGS:
        _write_config(root, config, rows(config), parquet=True, shards=3 if config == "tasks" else 1)


IUSTITIA_MUTATIONS = {"extra keys and columns": _extra, "renamed non-card keys": _renamed,
                      "keys in another order": _reordered, "optional columns absent": _optional_absent,
                      "tasks as JSONL beside parquet": _parquet_with_jsonl_tasks, "several parquet shards": _sharded}


@pytest.mark.parametrize("mutation", list(IUSTITIA_MUTATIONS))
def test_iustitia_builds_from_a_mutated_source(tmp_path, mutation):
    root = copy_source(tmp_path)
    IUSTITIA_MUTATIONS[mutation](root)
    pack = build_pack(tmp_path, source=root)
    assert [s["metadata"]["task_id"] for s in pack] == [t["task_id"] for t in rows("tasks") if t["is_canonical"]]
    d1 = next(s for s in pack if s["metadata"]["task_id"] == "domv901_d1::DEF.SUSPENDED_SENTENCE")
    assert "the first of two convicted defendants (A.K.)" in d1["test_prompt"]  # whatever the key is called
    assert d1["decision"]["accepted"] == ["yes"] and d1["documents"][0].startswith("[header]\n")
    if mutation == "extra keys and columns":
        assert "Court level: Basic Court" in d1["test_prompt"] and d1["decision"]["state"]["court_level"]
    if mutation == "renamed non-card keys":
        assert "Target person: the first of two convicted defendants (A.K.)" in d1["test_prompt"]
    if mutation == "optional columns absent":
        assert len(pack) == CANONICAL and "ËSHTË FAJTOR" in d1["metadata"]["judge_notes"][-1]
        assert [s["name"] for s in manifest(tmp_path)["sources"]] == [
            "tasks/test-00000-of-00001.jsonl", "documents/test-00000-of-00001.jsonl",
            "simpleaudit/iustitia_marigonae_smoke3.json"]


def test_iustitia_le26_track_from_shards(tmp_path):
    root = copy_source(tmp_path)
    _sharded(root)
    pack = build_pack(tmp_path, "--track", "le26", source=root)
    assert len(pack) == 12
    names = [s["name"] for s in manifest(tmp_path)["sources"]]
    assert [n for n in names if n.startswith("tasks/")] == [f"tasks/test-0000{i}-of-00003.parquet" for i in range(3)]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("layout", ["parquet", "jsonl"])
def test_same_folder_name_different_rows_never_reads_stale_data(tmp_path, layout):
    a = parquet_source(tmp_path / "A") if layout == "parquet" else copy_source(tmp_path / "A")
    b_parent = tmp_path / "B"
    b_parent.mkdir()
    b = b_parent / a.name
    shutil.copytree(a, b)
    changed = [dict(t, instructions=t["instructions"] + " (B)") for t in rows("tasks")]
    _write_config(b, "tasks", changed, parquet=layout == "parquet")
    first = build_pack(tmp_path, source=a, name="a.json")
    second = build_pack(tmp_path, source=b, name="b.json")
    assert not any("(B)" in s["decision"]["instructions"] for s in first)
    assert all(s["decision"]["instructions"].endswith("(B)") for s in second)
    tasks_file = next((b / "tasks").iterdir())
    entry = next(e for e in manifest(tmp_path, "b.json")["sources"] if e["name"].startswith("tasks/"))
    assert entry["sha256"] == _digest(tasks_file) and entry["bytes"] == tasks_file.stat().st_size


# -- ICJ -----------------------------------------------------------------------------------------

def _icj_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _icj_write(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


ICJ_MUTATIONS = {
    "extra keys": lambda i, t: ([{**r, "split": "test", "tokens": 812} for r in i],
                                [{**r, "gold_citation_judges": [], "notes": ""} for r in t]),
    "inputs without target ids": lambda i, t: ([{k: v for k, v in r.items() if k not in ("target_document_id",
                                                                                        "target_decision_date")}
                                                for r in i], t),
    "inputs without any id": lambda i, t: ([{k: v for k, v in r.items() if k not in ("target_document_id", "case_id",
                                                                                    "target_decision_date")}
                                            for r in i], t),
    "renamed description, no messages": lambda i, t: ([_rename({k: v for k, v in r.items() if k != "messages"},
                                                               "input", "case") for r in i], t),
    "keys in another order": lambda i, t: ([dict(reversed(r.items())) for r in i], [dict(reversed(r.items())) for r in t]),
    "no decision dates": lambda i, t: ([{k: v for k, v in r.items() if k != "target_decision_date"} for r in i],
                                       [{k: v for k, v in r.items() if k != "target_decision_date"} for r in t]),
}


@pytest.mark.parametrize("mutation", list(ICJ_MUTATIONS))
def test_icj_builds_from_a_mutated_source(tmp_path, mutation):
    src = tmp_path / "icj"
    shutil.copytree(ICJ, src)
    inputs, test = ICJ_MUTATIONS[mutation](_icj_rows(src / "data" / "inputs.jsonl"), _icj_rows(src / "data" / "test.jsonl"))
    _icj_write(src / "data" / "inputs.jsonl", inputs)
    _icj_write(src / "data" / "test.jsonl", test)
    parser = argparse.ArgumentParser()
    icj.add_arguments(parser)
    out = icj.build(parser.parse_args(["--source", str(src), "--out", str(tmp_path / "p.json")]))
    pack = json.loads(out.read_text(encoding="utf-8"))
    assert [s["metadata"]["target_document_id"] for s in pack] == [r["target_document_id"] for r in _icj_rows(ICJ / "data" / "test.jsonl")]
    corfu = pack[0]
    assert corfu["metadata"]["gold_citation_provision_keys"][0] == "rules:article_68"
    if mutation == "no decision dates":
        assert corfu["metadata"]["target_decision_date"] is None and "its final decision" in corfu["description"]


def test_icj_checksums_are_verified(tmp_path):
    from auditpacks.core.errors import PackError

    src = tmp_path / "icj"
    shutil.copytree(ICJ, src)
    good = {name: _digest(src / name) for name in ("data/inputs.jsonl", "data/test.jsonl")}
    (src / "SHA256SUMS").write_text("".join(f"{h}  {n}\n" for n, h in good.items()) + f"{'0' * 64}  results/x\n")
    parser = argparse.ArgumentParser()
    icj.add_arguments(parser)
    icj.build(parser.parse_args(["--source", str(src), "--out", str(tmp_path / "p.json")]))
    assert "SHA256SUMS" in [e["name"] for e in json.loads((tmp_path / "p.manifest.json").read_text())["sources"]]
    (src / "SHA256SUMS").write_text(f"{'ab' * 32}  data/test.jsonl\n")
    with pytest.raises(PackError, match=r"^data/test\.jsonl: sha256 does not match SHA256SUMS"):
        icj.build(parser.parse_args(["--source", str(src), "--out", str(tmp_path / "q.json")]))
    assert not (tmp_path / "q.json").exists()


# -- jacite --------------------------------------------------------------------------------------

JACITE_MUTATIONS = {
    "extra keys": lambda q: [{**r, "difficulty": "easy", "template": 2} for r in q],
    "renamed non-card keys": lambda q: [_rename(_rename({k: v for k, v in r.items() if k != "law_id"}, "id", "qid"),
                                                "language", "lang") for r in q],
    "keys in another order": lambda q: [dict(reversed(r.items())) for r in q],
    "optional keys absent": lambda q: [{"question": r["question"], "gold_article": r["gold_article"]} for r in q],
}


@pytest.mark.parametrize("mutation", list(JACITE_MUTATIONS))
def test_jacite_builds_from_mutated_questions(tmp_path, mutation):
    src = tmp_path / "jacite"
    src.mkdir()
    shutil.copy(JACITE / "registry.json", src / "registry.json")
    questions = json.loads((JACITE / "questions.json").read_text(encoding="utf-8"))
    registry = json.loads((JACITE / "registry.json").read_text(encoding="utf-8"))
    if len(registry["laws"]) > 1 and mutation == "optional keys absent":
        registry["laws"] = registry["laws"][:1]  # no law named anywhere: only a one-law registry can join
        (src / "registry.json").write_text(json.dumps(registry, ensure_ascii=False), encoding="utf-8")
        questions = [q for q in questions if q["law_id"] == registry["laws"][0]["law_id"]]
    (src / "questions.json").write_text(json.dumps(JACITE_MUTATIONS[mutation](questions), ensure_ascii=False),
                                        encoding="utf-8")
    parser = argparse.ArgumentParser()
    jacite.add_arguments(parser)
    out = jacite.build(parser.parse_args(["--source", str(src), "--out", str(tmp_path / "p.json")]))
    pack = json.loads(Path(out).read_text(encoding="utf-8"))
    assert [s["metadata"]["gold_article"] for s in pack] == [q["gold_article"] for q in questions]
    assert [s["metadata"]["language"] for s in pack] == [q["language"] for q in questions]  # read from the text


def test_jacite_rescore_without_optional_row_keys(tmp_path, capsys):
    rows_ = json.loads((JACITE / "benchmark.json").read_text(encoding="utf-8"))
    slim = [{k: v for k, v in r.items() if k not in ("law_id", "law", "elapsed")} for r in rows_]
    path = tmp_path / "benchmark.json"
    path.write_text(json.dumps(slim, ensure_ascii=False), encoding="utf-8")
    parser = argparse.ArgumentParser()
    jacite_rescore.add_arguments(parser)
    assert jacite_rescore.main(parser.parse_args([str(path)])) == 0
    assert "10 rows, full extractor" in capsys.readouterr().out
