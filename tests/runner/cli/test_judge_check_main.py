"""``judge_check.main`` in process on a built jacite pack, the judge replaced by a fake ``grade`` whose verdicts are
chosen per test: what it hands the judge, what it writes and prints, and when it stops with bad input."""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
from pathlib import Path

import pytest

from auditpacks.runner.cli import judge_check
from auditpacks.runner.cli.main import main as cli
from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.run import endpoint as endpoint_module
from auditpacks.runner.trust.judge_calibration import Graded
from tests.support.paths import FIXTURES

#: jacite's core kinds per scenario (gold and two should-fail ones); each gets a ``longer`` probe, none a reordered one.
ITEMS_PER_SCENARIO = 6


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("pack") / "jacite.json"
    assert cli(["build", "jacite", "--source", str(FIXTURES / "jacite"), "--out", str(path)]) == 0
    return path


class FakeGrade:
    """``grade`` with a verdict per item from ``verdict(item)``; records what it was given."""

    def __init__(self, verdict=lambda item: item.expected, error=None) -> None:
        self.verdict, self.error, self.calls = verdict, error, []

    async def __call__(self, items, config, **kwargs):
        self.calls.append({"items": list(items), "config": config, **kwargs})
        print("judge chatter")
        graded = Graded(judge={"model": config.roles.judge_model, "provider": "openai", "base_url": None})
        for item in items:
            verdict = self.verdict(item)
            graded.verdicts[item.id] = verdict
            graded.judgments[item.id] = ({"severity": "ERROR", "error": f"{self.error} {item.id}"} if verdict is None
                                         else {"severity": "pass"})
            kwargs["on_done"]({"severity": "pass", "judgment": {}})
        return graded


def run(pack: Path, tmp_path: Path, monkeypatch, fake: FakeGrade, *argv: str, embedded_url: str | None = None):
    """``judge_check.main`` on ``pack`` with ``fake`` as the judge; its exit code."""
    @contextlib.contextmanager
    def endpoint(config):
        yield endpoint_module.Endpoint(model="m", base_url=None, embedded_url=embedded_url)

    monkeypatch.setattr(judge_check, "grade", fake)
    monkeypatch.setattr(endpoint_module, "endpoint", endpoint)
    monkeypatch.setattr(endpoint_module, "embedded_identity", lambda: {"digest": "d"})
    parser = argparse.ArgumentParser()
    judge_check.add_arguments(parser)
    args = parser.parse_args(["--pack", str(pack), "--judge-model", "jüdge", "--out", str(tmp_path / "q"), *argv])
    return judge_check.main(args)


def scenarios_in(pack: Path) -> int:
    return len(json.loads(pack.read_text(encoding="utf-8")))


def test_a_correct_judge_is_qualified_and_its_qualification_is_written_and_printed_as_json(pack, tmp_path,
                                                                                       monkeypatch, capsys):
    fake = FakeGrade()
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    assert run(pack, tmp_path, monkeypatch, fake, "--json") == 0
    out, err = capsys.readouterr()
    assert out.startswith('{\n  "created": ') and '"jüdge"' in out    # indented, not ASCII-escaped
    data = json.loads(out)
    n = scenarios_in(pack)
    created = dt.datetime.fromisoformat(data["created"])
    assert created.tzinfo == dt.timezone.utc and created.microsecond == 0
    assert before <= created <= dt.datetime.now(dt.timezone.utc)
    assert data["pack"] == {"name": "jacite.json", "sha256": judge_check.open_pack(pack).sha256, "scenarios": n}
    assert data["settings"] == {"model": "jüdge", "provider": "openai", "base_url": None}
    assert data["qualified"] is True and data["items"] == ITEMS_PER_SCENARIO * n
    items = fake.calls[0]["items"]
    assert data["transcripts"] == [{"id": i.id, "kind": i.kind, "expected": i.expected, "probe": i.probe,
                                    "base": i.base, "verdict": i.expected} for i in items]
    saved = Path(data["file"])
    assert saved.parent == tmp_path / "q" and saved.name.endswith(".jacite.qualification.json")
    assert json.loads(saved.read_text(encoding="utf-8"))["transcripts"] == data["transcripts"]
    assert "judge chatter" in err and "judge chatter" not in out   # the judge's stdout goes to stderr
    assert f"[{len(items)}/{len(items)}] " in err                  # a progress line per item, the last one at the end


def test_the_judge_is_given_the_items_the_manifest_and_the_run_settings(pack, tmp_path, monkeypatch, capsys):
    fake = FakeGrade()
    run(pack, tmp_path, monkeypatch, fake, "--limit", "2", "--concurrency", "3")
    call = fake.calls[0]
    assert len(call["items"]) == 2 * ITEMS_PER_SCENARIO
    assert [i.probe for i in call["items"]] == [None] * 6 + ["longer"] * 6
    assert call["manifest"] == judge_check.open_pack(pack).manifest
    assert (call["config"].roles.judge_model, call["config"].execution.concurrency) == ("jüdge", 3)
    assert (call["embedded_url"], call["embedded_identity"], call["cache"]) == (None, None, None)
    assert "qualified" not in capsys.readouterr().out.splitlines()[0]   # the report, not JSON, without --json


@pytest.mark.parametrize("cached, identity", [(False, None), (True, {"digest": "d"})])
def test_an_embedded_judge_is_named_by_its_file_only_when_replies_are_cached(pack, tmp_path, monkeypatch, cached,
                                                                          identity):
    fake = FakeGrade()
    argv = ["--cache", str(tmp_path / "c")] if cached else []
    run(pack, tmp_path, monkeypatch, fake, "--limit", "1", *argv, embedded_url="http://127.0.0.1:1")
    call = fake.calls[0]
    assert (call["embedded_url"], call["embedded_identity"]) == ("http://127.0.0.1:1", identity)
    assert isinstance(call["cache"], ResponseCache) is cached


@pytest.mark.parametrize("limit", [1, 3])
def test_the_pack_entry_counts_the_chosen_scenarios(pack, tmp_path, monkeypatch, capsys, limit):
    run(pack, tmp_path, monkeypatch, FakeGrade(), "--json", "--limit", str(limit))
    data = json.loads(capsys.readouterr().out)
    assert (data["pack"]["scenarios"], data["items"]) == (limit, ITEMS_PER_SCENARIO * limit)


def test_the_scenarios_are_sampled_as_asked_and_fewer_than_the_limit_are_enough(pack, tmp_path, monkeypatch):
    asked = []

    def spy(chosen_pack, **kwargs):
        asked.append(kwargs)
        return real(chosen_pack, **kwargs)

    real = judge_check.select.select
    monkeypatch.setattr(judge_check.select, "select", spy)
    run(pack, tmp_path, monkeypatch, FakeGrade(), "--per-question", "2", "--limit", "99", "--seed", "7")
    question = asked[0].pop("question")
    assert asked == [{"smoke": False, "per_question_n": 2, "limit": 99, "seed": 7, "allow_fewer": True}]
    assert callable(question)


@pytest.mark.parametrize("reasons, tail", [(["too few items"], "too few items (exit 4)"),
                                           (["a", "b"], "a (and 1 more reasons) (exit 4)"),
                                           (["a", "b", "c"], "a (and 2 more reasons) (exit 4)")])
def test_a_judge_below_the_bar_exits_4_with_its_first_reason(pack, tmp_path, monkeypatch, capsys, reasons, tail):
    monkeypatch.setattr(judge_check, "assess", lambda items, verdicts: {
        "qualified": False, "reasons": reasons, "bar": {}, "items": len(items), "expectations": [], "kappa": None,
        "ungraded": 0, "bias": []})
    assert run(pack, tmp_path, monkeypatch, FakeGrade(), "--limit", "1") == judge_check.EXIT_NOT_QUALIFIED == 4
    out, err = capsys.readouterr()
    assert err.splitlines()[-1] == f"auditpacks: judge jüdge is not qualified on jacite: {tail}"
    assert "NOT QUALIFIED" in out


def test_a_judge_whose_every_call_failed_is_bad_input_but_one_that_answered_once_is_assessed(pack, tmp_path,
                                                                                           monkeypatch, capsys):
    failing = FakeGrade(verdict=lambda item: None, error="refused")
    with pytest.raises(RunError) as caught:
        run(pack, tmp_path, monkeypatch, failing, "--limit", "1")
    first = failing.calls[0]["items"][0].id
    assert str(caught.value) == f"judge jüdge: every judge call failed, e.g. refused {first}"
    assert not (tmp_path / "q").exists()
    one = FakeGrade(verdict=lambda item: item.expected if item.probe is None else None, error="refused")
    assert run(pack, tmp_path, monkeypatch, one, "--limit", "1", "--json") == 4
    rows = json.loads(capsys.readouterr().out)["transcripts"]
    assert [row.get("why_ungraded") for row in rows] == [None if row["probe"] is None else f"refused {row['id']}"
                                                         for row in rows]
    assert [row["verdict"] for row in rows] == [row["expected"] if row["probe"] is None else None for row in rows]


def test_the_report_names_the_benchmark_and_the_file_written(pack, tmp_path, monkeypatch, capsys):
    assert run(pack, tmp_path, monkeypatch, FakeGrade(), "--limit", "1") == 4
    lines = capsys.readouterr().out.splitlines()
    saved = next((tmp_path / "q").glob("*.json"))
    assert lines[0] == "judge jüdge (openai) on jacite: 6 calibration items from 1 scenarios of jacite.json"
    verdict = next(line for line in lines if line.startswith("NOT QUALIFIED"))
    assert verdict.endswith(f"; written to {saved}")


def test_a_pack_without_a_benchmark_or_without_calibration_items_is_bad_input(pack, tmp_path, monkeypatch):
    from tests.support.tiny_pack import write_pack

    tiny = write_pack(tmp_path / "tiny.json", 2)
    with pytest.raises(RunError) as caught:
        run(tiny, tmp_path, monkeypatch, FakeGrade())
    names = ", ".join(sorted(judge_check.modules("judge_items")))
    assert str(caught.value) == (f"{tiny}: its manifest names no benchmark with calibration items ({names}); "
                                 "judge-check needs a pack built by auditpacks build")
    monkeypatch.setattr(judge_check, "calibration_items", lambda benchmark, scenarios, manifest: [])
    with pytest.raises(RunError) as caught:
        run(pack, tmp_path, monkeypatch, FakeGrade(), "--limit", "2")
    assert str(caught.value) == f"{pack}: none of the 2 chosen scenarios has what a calibration item needs"


def test_progress_counts_calibration_items_under_the_commands_name(pack, tmp_path, monkeypatch, capsys):
    made = []

    class Printer(judge_check.ProgressPrinter):
        def __init__(self, total, **kwargs) -> None:
            made.append((total, kwargs))
            super().__init__(total, **kwargs)

    monkeypatch.setattr(judge_check, "ProgressPrinter", Printer)
    run(pack, tmp_path, monkeypatch, FakeGrade(), "--limit", "2")
    assert made == [(2 * ITEMS_PER_SCENARIO, {"what": "item", "label": "judge-check"})]
