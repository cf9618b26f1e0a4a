"""The pack writer's manifest, bytes and temporary file, a source's entry, and the reader's one-line errors."""

from __future__ import annotations

import datetime as dt
import json
from importlib.metadata import version

import pytest

from auditpacks.core.errors import PackError
from auditpacks.core.io import sha256_file
from auditpacks.packs import pack as packs
from auditpacks.packs.pack import PackWriter, load_pack, manifest_path, replacing, source_entry
from tests.packs.test_pack import scenario


def test_the_manifest_names_the_pack_its_bytes_builder_versions_sources_filters_and_counts(tmp_path):
    out = tmp_path / "new" / "dir" / "p.json"
    with PackWriter(out, builder="b", sources=[{"name": "s.csv"}], filters={"limit": 2},
                    extra={"benchmark": "jacite"}) as writer:
        writer.add(scenario(0, description="日本語の説明です。"), language="ja")
        writer.add_all([scenario(1)])
    manifest = json.loads(manifest_path(out).read_text(encoding="utf-8"))
    created = dt.datetime.fromisoformat(manifest.pop("created"))
    assert created.utcoffset() == dt.timedelta(0) and created.microsecond == 0
    assert manifest == {"manifest_version": 1, "pack": "p.json", "sha256": sha256_file(out),
                        "bytes": out.stat().st_size, "builder": {"name": "b", "auditpacks": version("auditpacks")},
                        "simpleaudit": version("simpleaudit"), "sources": [{"name": "s.csv"}],
                        "filters": {"limit": 2}, "counts": {"scenarios": 2, "language": {"ja": 1}},
                        "benchmark": "jacite"}
    assert "日本語の説明です。".encode("utf-8") in out.read_bytes()   # written as UTF-8, not \\u escapes
    read = load_pack(out)
    assert [s["name"] for s in read.scenarios] == ["Topic 0 - Concern", "Topic 1 - Concern"]
    assert read.manifest == json.loads(manifest_path(out).read_text(encoding="utf-8"))


def test_an_unknown_distribution_has_an_unknown_version():
    assert packs._version("no-such-distribution-here") == "0+unknown"


def test_the_temporary_file_sits_beside_the_pack_until_it_is_published(tmp_path):
    out = tmp_path / "p.json"
    with PackWriter(out, builder="b") as writer:
        writer.add(scenario(0))
        assert [p.name.startswith(".p.json.") for p in tmp_path.iterdir()] == [True]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json", "p.manifest.json"]


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_number_json_cannot_hold_is_refused_by_name(tmp_path, value):
    with pytest.raises(PackError) as caught:
        with PackWriter(tmp_path / "p.json", builder="b") as writer:
            writer.add(scenario(0, metadata={"question_id": "q0", "score": value}))
    assert str(caught.value) == "p.json: scenario 'Topic 0 - Concern' holds NaN or an infinite number, which JSON " \
                                "cannot hold"
    assert list(tmp_path.iterdir()) == []


def test_a_warning_does_not_stop_the_writer(tmp_path):
    with PackWriter(tmp_path / "p.json", builder="b") as writer:
        writer.add(scenario(0, expected_behavior=["Only one."]))
    assert writer.count == 1


def test_a_pack_level_error_names_the_first_and_publishes_nothing(tmp_path):
    with pytest.raises(PackError) as caught:
        with PackWriter(tmp_path / "p.json", builder="b") as writer:
            for i, pair in enumerate("AB"):
                writer.add(scenario(i, metadata={"question_id": f"q{i}", "pair_id": pair}))
    assert str(caught.value) == "p.json: ERROR pair 'A' [metadata.pair_id]: single-member pair"
    assert list(tmp_path.iterdir()) == []


def test_an_empty_selection_writes_nothing(tmp_path):
    with pytest.raises(PackError) as caught:
        with PackWriter(tmp_path / "p.json", builder="b"):
            pass
    assert str(caught.value) == "p.json: no scenario was selected; nothing written"
    assert list(tmp_path.iterdir()) == []


def test_a_replaced_pack_without_a_manifest_is_described_by_its_digest(tmp_path, capsys):
    out = tmp_path / "p.json"
    out.write_text("[]", encoding="utf-8")
    digest = sha256_file(out)[:12]
    with pytest.raises(PackError) as caught:
        with PackWriter(out, builder="b") as writer:
            writer.add(scenario(0))
    assert str(caught.value).startswith(f"{out} (sha256 {digest}…) already holds another pack")
    with replacing(), PackWriter(out, builder="b") as writer:
        writer.add(scenario(0))
    assert capsys.readouterr().err == f"replaced {out} (sha256 {digest}…) with 1 scenarios\n"


def test_a_source_entry_is_a_portable_name_origin_size_and_digest(tmp_path):
    path = tmp_path / "data" / "raw.csv"
    path.parent.mkdir()
    path.write_bytes(b"a,b\n1,2\n")
    assert source_entry(path) == {"name": "raw.csv", "origin": "local", "bytes": 8, "sha256": sha256_file(path)}
    assert source_entry(str(path), name="questions.csv", origin="https://example.org/raw.csv") == {
        "name": "questions.csv", "origin": "https://example.org/raw.csv", "bytes": 8, "sha256": sha256_file(path)}


def test_a_pack_without_a_manifest_reads_with_none_unless_one_is_required(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps([scenario(0)]), encoding="utf-8")
    read = load_pack(path)
    assert (read.path, read.manifest, read.sha256, read.name) == (path, None, sha256_file(path), "p")
    with pytest.raises(PackError) as caught:
        load_pack(path, require_manifest=True)
    assert str(caught.value) == "p.json: no manifest p.manifest.json beside it"


@pytest.mark.parametrize("data, message", [
    (b"[{", "bad.json: invalid JSON at line 1 column 3: Expecting property name enclosed in double quotes"),
    (b'{"a": 1}', "bad.json: a pack is a JSON list of scenarios, found a dict"),
    (b"[\"\xff\"]", "bad.json: not UTF-8 text (invalid start byte at byte 2)"),
])
def test_an_unreadable_pack_is_one_line(tmp_path, data, message):
    (tmp_path / "bad.json").write_bytes(data)
    with pytest.raises(PackError) as caught:
        load_pack(tmp_path / "bad.json")
    assert str(caught.value) == message
    with pytest.raises(PackError) as caught:
        load_pack(tmp_path / "none.json")
    assert str(caught.value) == f"{tmp_path / 'none.json'}: no such pack file"
