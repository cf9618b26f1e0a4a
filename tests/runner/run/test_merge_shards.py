"""Which shards merge: the one shard run in a folder, shards of one pack, settings and selection covering it once
each, the pack they ran (checked scenario by scenario), and every endpoint that served them."""

from __future__ import annotations

import dataclasses
import json

import pytest

from auditpacks.core.runs.record import PackRef, Round, RunRecord, Summary
from auditpacks.runner.run.merge import (MergeError, check_shards, endpoints, find_run, load_shard, merge,
                                         pack_scenarios)
from tests.runner.run.test_merge import result, shard
from tests.support.hand_runs import choice_result
from tests.support.tiny_pack import tiny_scenario, write_pack


def record(index: int, positions: list[int], *, count: int = 2, selected: int = 3, skipped: int = 0,
           base_url: str | None = None, more: tuple[str, ...] = ()) -> RunRecord:
    """Shard ``index``/``count`` of a selection of ``selected`` scenarios, in memory."""
    spec = {"spec": f"{index}/{count}", "index": index, "count": count, "selected": selected,
            "selection_sha256": "s", "positions": positions}
    return RunRecord(model="m", provider="openai", judge="choice_match", pack=PackRef("p.json", "0" * 64),
                     fingerprint="f", shard=spec, base_url=base_url, parameters={"more_base_urls": list(more)},
                     summary=Summary(skipped={"too long": skipped} if skipped else {}))


def changed(base: RunRecord, **shard) -> RunRecord:
    return dataclasses.replace(base, shard={**base.shard, **shard})


def test_shards_that_cover_the_selection_once_merge():
    check_shards([record(2, [1]), record(1, [0, 2])])
    check_shards([record(1, [0]), record(2, [2], skipped=1)])   # a skipped scenario is counted, not missing


@pytest.mark.parametrize("second, message", [
    (dataclasses.replace(record(2, [1]), pack=PackRef("p.json", "1" * 64)),
     "shard 2/2: another pack (sha256 111111111111… vs 000000000000…)"),
    (dataclasses.replace(record(2, [1]), fingerprint="g"), "shard 2/2: other settings (fingerprint g vs f)"),
    (changed(record(2, [1]), count=3), "shard 2/2: another split or selection (count differs from shard 1/2)"),
    (changed(record(2, [1]), selected=4), "shard 2/2: another split or selection (selected differs from shard 1/2)"),
    (changed(record(2, [1]), selection_sha256="t"),
     "shard 2/2: another split or selection (selection_sha256 differs from shard 1/2)"),
    (record(1, [1]), "shard 1/2 given more than once (overlap)"),
    (record(2, [2]), "selection position 2 has results in more than one shard (overlap)"),
    (record(2, []), "the shards hold 2 results and 0 skips, but the selection has 3 scenarios (gap)"),
    (record(2, [1, 3]), "the shards hold 4 results and 0 skips, but the selection has 3 scenarios (gap)")])
def test_shards_that_do_not_fit_are_refused_naming_why(second, message):
    with pytest.raises(MergeError) as refused:
        check_shards([record(1, [0, 2]), second])
    assert str(refused.value) == message


@pytest.mark.parametrize("indices, missing", [((1, 3), 2), ((2, 3), 1)])
def test_a_missing_shard_is_a_gap(indices, missing):
    with pytest.raises(MergeError, match=rf"^shard {missing}/3 missing \(gap\)$"):
        check_shards([record(i, [i - 1], count=3) for i in indices])


def test_endpoints_are_the_first_shards_first_each_once():
    one = record(1, [0], base_url="http://a/v1", more=("http://b/v1", ""))
    two = record(2, [1], base_url=None, more=("http://c/v1", "http://a/v1"))
    assert endpoints([two, one]) == ["http://a/v1", "http://b/v1", "http://c/v1"]


def test_find_run_picks_the_one_shard_run(tmp_path):
    with pytest.raises(MergeError, match=r"not a folder$"):
        find_run(tmp_path / "none", None)
    folder = shard(tmp_path / "s1", 1, [0], [result("a")])
    whole = RunRecord.load(folder / "m.run.json")
    dataclasses.replace(whole, shard=None).save(folder / "whole.run.json")     # not a shard run: passed over
    assert find_run(folder, None) == folder / "m.run.json" == find_run(folder, "m")
    with pytest.raises(MergeError) as refused:
        find_run(folder, "other")
    assert str(refused.value) == f"{folder}: no shard run file (*.run.json from a run with --shard) for other"
    whole.save(folder / "n.run.json")
    with pytest.raises(MergeError) as refused:
        find_run(folder, None)
    assert str(refused.value) == f"{folder}: several shard runs (m.run.json, n.run.json); pick one with --model"
    (folder / "m.run.json").unlink()
    (folder / "n.run.json").unlink()
    with pytest.raises(MergeError) as refused:
        find_run(folder, None)
    assert str(refused.value) == f"{folder}: no shard run file (*.run.json from a run with --shard)"


def test_a_shard_of_rounds_or_with_results_missing_is_refused(tmp_path):
    folder = shard(tmp_path / "s1", 1, [0, 2], [result("a")])
    with pytest.raises(MergeError) as refused:
        load_shard(folder, None)
    assert str(refused.value) == f"{folder / 'm.json'}: 1 results but its run file records 2 positions"
    (folder / "m.json").unlink()
    with pytest.raises(MergeError) as refused:
        load_shard(folder, None)
    assert str(refused.value) == f"{folder}: m.json: results file not found"
    data = json.loads((folder / "m.run.json").read_text(encoding="utf-8"))
    data.update(repeats=2, rounds=[*data["rounds"], {"round": 2, "seed": 1, "results": "m.round2.json"}])
    (folder / "m.run.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(MergeError, match=r"^m.run.json: a run of 2 rounds; merge joins single-round shards$"):
        load_shard(folder, None)


def test_merge_needs_a_shard_and_another_output_folder(tmp_path):
    with pytest.raises(MergeError, match="^give at least one shard folder$"):
        merge([], tmp_path / "out")
    folder = shard(tmp_path / "s1", 1, [0], [result("a")])
    with pytest.raises(MergeError, match="--out is one of the shard folders; merge into another folder$"):
        merge([folder], tmp_path / "." / "s1")


# -- with the pack: the scenarios checked and the figures recomputed ---------------------------------------------------

def pack_shards(tmp_path, wrong: int | None = None, **params):
    """A 10-scenario tiny pack (its manifest names scenarios 3 and 7 its smoke set) and two hand-written shards of
    the selection a run with ``params`` makes (1/2: its even positions, 2/2: its odd ones), every answer accepted
    but scenario ``wrong``'s."""
    from auditpacks.judges.reader import Reader
    from auditpacks.packs.pack import PackWriter
    from auditpacks.runner.scenarios.scenario_source import open_pack
    from auditpacks.runner.scenarios.selection import for_run
    from auditpacks.runner.scenarios.shard import selection_hash
    from auditpacks.runner.settings.config import SelectionConfig

    pack = tmp_path / "tiny.json"
    scenarios = {s["name"]: s for s in (tiny_scenario(i) for i in range(10))}
    names = list(scenarios)
    with PackWriter(pack, builder="tests", extra={"grading": {"judge": "choice_match"},
                                                  "smoke": [names[3], names[7]]}) as writer:
        for scenario in scenarios.values():
            writer.add(scenario)
    streamed = open_pack(pack)
    chosen = for_run(streamed, SelectionConfig(**params), Reader.of("choice_match", "tests").question)
    results = [choice_result(scenarios[c["name"]], "nonsense" if c["name"] == names[wrong or 0] and wrong is not None
                             else scenarios[c["name"]]["decision"]["accepted"][0]) for c in chosen]
    folders = []
    for index in (1, 2):
        positions = list(range(index - 1, len(chosen), 2))
        folder = shard(tmp_path / f"s{index}", index, positions, [results[i] for i in positions])
        data = json.loads((folder / "m.run.json").read_text(encoding="utf-8"))
        data["pack"] = {"name": "tiny.json", "sha256": streamed.sha256, "builder": "tests", "scenarios_in_pack": 10}
        data["shard"].update(selected=len(chosen), selection_sha256=selection_hash(chosen))
        data["parameters"] = params
        (folder / "m.run.json").write_text(json.dumps(data), encoding="utf-8")
        folders.append(folder)
    return pack, folders, [c["name"] for c in chosen]


def test_a_merge_with_the_pack_recomputes_the_figures(tmp_path):
    pack, folders, chosen = pack_shards(tmp_path, wrong=0)
    merged = merge(folders, tmp_path / "out", pack=pack)
    assert (merged.summary.headline["tasks"], merged.summary.headline["micro"]) == (10, 0.9)
    assert (merged.summary.outcomes["correct"], merged.summary.outcomes["wrong"]) == (9, 1)


@pytest.mark.parametrize("params, count", [({"smoke": True}, 2), ({"per_question": 1, "seed": 1}, 5),
                                           ({"per_question": 1}, 5),   # no seed recorded: the default, 0
                                           ({"limit": 4}, 4), ({"limit": 20, "allow_fewer": True}, 10)])
def test_the_pack_is_checked_against_the_selection_the_shards_recorded(tmp_path, params, count):
    """The selection is made again from the recorded settings (per question: the reader's questions, q0 to q4)."""
    pack, folders, chosen = pack_shards(tmp_path, **params)
    merge(folders, tmp_path / "out", pack=pack)
    merged = json.loads((tmp_path / "out" / "m.json").read_text(encoding="utf-8"))["results"]
    assert [r["scenario_name"] for r in merged] == chosen and len(chosen) == count


def test_the_pack_must_be_the_one_the_shards_ran(tmp_path):
    pack, folders, _ = pack_shards(tmp_path)
    first = RunRecord.load(folders[0] / "m.run.json")
    other = write_pack(tmp_path / "other.json", 4)
    with pytest.raises(MergeError, match=r"^other.json: not the pack the shards ran \(sha256 [0-9a-f]{12}… vs "
                                         r"[0-9a-f]{12}…\)$"):
        pack_scenarios(other, first, [0, 1, 2], [], [])
    with pytest.raises(MergeError, match=r"^tiny.json: the recorded selection does not match this pack's$"):
        pack_scenarios(pack, changed(first, selection_sha256="x"), [0], [], [])
    names = [s["name"] for s in json.loads(pack.read_text(encoding="utf-8"))]
    with pytest.raises(MergeError) as refused:
        pack_scenarios(pack, first, [1, 0], [{"scenario_name": names[1]}, {"scenario_name": names[2]}], [])
    assert str(refused.value) == f"result {names[2]!r} sits where the pack has {names[0]!r}"
    with pytest.raises(MergeError, match=r"^unanswered scenario 'nope' is not in the selection$"):
        pack_scenarios(pack, first, [0], [{"scenario_name": names[0]}], [names[1], "nope"])
    _, scenarios, stubs = pack_scenarios(pack, first, [2, 0], [{"scenario_name": names[2]},
                                                               {"scenario_name": names[0]}], [names[1]])
    assert [s["name"] for s in scenarios] == [names[2], names[0]] and [s["name"] for s in stubs] == [names[1]]


def test_the_merged_record_adds_up_its_shards_in_shard_order(tmp_path):
    """Ten shards given last first (so "10/10" would sort before "2/10" as text), one result each; shard 3 also
    skipped one scenario, left unanswered."""
    folders = []
    for index in range(1, 11):
        folder = shard(tmp_path / f"s{index}", index, [index - 1], [result(f"r{index}")])
        data = json.loads((folder / "m.run.json").read_text(encoding="utf-8"))
        data["shard"].update(spec=f"{index}/10", count=10, selected=11)
        data.update(cache={"hits": index}, cost={"usd": 0.5}, performance={"requests": 1, "fallbacks": [f"f{index}"]},
                    seconds=0.1234,
                    started=f"2026-12-{20 - index:02d}T00:00:00", parameters={"shard": f"{index}/10", "limit": 11})
        data["rounds"][0]["summary"] = {"scenarios": 1, "completed": 1, "errors": 0}
        if index == 3:
            data["summary"].update(skipped={"too long": 1}, unanswered=["x"])
        (folder / "m.run.json").write_text(json.dumps(data), encoding="utf-8")
        folders.append(folder)
    merged = merge(folders[::-1], tmp_path / "out")
    assert merged.merged_from == {"shards": [f"{i}/10" for i in range(1, 11)], "selection_sha256": "s",
                                  "selected": 11}
    assert (merged.cache, merged.cost) == ({"hits": 55}, {"usd": 5.0})
    assert merged.performance == {"requests": 10, "fallbacks": [f"f{i}" for i in range(1, 11)]}
    assert merged.started == "2026-12-10T00:00:00" and merged.shard is None and merged.seconds == 1.23
    assert merged.parameters == {"shard": None, "limit": 11, "more_base_urls": []}
    assert (merged.summary.skipped, merged.summary.unanswered) == ({"too long": 1}, ["x"])
    assert [(r.round, r.results, r.summary) for r in merged.rounds] == [(1, "m.json", None)]
    assert RunRecord.load(tmp_path / "out" / "m.run.json").to_dict() == merged.to_dict()


def test_merge_takes_the_named_models_shards(tmp_path):
    folders = [shard(tmp_path / "s1", 1, [0, 2], [result("a"), result("c")]),
               shard(tmp_path / "s2", 2, [1], [result("b")])]
    for folder in folders:     # another model's shard run beside each
        RunRecord.load(folder / "m.run.json").save(folder / "n.run.json")
    assert merge(folders, tmp_path / "out", model="m").merged_from["shards"] == ["1/2", "2/2"]


def test_an_unanswered_scenario_counts_in_the_recomputed_figures(tmp_path):
    pack, folders, chosen = pack_shards(tmp_path)
    data = json.loads((folders[1] / "m.run.json").read_text(encoding="utf-8"))
    results = json.loads((folders[1] / "m.json").read_text(encoding="utf-8"))
    dropped = results["results"].pop()["scenario_name"]       # shard 2's last scenario: skipped, unanswered
    data["shard"]["positions"].pop()
    data["summary"].update(skipped={"too long": 1}, unanswered=[dropped])
    (folders[1] / "m.json").write_text(json.dumps(results), encoding="utf-8")
    (folders[1] / "m.run.json").write_text(json.dumps(data), encoding="utf-8")
    merged = merge(folders, tmp_path / "out", pack=pack)
    assert (merged.summary.headline["tasks"], merged.summary.headline["micro"]) == (10, 0.9)
    assert merged.summary.unanswered == [dropped]


def test_a_shard_whose_results_cannot_be_read_is_named(tmp_path, monkeypatch):
    from auditpacks.runner.run import merge as merging

    folder = shard(tmp_path / "s1", 1, [0], [result("a")])

    def unreadable(path):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(merging, "scan_results", unreadable)
    with pytest.raises(MergeError) as refused:
        load_shard(folder, None)
    assert str(refused.value) == f"{folder / 'm.json'}: cannot read the shard's results (PermissionError)"
