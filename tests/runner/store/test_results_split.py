"""Every part of a split results file stays under the size limit, whatever the size of its results and of
their issues (which its header repeats): results larger than the room a header keeps, headers larger than
half the limit, parts packed to the byte."""

from __future__ import annotations

import json

import pytest
from simpleaudit import AuditResults

from auditpacks.core.runs.results import iter_results
from auditpacks.runner.store.results_file import slim_result, write_results

LIMIT = 20_000


def result(i: int, reply: int, issues: int) -> dict:
    """A result whose reply is ``reply`` bytes and which names ``issues`` issues of its own (60 bytes each)."""
    return {"scenario_name": f"S{i}", "scenario_description": "d",
            "conversation": [{"role": "user", "content": f"question {i}", "documents": [f"judgment {i // 3}" * 50]},
                             {"role": "assistant", "content": "r" * reply}],
            "severity": "pass" if i % 2 else "high", "issues_found": [f"issue {i}.{k} ".ljust(60, "x")
                                                                      for k in range(issues)],
            "positive_behaviors": [], "summary": "s", "recommendations": [f"recommendation {i % 4}"],
            "expected_behavior": ["e"], "auditor_input_tokens": 0, "auditor_output_tokens": 0,
            "judge_input_tokens": 0, "judge_output_tokens": 0, "target_input_tokens": 10, "target_output_tokens": 2}


def check(tmp_path, results, limit=LIMIT):
    path = tmp_path / "m.json"
    written = write_results(path, [slim_result(r) for r in results], iter(results), limit=limit)
    parts = [p for p in written if p.suffix == ".json"]
    assert len(parts) > 1
    sizes = {p.name: p.stat().st_size for p in parts}
    assert max(sizes.values()) <= limit, sizes
    assert sum(len(AuditResults.load(str(p))) for p in parts) == len(results)
    assert [r.raw for r in iter_results(path)] == results
    return sizes


# (reply bytes, issues per result): results larger than 4 KB, issues that make the header of all
# results larger than half the limit, and both
@pytest.mark.parametrize("reply, issues", [(5_000, 0), (9_000, 0), (14_000, 0), (500, 4), (6_000, 3), (3_000, 8)])
def test_every_part_is_under_the_limit(tmp_path, reply, issues):
    check(tmp_path, [result(i, reply, issues) for i in range(40)])


@pytest.mark.parametrize("seed", range(6))
def test_mixed_sizes_stay_under_the_limit(tmp_path, seed):
    import random

    rng = random.Random(seed)
    results = [result(i, rng.choice([10, 800, 4_500, 9_000, 15_000]), rng.choice([0, 0, 1, 6, 20]))
               for i in range(30)]
    check(tmp_path, results)


def test_parts_are_filled_not_left_half_empty(tmp_path):
    # 40 results of about 5.5 KB under a 20 KB limit: three fit in a part beside its header (about 1 KB)
    sizes = list(check(tmp_path, [result(i, 5_000, 0) for i in range(40)]).values())
    one = len(json.dumps(result(0, 5_000, 0), indent=2).encode())
    assert len(sizes) == 14   # 13 parts of 3, then one of 1
    assert all(size + one > LIMIT - 500 for size in sizes[:-1])   # every part but the last holds what fits


def test_a_result_over_the_limit_alone_is_written_alone_and_named(tmp_path, capsys):
    results = [result(i, 500, 0) for i in range(10)] + [result(10, 30_000, 0)] + [result(11, 500, 0)]
    path = tmp_path / "m.json"
    written = write_results(path, [slim_result(r) for r in results], iter(results), limit=LIMIT)
    over = [p for p in written if p.suffix == ".json" and p.stat().st_size > LIMIT]
    assert len(over) == 1 and [r["scenario_name"] for r in json.loads(over[0].read_text())["results"]] == ["S10"]
    err = capsys.readouterr().err
    assert "S10" in err and over[0].name in err and "20,000" in err
    assert [r.raw for r in iter_results(path)] == results


def test_the_first_parts_list_of_parts_fits_however_many_parts_there_are(tmp_path):
    # a long results file name and 150 parts: the first part's list of the others is about 15 KB
    results = [result(i, 3_000, 0) for i in range(600)]
    path = tmp_path / ("results_" + "m" * 80 + ".json")
    written = write_results(path, [slim_result(r) for r in results], iter(results), limit=LIMIT)
    parts = [p for p in written if p.suffix == ".json"]
    assert len(parts) > 100 and len(json.loads(path.read_text())["parts"]) == len(parts) - 1
    assert max(p.stat().st_size for p in parts) <= LIMIT
