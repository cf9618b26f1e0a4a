"""Shards split by document, and merging them back gives the unsharded run."""

from __future__ import annotations

import json

import pytest

from auditpacks.judges.reader import Reader
from auditpacks.runner.cli.main import main
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.scenarios.shard import assign, document_key, parse_spec, take
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import results, run_file, run_here, start_child
from tests.support.tiny_pack import tiny_scenario, write_pack


def without_timestamp(path):
    data = json.loads(path.read_text())
    data.pop("timestamp")
    return data


@pytest.fixture(scope="module")
def shard_runs(tmp_path_factory):
    """An unsharded run and three shard runs of the same 40-scenario pack."""
    tmp = tmp_path_factory.mktemp("shards")
    pack = write_pack(tmp / "tiny.json", 40)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp / "whole", server.base_url) == 0
        for i in (1, 2, 3):
            assert run_here(pack, tmp / f"s{i}", server.base_url, "--shard", f"{i}/3") == 0
        assert run_here(pack, tmp / "hot", server.base_url, "--shard", "3/3", "--temperature", "0.7") == 0
    return tmp, pack


def test_merging_three_shards_equals_the_unsharded_run(shard_runs, capsys):
    tmp, pack = shard_runs
    args = ["merge", str(tmp / "s2"), str(tmp / "s3"), str(tmp / "s1"), "--out", str(tmp / "merged"), "--pack", str(pack)]
    assert main(args) == 0
    assert "merged shards 1/3, 2/3, 3/3" in capsys.readouterr().err
    assert without_timestamp(tmp / "merged" / "m.json") == without_timestamp(tmp / "whole" / "m.json")
    merged, whole = run_file(tmp / "merged"), run_file(tmp / "whole")
    assert merged["summary"] == whole["summary"]
    assert merged["fingerprint"] == whole["fingerprint"] and merged["parameters"] == whole["parameters"]
    assert merged["merged_from"]["shards"] == ["1/3", "2/3", "3/3"]
    assert main(["merge", str(tmp / "s1"), str(tmp / "s2"), str(tmp / "s3"), "--out", str(tmp / "bare")]) == 0
    assert results(tmp / "bare") == results(tmp / "whole")


def test_shards_keep_each_judgment_together(shard_runs):
    tmp, _ = shard_runs
    shards = [{r["scenario_name"].split()[-1] for r in results(tmp / f"s{i}")} for i in (1, 2, 3)]
    assert not (shards[0] & shards[1]) and not (shards[1] & shards[2]) and not (shards[0] & shards[2])
    assert [len(results(tmp / f"s{i}")) for i in (1, 2, 3)] == [15, 13, 12]  # 13 judgments of 3, one of 1
    assert run_file(tmp / "s2")["shard"]["spec"] == "2/3"


@pytest.mark.parametrize("folders, message", [
    (["s1", "s2"], "shard 3/3 missing (gap)"),
    (["s1", "s2", "s3", "s2"], "shard 2/3 given more than once (overlap)"),
    (["s1", "s2", "hot"], "shard 3/3: other settings (fingerprint"),
])
def test_merge_refuses_gaps_overlaps_and_other_settings(shard_runs, capsys, folders, message):
    tmp, _ = shard_runs
    assert main(["merge", *(str(tmp / f) for f in folders), "--out", str(tmp / "bad")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp / "bad").exists()


def test_merge_refuses_another_pack(shard_runs, tmp_path, capsys):
    tmp, _ = shard_runs
    other = write_pack(tmp_path / "other.json", 41)
    assert main(["merge", str(tmp / "s1"), str(tmp / "s2"), str(tmp / "s3"), "--out", str(tmp_path / "m"),
                 "--pack", str(other)]) == 2
    assert "other.json: not the pack the shards ran" in capsys.readouterr().err


def test_document_key_order_of_preference():
    judgment = Reader.of("choice", {"name": "iustitia"}).document   # Iustitia's document: the judgment
    case = Reader.of("citations", {"name": "icj"}).document          # ICJ's: the case
    both = {"metadata": {"verdict_id": "V1", "case_id": "C"}, "documents": ["x"], "name": "n"}
    assert (document_key(both, judgment), document_key(both, case)) == ("document:V1", "document:C")
    assert document_key({"metadata": {"case_id": 7}}, case) == "document:7"
    assert document_key(both).startswith("documents:")   # no benchmark: the documents' content
    assert document_key({"documents": ["x"], "name": "n"}, judgment).startswith("documents:")
    assert document_key({"name": "n"}) == "name:n"


def test_assignment_is_balanced_deterministic_and_by_document():
    judgment = Reader.of("choice", {"name": "iustitia"}).document
    scenarios = [tiny_scenario(i, per_document=2 + i % 3) for i in range(50)]
    shards = assign(scenarios, 4, judgment)
    assert shards == assign(scenarios, 4, judgment)
    by_doc: dict[str, set[int]] = {}
    for scenario, shard in zip(scenarios, shards):
        by_doc.setdefault(document_key(scenario, judgment), set()).add(shard)
    assert all(len(s) == 1 for s in by_doc.values()) and len(by_doc) < len(scenarios)
    sizes = [shards.count(i) for i in (1, 2, 3, 4)]
    assert max(sizes) - min(sizes) <= 4
    picked = [take(scenarios, parse_spec(f"{i}/4"), judgment)[1]["positions"] for i in (1, 2, 3, 4)]
    assert sorted(p for part in picked for p in part) == list(range(50))


@pytest.mark.parametrize("spec", ["0/3", "4/3", "1", "a/b", "1/0"])
def test_bad_shard_specs(spec):
    with pytest.raises(RunError, match="--shard"):
        parse_spec(spec)


def test_three_shard_processes_and_a_merge_equal_the_unsharded_run(tmp_path):
    """As on a cluster: three ``auditpacks run --shard i/3`` processes at once, then ``auditpacks merge``."""
    pack = write_pack(tmp_path / "tiny.json", 45, documents=True)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "whole", server.base_url) == 0
        children = [start_child(pack, tmp_path / f"s{i}", server.base_url, "--shard", f"{i}/3") for i in (1, 2, 3)]
        for child in children:
            child.wait(timeout=300)
            assert child.returncode == 0, child.stderr.read().decode()
            child.stderr.close()
    assert main(["merge", *(str(tmp_path / f"s{i}") for i in (3, 1, 2)), "--out", str(tmp_path / "merged"),
                 "--pack", str(pack)]) == 0
    assert without_timestamp(tmp_path / "merged" / "m.json") == without_timestamp(tmp_path / "whole" / "m.json")
    merged, whole = run_file(tmp_path / "merged"), run_file(tmp_path / "whole")
    assert merged["summary"] == whole["summary"]
    assert merged["summary"]["completed"] == 45 and merged["summary"]["headline"]["tasks"] == 45
    # the performance block is the shards' blocks added up: 15 judgments of 3 questions, split 5/5/5
    shard_documents = [run_file(tmp_path / f"s{i}")["performance"]["documents"] for i in (1, 2, 3)]
    assert shard_documents == [5, 5, 5]
    assert merged["performance"]["documents"] == whole["performance"]["documents"] == 15
    assert merged["performance"]["concurrency"] == 1 and merged["performance"]["prompt_order"] == "document-first"


def test_performance_blocks_add_up():
    from auditpacks.runner.store.performance_sum import sum_performance

    a = {"prompt_order": "stock", "documents": 2, "concurrency": 4, "slot_pinning": False,
         "server_prompt_tokens": {"prompt_n": 100, "cache_n": 10, "requests": 3},
         "decision_batching": {"batch_sizes": {"64": 1}, "fallbacks": [{"questions": 6}], "requests": 1},
         "endpoints": [{"base_url": "http://a/v1", "requests": 2, "failed": False}]}
    b = {"prompt_order": "stock", "documents": 3, "concurrency": 4, "slot_pinning": False,
         "server_prompt_tokens": {"prompt_n": 50, "cache_n": 5, "requests": 2},
         "decision_batching": {"batch_sizes": {"64": 2, "6": 1}, "fallbacks": [], "requests": 3},
         "endpoints": [{"base_url": "http://b/v1", "requests": 1, "failed": True},
                       {"base_url": "http://a/v1", "requests": 4, "failed": False}]}
    assert sum_performance([a, None, b]) == {
        "prompt_order": "stock", "documents": 5, "concurrency": 4, "slot_pinning": False,
        "server_prompt_tokens": {"prompt_n": 150, "cache_n": 15, "requests": 5},
        "decision_batching": {"batch_sizes": {"64": 3, "6": 1}, "fallbacks": [{"questions": 6}], "requests": 4},
        "endpoints": [{"base_url": "http://a/v1", "requests": 6, "failed": False},
                      {"base_url": "http://b/v1", "requests": 1, "failed": True}]}
    assert sum_performance([None, None]) is None
