"""Helpers shared by the Iustitia tests (no tests here): the fixture source and a pack builder."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from auditpacks.packs.iustitia import builder as iustitia
from tests.support.paths import FIXTURES

FIXTURE = FIXTURES / "iustitia"
CONFIGS = ("tasks", "documents", "units", "questions")
SMOKE_FILE = "simpleaudit/iustitia_marigonae_smoke3.json"


def build_args(source, out, *argv: str, cache_dir=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    iustitia.add_arguments(parser)
    args = parser.parse_args(["--source", str(source), "--out", str(out), *argv])
    args.cache_dir = str(cache_dir) if cache_dir else None
    return args


def build_pack(tmp_path: Path, *argv: str, source=FIXTURE, name="pack.json") -> list[dict]:
    """Build from ``source`` into ``tmp_path/name`` and return the scenarios."""
    out = iustitia.build(build_args(source, tmp_path / name, *argv, cache_dir=tmp_path / "hf-cache"))
    return json.loads(out.read_text(encoding="utf-8"))


def manifest(tmp_path: Path, name="pack.json") -> dict:
    return json.loads((tmp_path / name.replace(".json", ".manifest.json")).read_text(encoding="utf-8"))


def rows(config: str) -> list[dict]:
    with open(FIXTURE / config / "test-00000-of-00001.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def copy_source(tmp_path: Path, *, smoke: bool = True) -> Path:
    """A writable copy of the fixture source (optionally without its smoke pack)."""
    root = tmp_path / "source"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("systemone"))
    if not smoke:
        shutil.rmtree(root / "simpleaudit")
    return root


def write_rows(root: Path, config: str, records: list[dict]) -> None:
    path = root / config / "test-00000-of-00001.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def parquet_source(tmp_path: Path) -> Path:
    """The fixtures as the hub lays them out: parquet shards and a README with ``configs:`` front matter."""
    import pyarrow.json as pj
    import pyarrow.parquet as pq

    root = tmp_path / "parquet-source"
    front = ["---", "configs:"]
    for config in CONFIGS:
        (root / config).mkdir(parents=True)
        table = pj.read_json(FIXTURE / config / "test-00000-of-00001.jsonl")
        pq.write_table(table, root / config / "test-00000-of-00001.parquet")
        front += [f"- config_name: {config}", *(["  default: true"] if config == "tasks" else []),
                  "  data_files:", "  - split: test", f"    path: {config}/test-*"]
    (root / "README.md").write_text("\n".join(front + ["---", "# Iustitia Marigonae (test copy)", ""]), encoding="utf-8")
    shutil.copytree(FIXTURE / "simpleaudit", root / "simpleaudit")
    return root
