"""A merge of shard runs prints every note the unsharded run of the same selection prints: a subset of the pack,
few clusters, the shards' own notes."""

from __future__ import annotations

from auditpacks.core.runs.record import RunRecord
from auditpacks.runner.cli.main import main
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import run_file, run_here
from tests.support.tiny_pack import write_pack

SUBSET = ("a subset: 5 of the pack's 30 scenarios (--limit, --smoke, --per-question or --shard); these figures "
          "describe the subset, not the benchmark")
FEW = "only 2 judgments: judgment-bootstrap intervals under-cover with few clusters"   # the grader's own


def test_a_merged_limited_run_keeps_the_subset_and_few_clusters_notes(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 30)   # 3 scenarios per judgment: --limit 5 spans V0000 and V0001
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "whole", server.base_url, "--limit", "5", "--quiet") == 0
        for i in (1, 2):
            assert run_here(pack, tmp_path / f"s{i}", server.base_url, "--limit", "5", "--shard", f"{i}/2",
                            "--quiet") == 0
    whole = run_file(tmp_path / "whole")["summary"]
    assert whole["headline"]["warnings"] == [FEW, SUBSET]
    capsys.readouterr()
    assert main(["merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "merged"),
                 "--pack", str(pack)]) == 0
    out = capsys.readouterr()
    merged = run_file(tmp_path / "merged")["summary"]
    assert merged["headline"]["warnings"] == whole["headline"]["warnings"]
    assert f"note: {SUBSET}" in out.out + out.err and f"note: {FEW}" in out.out + out.err
    assert main(["merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "bare")]) == 0
    assert RunRecord.load(tmp_path / "bare" / "m.run.json").summary.headline == {"warnings": [SUBSET]}


def test_the_shards_own_notes_are_kept_once_each(tmp_path):
    from tests.runner.run.test_merge import result, shard
    from auditpacks.runner.run.merge import merge

    s1 = shard(tmp_path / "s1", 1, [0, 2], [result("a"), result("c")])
    s2 = shard(tmp_path / "s2", 2, [1], [result("b")])
    for folder, notes in ((s1, ["target: replies cut at 512 tokens"]), (s2, ["target: replies cut at 512 tokens",
                                                                              "decision probe: 2 retries"])):
        record = RunRecord.load(folder / "m.run.json")
        record.summary.notes = notes
        record.save(folder / "m.run.json")
    merged = merge([s1, s2], tmp_path / "out")
    assert merged.summary.notes == ["target: replies cut at 512 tokens", "decision probe: 2 retries"]
