"""The split writer to the byte: parts under the limit yet filled (a part is closed only when its next result
would not fit), in simpleaudit's own format, documents stored one compact line each, temporary files beside the
results and none left behind when a write fails."""

from __future__ import annotations

import json
import os
import re
import tempfile

import pytest
from simpleaudit import AuditResult, AuditResults

from auditpacks.core.runs.results_layout import DOCUMENTS, PARTS, layout
from auditpacks.runner.store.results_file import slim_result, write_results
from auditpacks.runner.store.results_split import head_bytes, header_dict

#: What the writer's bound on a header may exceed the header by: its summary's slack (32) and a few bytes per list.
TOLERANCE = 96
KINDS = ("plain", "unique issues", "shared issues", "japanese issues")


def result(i: int, reply: int, kind: str = "plain", documents: bool = True) -> dict:
    issues = {"plain": [], "unique issues": [f"issue {i}.{k} " + "x" * 40 for k in range(12)],
              "shared issues": [f"shared issue {k} " + "y" * 40 for k in range(12)],
              "japanese issues": [f"引用{i}.{k}は判例集に見当たらない" * 3 for k in range(12)]}[kind]
    user = {"role": "user", "content": f"question {i}"} | ({"documents": [f"判決 {i // 3}。" * 40]} if documents else {})
    return {"scenario_name": f"S{i}", "scenario_description": "d",
            "conversation": [user, {"role": "assistant", "content": "答" * (reply // 3)}],
            "severity": ("pass", "high", "ERROR")[i % 3], "issues_found": issues, "positive_behaviors": [],
            "summary": "s", "recommendations": [f"推奨 {i % 2}"], "expected_behavior": ["e"], "judgment": {"i": i},
            "auditor_input_tokens": 0, "auditor_output_tokens": 0, "judge_input_tokens": 3 * i,
            "judge_output_tokens": 1, "target_input_tokens": 1000 + i, "target_output_tokens": 2}


def split(tmp_path, results, limit):
    path = tmp_path / "m.json"
    written = write_results(path, [slim_result(r) for r in results], iter(results), limit=limit)
    return path, [p for p in written if p.suffix == ".json"]


def exact_size(stored: list[dict], header: dict, extra: dict) -> int:
    """The bytes of a part holding ``stored`` (as the file holds them) with its own header, laid out by hand."""
    body = ",\n    ".join(json.dumps(r, indent=2, ensure_ascii=False).replace("\n", "\n    ") for r in stored)
    head = head_bytes(header_dict([slim_result(r) for r in stored], **extra))
    return len(head) + len(("[\n    " + body + "\n  ]\n}").encode("utf-8"))


@pytest.mark.parametrize("kind", KINDS)
def test_parts_are_under_the_limit_and_closed_only_when_the_next_result_does_not_fit(tmp_path, kind):
    limit = 24_000
    for step, reply in enumerate(range(3_000, 3_600, 37)):   # sizes a byte apart in where parts fill up
        folder = tmp_path / str(step)
        results = [result(i, reply + 11 * i, kind) for i in range(16)]
        path, parts = split(folder, results, limit)
        stored = [json.loads(p.read_text("utf-8"))["results"] for p in parts]
        assert all(p.stat().st_size <= limit for p in parts), (kind, reply)
        assert sum(map(len, stored)) == len(results)
        extra = {DOCUMENTS: layout(path).documents.name}
        for k in range(1, len(parts) - 1):   # the first part keeps room for its list of parts
            with_next = stored[k] + [stored[k + 1][0]]
            assert exact_size(with_next, with_next, extra) > limit - TOLERANCE, (kind, reply, k)


def test_the_first_parts_room_for_its_list_holds_one_name_per_part(tmp_path):
    # two small results, then results that each need a part of their own: the list names every later part
    limit = 20_000
    for step, small in enumerate(range(600, 2_000, 37)):
        results = [result(0, small), result(1, small)] + [result(i, 11_000) for i in range(2, 22)]
        path, parts = split(tmp_path / str(step), results, limit)
        assert max(p.stat().st_size for p in parts) <= limit, small
        assert json.loads(path.read_text("utf-8"))[PARTS] == [p.name for p in parts[1:]]


def test_each_part_is_simpleaudits_own_format_byte_for_byte(tmp_path):
    results = [result(i, 4_000, "japanese issues") for i in range(9)]
    path, parts = split(tmp_path, results, 30_000)
    assert len(parts) > 2
    for part in parts:
        data = json.loads(part.read_text("utf-8"))
        theirs = tmp_path / "theirs.json"
        AuditResults([AuditResult(**r) for r in data["results"]]).save(str(theirs))
        ours_text, their_text = part.read_text("utf-8"), theirs.read_text("utf-8")
        results_at = ours_text.index('  "results": [')
        assert ours_text[results_at:] == their_text[their_text.index('  "results": ['):]
        stamp = re.compile(r'"timestamp": "[^"]*"')
        ours_head = re.sub(r',\n  "(parts|documents)": (\[[^\]]*\]|"[^"]*")', "", ours_text[:results_at])
        assert stamp.sub("", ours_head) == stamp.sub("", their_text[:their_text.index('  "results": [')])


def test_documents_are_stored_one_compact_line_each_as_written(tmp_path):
    results = [result(i, 4_000) for i in range(9)]
    path, _ = split(tmp_path, results, 20_000)
    lines = layout(path).documents.read_text("utf-8").splitlines()
    assert len(lines) == 3   # three judgments, three questions each
    for line in lines:
        entry = json.loads(line)
        assert line == json.dumps({"key": entry["key"], DOCUMENTS: entry[DOCUMENTS]}, ensure_ascii=False,
                                  separators=(",", ":"))
        assert "判決" in line


def test_a_split_without_documents_names_no_documents_file(tmp_path):
    results = [result(i, 5_000, documents=False) for i in range(12)]
    path, parts = split(tmp_path, results, 20_000)
    assert len(parts) > 2 and layout(path).documents is None
    assert all(DOCUMENTS not in json.loads(p.read_text("utf-8")) for p in parts)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in parts)


def test_no_warning_when_every_result_fits_and_the_result_over_it_is_named_by_number(tmp_path, capsys):
    split(tmp_path / "a", [result(i, 5_000) for i in range(12)], 20_000)
    assert "auditpacks: warning" not in capsys.readouterr().err
    _, parts = split(tmp_path / "b", [result(i, 500) for i in range(4)] + [result(4, 30_000)], 20_000)
    over = next(p for p in parts if p.stat().st_size > 20_000)
    assert (f"auditpacks: warning: {over.name} is {over.stat().st_size:,} bytes, over the 20,000-byte limit: "
            "result 5 (S4) is too big for any part") in capsys.readouterr().err


def small(i: int, reply: int) -> dict:
    """A result of a few hundred bytes, its reply ``reply`` ASCII characters long."""
    return {"scenario_name": f"S{i}", "scenario_description": "", "conversation": [{"role": "assistant",
                                                                                   "content": "a" * reply}],
            "severity": ("pass", "high")[i % 2], "issues_found": [f"issue {i % 3}"], "positive_behaviors": [],
            "summary": "", "recommendations": [], "judgment": None, "target_input_tokens": i}


def test_many_small_results_to_a_part_stay_under_the_limit_to_the_byte(tmp_path):
    """Parts of a hundred results and more: an undercount per result, or of a header by more than its slack,
    takes some part over the limit as the replies grow a byte at a time."""
    limit = 40_000
    for reply in range(1, 17):
        results = [small(i, reply) for i in range(400)]
        _, parts = split(tmp_path / str(reply), results, limit)
        assert len(parts) > 3 and max(p.stat().st_size for p in parts) <= limit, reply


@pytest.mark.parametrize("documents", [True, False])
def test_a_write_that_fails_while_parts_are_put_in_place_leaves_no_file_and_its_own_error(tmp_path, monkeypatch,
                                                                                          documents):
    results = [result(i, 5_000, documents=documents) for i in range(12)]
    real, calls = os.replace, []

    def failing(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(OSError, match="No space left on device"):
        split(tmp_path, results, 20_000)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_temporary_files_lie_beside_the_results_not_in_the_system_temp_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-folder"))
    path, parts = split(tmp_path / "out", [result(i, 5_000) for i in range(12)], 20_000)
    assert len(parts) > 2 and path.is_file()


def test_a_part_exactly_at_the_limit_is_within_it(tmp_path, capsys):
    results = [result(0, 30_000), result(1, 30_000)]
    _, parts = split(tmp_path / "a", results, 20_000)        # each result over the limit, alone in its part
    size = parts[1].stat().st_size
    capsys.readouterr()
    _, again = split(tmp_path / "b", results, size)          # the second part now exactly at the limit
    assert again[1].stat().st_size == size
    err = capsys.readouterr().err
    assert f"warning: {again[0].name} is" in err and f"warning: {again[1].name}" not in err
