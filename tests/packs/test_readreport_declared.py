"""What a source declares, case by case: README front matter, dataset_info(s).json, manifest.json, SHA256SUMS."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.readreport import Declared, checksums, data_files, declared_counts

CARD = "README.md dataset_info"
TWO_SPLITS = "dataset_info:\n  config_name: tasks\n  splits:\n  - name: train\n    num_examples: 7\n" \
             "  - name: test\n    num_examples: 3\n"


def _write(root, name, text):
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text if isinstance(text, str) else json.dumps(text), encoding="utf-8")


def _card(root, text):
    _write(root, "README.md", text)
    return declared_counts(root)


@pytest.mark.parametrize("text, found", [
    ("# card\n", {}),                                            # no front matter
    ("---\n- a\n- b\n---\n# card\n", {}),                        # front matter that is not a mapping
    ("---\n---\n# Card\nUsage: see: below\n", {}),               # empty front matter; the body is never YAML
    ("---\ndataset_info:\n  splits:\n  - name: train\n    num_examples: 12",   # never closed: read to the end
     {"default/train": Declared(12, CARD), "train": Declared(12, CARD, loose=True)}),
    ("---\ndataset_info:\n  splits: {train: {num_examples: 5}}\n---\n# Card\n\n---\nnotes: a: b\n",  # a rule later
     {"default/train": Declared(5, CARD), "train": Declared(5, CARD, loose=True)}),
    ("---\ndataset_info:\n  splits: null\n---\n", {}),
])
def test_the_front_matter_is_the_block_between_the_first_two_rules(tmp_path, text, found):
    assert _card(tmp_path, text) == found


def test_invalid_front_matter_is_one_line_naming_yamls_first_line(tmp_path):
    with pytest.raises(PackError) as err:
        _card(tmp_path, "---\ndataset_info: [\n---\n")
    assert str(err.value) == "README.md: invalid front matter: while parsing a flow node"


@pytest.mark.parametrize("split, found", [
    ("test", {"tasks/train": Declared(7, CARD), "tasks/test": Declared(3, CARD), "tasks": Declared(3, CARD)}),
    (None, {"tasks/train": Declared(7, CARD), "tasks/test": Declared(3, CARD)}),  # two splits: which is unknown
])
def test_a_configuration_is_declared_by_the_split_read(tmp_path, split, found):
    _write(tmp_path, "README.md", f"---\n{TWO_SPLITS}---\n")
    assert declared_counts(tmp_path, split) == found


def test_a_configuration_of_one_split_is_that_split_whichever_is_read(tmp_path):
    _write(tmp_path, "README.md", "---\ndataset_info:\n  config_name: docs\n  splits:\n  - name: train\n"
                                  "    num_examples: 4\n---\n")
    assert declared_counts(tmp_path)["docs"] == Declared(4, CARD)
    assert declared_counts(tmp_path, "test")["docs"] == Declared(4, CARD)


@pytest.mark.parametrize("name, data, found", [
    ("dataset_info.json", {"config_name": "cases", "splits": {"test": {"num_examples": 9}}},
     {"cases/test": Declared(9, "dataset_info.json"), "cases": Declared(9, "dataset_info.json")}),
    ("dataset_info.json", {"splits": {"test": {"num_examples": 9}}},
     {"default/test": Declared(9, "dataset_info.json"), "test": Declared(9, "dataset_info.json", loose=True)}),
    ("dataset_infos.json", {"cases": {"splits": [{"name": "test", "num_rows": 2}]}},
     {"cases/test": Declared(2, "dataset_infos.json"), "cases": Declared(2, "dataset_infos.json")}),
    ("dataset_infos.json", {"cases": {"splits": {"train": 7, "test": {"num_examples": 3}}}},
     {"cases/train": Declared(7, "dataset_infos.json"), "cases/test": Declared(3, "dataset_infos.json"),
      "cases": Declared(3, "dataset_infos.json")}),                            # the split read, of two
    ("dataset_infos.json", {"cases": [1], "other": {"splits": None}}, {}),
    ("manifest.json", [1], {}),
    ("manifest.json", {"counts": {"x": {"bytes": 5}, "y": {"count": 2}, "z": True}, "tables": [{"table": "t", "rows": 1}]},
     {"y": Declared(2, "manifest.json"), "t": Declared(1, "manifest.json")}),
])
def test_each_declaration_file(tmp_path, name, data, found):
    _write(tmp_path, name, data)
    assert declared_counts(tmp_path, "test") == found


def test_a_declaration_that_cannot_be_read_is_one_line(tmp_path):
    _write(tmp_path, "dataset_infos.json", "{")
    with pytest.raises(PackError) as err:
        declared_counts(tmp_path)
    assert str(err.value) == ("dataset_infos.json: cannot read what the source declares (Expecting property name "
                              "enclosed in double quotes: line 1 column 2 (char 1))")


def test_sha256sums_lines(tmp_path):
    digest = "ab" * 32
    _write(tmp_path, "SHA256SUMS", f"# published sums\n\n  # indented note\n{digest.upper()}  ./a.jsonl\n"
                                   f"{digest} *X1.jsonl\n{digest}  data/b.parquet\n")
    assert checksums(tmp_path) == {"a.jsonl": digest, "X1.jsonl": digest, "data/b.parquet": digest}
    assert checksums(tmp_path / "elsewhere") == {}


@pytest.mark.parametrize("text", ["{d}  a.jsonl\nabc  b.jsonl\n", "{d}  a.jsonl\n{d}\n"])
def test_a_bad_sha256sums_line_names_its_number(tmp_path, text):
    _write(tmp_path, "SHA256SUMS", text.format(d="0" * 64))
    with pytest.raises(PackError) as err:
        checksums(tmp_path)
    assert str(err.value) == "SHA256SUMS line 2: not a '<sha256>  <file>' line"


def test_data_files_are_the_data_suffixes_outside_hidden_folders(tmp_path):
    for name in ("b/t.parquet", "a.jsonl", "c.csv", "README.md", "x.json", ".cache/d.jsonl", ".e.jsonl", "f/.g/h.tsv"):
        _write(tmp_path, name, "")
    (tmp_path / "dir.arrow").mkdir()
    assert data_files(tmp_path) == [tmp_path / "a.jsonl", tmp_path / "b" / "t.parquet", tmp_path / "c.csv"]
