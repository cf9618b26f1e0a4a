"""The ICJ build reconciles data/test.jsonl and data/inputs.jsonl with what the copy declares."""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.icj import builder as icj
from auditpacks.packs.pack import load_pack
from tests.support.paths import FIXTURES

FIX = FIXTURES / "icj"


def build(source, out, *extra):
    parser = argparse.ArgumentParser()
    icj.add_arguments(parser)
    return icj.build(parser.parse_args(["--source", str(source), "--out", str(out), *extra]))


def _copy(tmp_path):
    root = tmp_path / "src"
    shutil.copytree(FIX / "data", root / "data")
    shutil.copytree(FIX / "protocol", root / "protocol")
    return root


def test_the_manifest_records_rows_read_beside_dataset_infos(tmp_path):
    root = _copy(tmp_path)
    (root / "dataset_infos.json").write_text(json.dumps({"default": {"splits": {"test": {"num_examples": 5}}}}))
    manifest = load_pack(build(root, tmp_path / "p.json"), require_manifest=True).manifest
    assert manifest["read_report"]["tables"] == [
        {"table": "test", "files": ["data/test.jsonl"], "rows": 5, "declared": 5, "declared_by": "dataset_infos.json"},
        {"table": "inputs", "files": ["data/inputs.jsonl"], "rows": 5}]


def test_fewer_targets_than_declared_or_a_data_file_left_out_are_refused(tmp_path):
    root = _copy(tmp_path)
    (root / "dataset_infos.json").write_text(json.dumps({"default": {"splits": {"test": {"num_examples": 199}}}}))
    with pytest.raises(PackError) as err:
        build(root, tmp_path / "p.json")
    assert str(err.value) == ("data/test.jsonl: read 5 rows, dataset_infos.json declares 199 for test; "
                              "--allow-partial reads on and records it")
    assert not (tmp_path / "p.json").exists()
    (root / "dataset_infos.json").unlink()
    shutil.copy(root / "data" / "test.jsonl", root / "data" / "test-part2.jsonl")
    with pytest.raises(PackError, match=r"^data/test-part2\.jsonl: skipped \(not the inputs or the test file\)"):
        build(root, tmp_path / "p.json")
    manifest = load_pack(build(root, tmp_path / "p.json", "--allow-partial")).manifest
    assert manifest["read_report"]["skipped"] == [{"file": "data/test-part2.jsonl", "why": "not the inputs or the "
                                                   "test file", "looks_like_data": True}]


def test_a_file_sha256sums_lists_must_be_there_and_match(tmp_path):
    root = _copy(tmp_path)
    digest = hashlib.sha256((root / "data" / "test.jsonl").read_bytes()).hexdigest()
    (root / "SHA256SUMS").write_text(f"{digest}  data/test.jsonl\n{'0' * 64}  data/extra.jsonl\n")
    with pytest.raises(PackError, match=r"^data/extra\.jsonl: listed in SHA256SUMS beside the tables read, not in"):
        build(root, tmp_path / "p.json")
