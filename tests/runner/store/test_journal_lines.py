"""Resuming from a journal with a line that never ends: it is read past in chunks, reported, and the rest kept."""

from __future__ import annotations

import json

from auditpacks.runner.store import journal as journal_module
from auditpacks.runner.store.journal import Journal


def test_a_line_over_the_cap_is_reported_and_skipped_and_the_rest_is_kept(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(journal_module, "LINE_BYTES", 1000)
    path = tmp_path / "m.journal.jsonl"
    good = [json.dumps({"key": k, "name": k, "result": {"severity": "pass"}}) for k in ("k1", "k2")]
    path.write_text("\n".join([json.dumps({"fingerprint": "fp"}), good[0], "x" * 5_000_000, good[1]]) + "\n",
                    encoding="utf-8")
    with Journal(path, "fp").open() as journal:
        assert sorted(journal.done) == ["k1", "k2"] and journal.done["k2"] == {"severity": "pass"}
    assert "m.journal.jsonl line 3: 5000001 bytes, over the 1000 bytes cap on a journal line" in capsys.readouterr().err
