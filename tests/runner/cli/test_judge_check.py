"""``auditpacks judge-check`` with scripted judges whose behaviour is known, on the Iustitia and jacite fixtures.

The always-pass judge agrees on no should-fail item and the always-fail judge on no should-pass
item, by construction; the length-biased judge is correct on the short core items and passes
every padded one, so it flips exactly the padded should-fail items; the correct judge agrees
everywhere and flips nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditpacks.judges.trust.judge_items import GOLD
from auditpacks.runner.cli.main import main
from tests.support.fake_openai import FakeOpenAI
from tests.support.scripted_judge import answer
from tests.support.paths import FIXTURES

#: Core kinds per benchmark (the should-fail ones after GOLD) and whether its prompts list options.
BENCHMARKS = {"iustitia": (4, True), "jacite": (3, False)}


@pytest.fixture(scope="module")
def packs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("packs")
    assert main(["build", "iustitia", "--source", str(FIXTURES / "iustitia"),
                 "--out", str(folder / "iustitia.json")]) == 0
    assert main(["build", "jacite", "--source", str(FIXTURES / "jacite"), "--out", str(folder / "jacite.json")]) == 0
    return {"iustitia": folder / "iustitia.json", "jacite": folder / "jacite.json"}


@pytest.fixture(scope="module")
def server():
    with FakeOpenAI(answer=answer) as fake:
        yield fake


def check(pack: Path, judge: str, server: FakeOpenAI, out: Path, capsys) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["judge-check", "--pack", str(pack), "--judge-model", judge, "--judge-base-url", server.base_url,
                 "--out", str(out), "--json"])
    return code, json.loads(capsys.readouterr().out)


def scenarios_in(pack: Path) -> int:
    return len(json.loads(pack.read_text(encoding="utf-8")))


@pytest.mark.parametrize("bench", sorted(BENCHMARKS))
def test_always_pass_is_not_qualified_and_its_estimates_cover_the_truth(packs, server, tmp_path, capsys, bench):
    code, data = check(packs[bench], "judge-pass", server, tmp_path, capsys)
    n = scenarios_in(packs[bench])
    assert code == 4 and data["qualified"] is False
    gold, *failing = data["expectations"]
    assert (gold["kind"], gold["agree"], gold["graded"]) == (GOLD, n, n)
    for row in failing:   # agreement on should-fail items is 0 by construction
        assert (row["agreement"], row["graded"]) == (0.0, n) and row["wilson95"][0] == 0.0 < row["wilson95"][1]
    assert data["kappa"] == 0.0 and data["ungraded"] == 0
    assert all(row["flips"] == 0 for row in data["bias"])
    assert any("agreement on" in reason and "should fail" in reason for reason in data["reasons"])


@pytest.mark.parametrize("bench", sorted(BENCHMARKS))
def test_always_fail_is_not_qualified(packs, server, tmp_path, capsys, bench):
    code, data = check(packs[bench], "judge-fail", server, tmp_path, capsys)
    assert code == 4 and data["expectations"][0]["agreement"] == 0.0
    assert all(row["agreement"] == 1.0 for row in data["expectations"][1:])


@pytest.mark.parametrize("bench", sorted(BENCHMARKS))
def test_length_biased_is_not_qualified_by_its_longer_probe(packs, server, tmp_path, capsys, bench):
    code, data = check(packs[bench], "judge-longer", server, tmp_path, capsys)
    kinds, has_options = BENCHMARKS[bench]
    n = scenarios_in(packs[bench])
    assert code == 4 and data["kappa"] == 1.0
    assert all(row["agreement"] == 1.0 for row in data["expectations"])
    probes = {row["probe"]: row for row in data["bias"]}
    assert (probes["longer"]["pairs"], probes["longer"]["flips"]) == (kinds * n, (kinds - 1) * n)
    assert probes["longer"]["directions"] == {"fail → pass": (kinds - 1) * n}
    assert ("reordered" in probes) is has_options
    assert all(row["flips"] == 0 for p, row in probes.items() if p != "longer")
    assert len(data["reasons"]) == 1 and "'longer' probe" in data["reasons"][0]


@pytest.mark.parametrize("bench", sorted(BENCHMARKS))
def test_the_correct_judge_is_qualified_and_its_file_is_named_for_it(packs, server, tmp_path, capsys, bench):
    code, data = check(packs[bench], "judge-correct", server, tmp_path, capsys)
    assert code == 0 and data["qualified"] is True and data["reasons"] == []
    assert data["kappa"] == 1.0 and all(row["flips"] == 0 for row in data["bias"])
    saved = json.loads(Path(data["file"]).read_text(encoding="utf-8"))
    assert saved["judge"] == {"model": "judge-correct", "provider": "openai", "base_url": server.base_url}
    assert saved["benchmark"] == bench and saved["qualified"] is True
    assert len(saved["transcripts"]) == data["items"] and Path(data["file"]).parent == tmp_path
    kinds, has_options = BENCHMARKS[bench]
    core = kinds * scenarios_in(packs[bench])
    # jacite's prompts list no options: the option-order probe is skipped on every core item, and the file says so
    skipped = [] if has_options else [{"probe": "reordered", "skipped": core, "of": core,
                                       "why": "the prompt lists no options to reorder, so option-order bias is "
                                              "not measured"}]
    assert saved["skipped_probes"] == skipped
    assert bool(saved["not_measured"]) is not has_options


def test_a_qualification_with_a_skipped_probe_says_so_in_its_report_and_in_runs(packs, server, tmp_path, capsys):
    from auditpacks.judges.trust.qualification_store import status_line

    capsys.readouterr()
    assert main(["judge-check", "--pack", str(packs["jacite"]), "--judge-model", "judge-correct", "--judge-base-url",
                 server.base_url, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "probe 'reordered': skipped on " in out and "QUALIFIED on what was measured" in out
    saved = json.loads(next(tmp_path.glob("*.json")).read_text(encoding="utf-8"))
    line = status_line("jacite", {"model": "judge-correct"}, {**saved, "file": "q.json"})
    assert line.startswith("judge judge-correct: qualified on jacite (q.json, ")
    assert line.endswith("; not measured: 'reordered' probe skipped on " f"{saved['skipped_probes'][0]['of']} of "
                         f"{saved['skipped_probes'][0]['of']} items: the prompt lists no options to reorder, so "
                         "option-order bias is not measured")


def test_judge_calls_go_through_the_run_judge_path(packs, server, tmp_path, capsys):
    server.reset_counts()
    cache = tmp_path / "cache"
    args = ["judge-check", "--pack", str(packs["jacite"]), "--judge-model", "judge-correct", "--judge-base-url",
            server.base_url, "--out", str(tmp_path), "--cache", str(cache), "--limit", "2"]
    assert main(args) == 4   # two scenarios are too few to clear the bar, however well the judge does
    bodies = [b for b in server.bodies if b["model"] == "judge-correct"]
    assert len(bodies) == 12   # 2 scenarios × (3 core + 3 longer)
    for body in bodies:
        assert body["temperature"] == 0.0 and body["max_tokens"] == 1024
        assert body["response_format"]["type"] == "json_schema"
    server.reset_counts()
    assert main(args) == 4 and server.chat_requests == 0   # the run's response cache answers a rerun


def test_a_pack_without_calibration_items_and_an_unreachable_judge_are_bad_input(packs, tmp_path, capsys):
    from tests.support.tiny_pack import write_pack

    tiny = write_pack(tmp_path / "tiny.json", 2)
    assert main(["judge-check", "--pack", str(tiny), "--judge-model", "x", "--out", str(tmp_path)]) == 2
    assert "names no benchmark with calibration items" in capsys.readouterr().err
    assert main(["judge-check", "--pack", str(packs["jacite"]), "--judge-model", "x", "--judge-base-url",
                 "http://127.0.0.1:9/v1", "--max-retries", "0", "--limit", "1", "--out", str(tmp_path / "q")]) == 2
    assert "every judge call failed" in capsys.readouterr().err and not (tmp_path / "q").exists()
