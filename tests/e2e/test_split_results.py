"""A run whose results pass the size limit, end to end: written split, and read as one file by resume, report,
compare, export and merge; each part opens in simpleaudit as it is."""

from __future__ import annotations

import json

from simpleaudit import AuditResults

from auditpacks.core.runs.results import iter_results
from auditpacks.core.runs.results_layout import layout
from auditpacks.runner.cli.main import main
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import run_here
from tests.support.tiny_pack import write_pack

LIMIT = 6000
N = 24


def read(folder):
    return [r.raw for r in iter_results(folder / "m.json")]


def test_a_split_run_reads_as_the_one_file_everywhere(tmp_path, monkeypatch, capsys):
    pack = write_pack(tmp_path / "tiny.json", N, documents=True, per_document=4)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "plain", server.base_url) == 0
        monkeypatch.setattr("auditpacks.runner.store.results_file.LIMIT_BYTES", LIMIT)
        capsys.readouterr()
        assert run_here(pack, tmp_path / "split", server.base_url) == 0
        err = capsys.readouterr().err
        assert err.rstrip().splitlines()[-1] == ("auditpacks: view the results: uvx simpleaudit-studio "
                                                 f"--visualize-only --results_dir {tmp_path / 'split'}")
        for shard in ("1/2", "2/2"):
            assert run_here(pack, tmp_path / f"s{shard[0]}", server.base_url, "--shard", shard) == 0
        calls = server.chat_requests
        assert run_here(pack, tmp_path / "split", server.base_url) == 0  # resumed from the journal
        assert server.chat_requests == calls
    plain, split = tmp_path / "plain", tmp_path / "split"
    found = layout(split / "m.json")
    assert len(found.parts) > 2 and found.documents is not None and layout(plain / "m.json").documents is None
    assert all(p.stat().st_size <= LIMIT for p in found.parts)
    assert sum(len(AuditResults.load(str(p))) for p in found.parts) == N
    assert read(split) == read(plain) and len(read(plain)) == N  # documents put back: the same results

    assert main(["merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "merged"),
                 "--pack", str(pack)]) == 0
    assert len(layout(tmp_path / "merged" / "m.json").parts) > 1 and read(tmp_path / "merged") == read(plain)

    capsys.readouterr()
    assert main(["compare", str(split / "m.run.json"), str(plain / "m.run.json"), "--json"]) == 0
    (comparison,) = json.loads(capsys.readouterr().out)
    assert comparison["paired"] == N and comparison["disagreements"] == []

    assert main(["report", str(split), "--format", "md", "--out", str(tmp_path / "r.md")]) == 0
    assert main(["report", str(plain), "--format", "md", "--out", str(tmp_path / "p.md")]) == 0
    report, other = ([line for line in (tmp_path / f).read_text("utf-8").splitlines()
                      if not line.startswith("Generated")] for f in ("r.md", "p.md"))
    assert any("Tiny 0020" in line for line in report) and report == other

    for folder in (split, plain):
        assert main(["export", "iustitia", str(folder / "m.json"), "--pack", str(pack),
                     "--out", str(folder / "p.jsonl")]) == 0
    assert (split / "p.jsonl").read_text("utf-8") == (plain / "p.jsonl").read_text("utf-8")
