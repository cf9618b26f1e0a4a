"""A decision run skips, counts and explains the scenarios its endpoint cannot take."""

from __future__ import annotations

import json

from auditpacks.runner.cli.main import main
from tests.runner.systemone.test_decision import FakeSystemOne
from tests.support.iustitia import build_pack


def test_option_and_body_limits_are_skipped_counted_and_explained(tmp_path, capsys):
    scenarios = build_pack(tmp_path)
    big = next(s for s in scenarios if s["name"] == "GUILTY.VERDICT - domv901")
    big["documents"] = [big["documents"][0] + " fjalë" * 14_000]  # well over Ollama's 64 KiB body limit
    pack = tmp_path / "edited.json"
    pack.write_text(json.dumps(scenarios, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "run"
    with FakeSystemOne() as server:
        code = main(["run", "--pack", str(pack), "--decision", "ollama", "--target", "clef", "--base-url",
                     server.root, "--batch-questions", "1", "--out", str(out), "--quiet"])
    run = json.loads((out / "clef.run.json").read_text())
    assert code == (3 if run["summary"]["errors"] else 0), run["summary"]
    assert run["summary"]["skipped"] == {"over 26 options": 3, "over the endpoint's 65536-byte request limit": 1}
    assert run["summary"]["scenarios"] == len(scenarios) - 4
    warning = [line for line in capsys.readouterr().err.splitlines() if "skipped" in line]
    assert len(warning) == 1 and "GUILTY.VERDICT - domv901" in warning[0] and "64 KiB" in warning[0]
    head = run["summary"]["headline"]
    # the 3 over 26 options move the headline to the ≤26-option track (12 tasks); the one skipped for its size
    # is an eligible task with no answer there: in the denominator, never a prediction
    assert (head["track"], head["tasks"], head["skipped"], head["skipped_over_limit"]) == ("le26", 12, 4, 3)
    assert head["predictions"] <= 11 and head["coverage"] == head["predictions"] / 12
    full = head["full_track"]  # beside it, the full track: all 15, every skipped one counted wrong
    assert full["tasks"] == len(scenarios) == 15 and full["coverage"] == head["predictions"] / 15
    # the record names the unanswered scenarios, so a report recomputes the same headline from the files
    assert len(run["summary"]["unanswered"]) == 4 and "GUILTY.VERDICT - domv901" in run["summary"]["unanswered"]
    from auditpacks.runner.reporting.runs import load_runs

    (loaded,) = load_runs([out / "clef.run.json"], [pack])
    assert loaded.headline().values == json.loads(json.dumps(head))


def test_merged_shards_count_their_unanswered_scenarios_like_one_run(tmp_path):
    scenarios = build_pack(tmp_path)  # three scenarios have more than 26 options: skipped, unanswered
    pack = tmp_path / "copy.json"
    pack.write_text(json.dumps(scenarios, ensure_ascii=False), encoding="utf-8")
    common = ["--decision", "ollama", "--target", "clef", "--batch-questions", "1", "--quiet"]
    with FakeSystemOne() as server:
        for name, extra in (("whole", []), ("s1", ["--shard", "1/2"]), ("s2", ["--shard", "2/2"])):
            main(["run", "--pack", str(pack), "--base-url", server.root, "--out", str(tmp_path / name),
                  *common, *extra])
    assert main(["merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "merged"),
                 "--pack", str(pack)]) in (0, 3)
    whole = json.loads((tmp_path / "whole" / "clef.run.json").read_text())["summary"]
    merged = json.loads((tmp_path / "merged" / "clef.run.json").read_text())["summary"]
    assert sorted(merged["unanswered"]) == sorted(whole["unanswered"]) and len(whole["unanswered"]) == 3
    assert merged["headline"]["full_track"]["tasks"] == whole["headline"]["full_track"]["tasks"] == len(scenarios)
    assert merged["headline"] == whole["headline"]
