"""Streaming a pack: the same scenarios as ``json.load`` in any layout and chunk size, byte ranges that read
back, the manifest's sha256 checked, and every malformed file refused in one line naming the record."""

import hashlib
import io
import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs import stream
from auditpacks.packs.stream import manifest_path, scan

SCENARIOS = [
    {"name": "brace } in text", "description": "quote \" and { and [", "metadata": {"k": [1, {"x": "]"}]}},
    {"name": "日本語", "description": "backslash \\\" then }", "documents": ["{not an object}"]},
    {"name": "third", "description": "", "test_prompt": "p"},
]


def write(path, text, manifest=True):
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    if manifest:
        manifest_path(path).write_text(json.dumps({"sha256": hashlib.sha256(path.read_bytes()).hexdigest()}))
    return path


@pytest.mark.parametrize("chunk", [3, 7, 64, stream.CHUNK])
@pytest.mark.parametrize("indent", [None, 2])
def test_scan_finds_every_scenario_whatever_the_layout_and_chunk(tmp_path, monkeypatch, chunk, indent):
    monkeypatch.setattr(stream, "CHUNK", chunk)
    text = "\ufeff" + json.dumps(SCENARIOS, indent=indent, ensure_ascii=False) + "\n"
    path = write(tmp_path / "p.json", text)
    index = scan(path, lambda i, s: (i, s["name"]))
    assert [e.info for e in index.entries] == [(0, "brace } in text"), (1, "日本語"), (2, "third")]
    assert [index.load(i) for i in range(len(index))] == SCENARIOS
    raw = path.read_bytes()
    assert [json.loads(raw[e.start:e.end]) for e in index.entries] == SCENARIOS
    assert index.sha256 == hashlib.sha256(raw).hexdigest()
    assert index.name == "p" and index.manifest == {"sha256": index.sha256}


def test_an_empty_list_and_a_pack_without_manifest(tmp_path):
    assert len(scan(write(tmp_path / "e.json", " [ ] "))) == 0
    index = scan(write(tmp_path / "m.json", json.dumps(SCENARIOS[:1]), manifest=False))
    assert index.manifest is None and len(index) == 1
    with pytest.raises(PackError) as err:
        scan(tmp_path / "m.json", require_manifest=True)
    assert str(err.value) == "m.json: no manifest m.manifest.json beside it"


def test_manifest_path_beside_the_pack(tmp_path):
    assert manifest_path(tmp_path / "jacite_smoke.json") == tmp_path / "jacite_smoke.manifest.json"
    assert manifest_path(tmp_path / "pack") == tmp_path / "pack.manifest.json"


@pytest.mark.parametrize("text, message", [
    ('{"name": "x"}', "p.json: a pack is a JSON list of scenarios"),
    ('[1]', "p.json: record #0 is not a scenario object"),
    ('[{"name": "a", "description": ""},', "p.json: record #1 is not a scenario object (the file ends inside "
                                          "the list)"),
    ('[{"name": "a", "description": "', "p.json: record #0 is cut short (the file ends inside it)"),
    ('[{"name": "a", "description": ""},]', "p.json: a comma after the last record, at byte 34"),
    ('[{"name": "a", "description": ""} {"name": "b"}]', "p.json: after record #0: expected ',' or ']' at byte 34"),
    ('[{"name": "a", "description": ""}] x', "p.json: extra data after the list at byte 35"),
    ('[{"name": "a", "description": "", }]', "p.json: record #0: invalid JSON at its character 33: "
                                             "Expecting property name enclosed in double quotes"),
    ('[{"description": ""}]', "p.json: record #0 field 'name' is missing or not a string"),
    ('[{"name": "a", "description": 3}]', "p.json: record #0 field 'description' is missing or not a string"),
    ('[{"name": "a", "description": "", "metadata": []}]', "p.json: record #0 field 'metadata' is a list, "
                                                           "not an object"),
    ('[{"name": "a", "description": "", "documents": "d"}]', "p.json: record #0 field 'documents' is a str, "
                                                             "not a list"),
])
def test_malformed_packs_are_one_line(tmp_path, text, message):
    with pytest.raises(PackError) as err:
        scan(write(tmp_path / "p.json", text, manifest=False))
    assert str(err.value) == message


def test_bytes_that_are_not_utf8_name_the_record(tmp_path):
    path = write(tmp_path / "p.json", b'[{"name": "a", "description": "\xff"}]', manifest=False)
    with pytest.raises(PackError) as err:
        scan(path)
    assert str(err.value).startswith("p.json: record #0: not UTF-8 text")


def test_a_pack_changed_after_its_build_is_refused(tmp_path):
    path = write(tmp_path / "p.json", json.dumps(SCENARIOS))
    recorded = json.loads(manifest_path(path).read_text())["sha256"]
    path.write_text(json.dumps(SCENARIOS[:2]))
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(PackError) as err:
        scan(path)
    assert str(err.value) == (f"p.json: sha256 {actual[:12]}… does not match p.manifest.json field sha256 "
                              f"{recorded[:12]}…; the pack was changed after it was built")


def test_a_record_changed_after_the_scan_is_refused_on_load(tmp_path):
    path = write(tmp_path / "p.json", json.dumps(SCENARIOS))
    index = scan(path)
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"third")] = ord("T")
    path.write_bytes(bytes(raw))
    assert index.load(0) == SCENARIOS[0]
    with pytest.raises(PackError) as err:
        index.load(2)
    assert str(err.value) == "p.json: record #2 changed on disk since the pack was verified"


@pytest.mark.parametrize("manifest, kind", [("[]", "a list"), ("null", "null"), ('"x"', "a str")])
def test_a_manifest_that_is_not_an_object_is_one_line(tmp_path, manifest, kind):
    path = write(tmp_path / "p.json", "[]", manifest=False)
    manifest_path(path).write_text(manifest)
    with pytest.raises(PackError) as err:
        scan(path)
    assert str(err.value) == f"p.manifest.json: a manifest is a JSON object, found {kind}"


def test_no_such_file(tmp_path):
    with pytest.raises(PackError) as err:
        scan(tmp_path / "gone.json")
    assert str(err.value) == f"{tmp_path / 'gone.json'}: no such pack file"


@pytest.mark.parametrize("text, message", [
    ('[{"name": "a", "description": ""}, {"name": "b", "description": ""}, 3]', "p.json: record #2 is not a scenario object"),
    ('[{"name": "a", "description": ""}]x', "p.json: extra data after the list at byte 34"),
    ('[]x', "p.json: extra data after the list at byte 2"),
    (b'\xefAB[]', "p.json: a pack is a JSON list of scenarios"),  # a first byte EF without the rest of a BOM
])
def test_malformed_ends_and_starts_name_the_record_and_byte(tmp_path, text, message):
    with pytest.raises(PackError) as err:
        scan(write(tmp_path / "p.json", text, manifest=False))
    assert str(err.value) == message


@pytest.mark.parametrize("record, kind", [(None, "null"), ([], "a list"), ("s", "a str")])
def test_a_record_that_is_not_an_object_says_what_it_is(tmp_path, record, kind):
    """What ``load_pack`` asks of every record it has parsed."""
    with pytest.raises(PackError) as err:
        stream.check_shape(tmp_path / "p.json", 4, record)
    assert str(err.value) == f"p.json: record #4 is {kind}, not a scenario object"


def test_a_manifest_that_is_missing_or_a_folder_is_one_line(tmp_path):
    with pytest.raises(PackError) as err:
        stream.read_manifest(tmp_path / "p.manifest.json")
    assert str(err.value) == "p.manifest.json: manifest not found"
    (tmp_path / "p.manifest.json").mkdir()
    with pytest.raises(PackError) as err:
        stream.read_manifest(tmp_path / "p.manifest.json")
    assert str(err.value) == "p.manifest.json: manifest is a folder, not a file"


def test_the_file_is_read_a_chunk_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "CHUNK", 3)
    reader = stream._Reader(io.BytesIO(b"abcdefgh"), hashlib.sha256())
    assert reader.more(0) and (bytes(reader.buf), reader.base) == (b"abc", 0)
    assert reader.more(2) and (bytes(reader.buf), reader.base) == (b"cdef", 2)  # the bytes before offset 2 forgotten
    assert reader.more(2) and not reader.more(2)
    assert reader.digest.hexdigest() == hashlib.sha256(b"abcdefgh").hexdigest()
