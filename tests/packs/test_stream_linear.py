"""Scanning a pack takes time linear in its size, whatever its strings hold (long text, runs of backslashes,
escaped quotes and braces), and finds every record's exact bytes."""

from __future__ import annotations

import json
import time

import pytest

from auditpacks.packs import stream

SIZE = 2_000_000


@pytest.mark.parametrize("text", ["a" * SIZE, "\\" * SIZE, 'x\\"{}[' * (SIZE // 6), "\\\\\"" * (SIZE // 3)])
def test_one_huge_string_is_scanned_in_linear_time(tmp_path, monkeypatch, text):
    monkeypatch.setattr(stream, "CHUNK", 4096)  # 500 chunks: a rescan per chunk would read 1 GB
    path = tmp_path / "p.json"
    path.write_text(json.dumps([{"name": "n1", "description": "d", "test_prompt": text},
                                {"name": "n2", "description": "}{"}]), encoding="utf-8")
    started = time.monotonic()
    index = stream.scan(path)
    seconds = time.monotonic() - started
    assert len(index) == 2 and index.load(0)["test_prompt"] == text and index.load(1)["description"] == "}{"
    assert seconds < 8, seconds


@pytest.mark.parametrize("cut", [1, 2, 3, 17])
def test_an_escape_cut_by_a_chunk_boundary_is_read_whole(tmp_path, monkeypatch, cut):
    monkeypatch.setattr(stream, "CHUNK", cut)
    path = tmp_path / "p.json"
    records = [{"name": "a\\\"}", "description": "\\\\"}, {"name": "b", "description": "\"{\\"}]
    path.write_text(json.dumps(records), encoding="utf-8")
    index = stream.scan(path)
    assert [index.load(i) for i in range(len(index))] == records
