"""What the recording step hands each part of the run's record, in process over fakes of its parts: the rounds'
notes and counts, the shard produced, the record's endpoint, timing, cache, models and performance, the cost of a
chat run on a named endpoint only, the judge checks over every round, the record's file and the finish time."""

from __future__ import annotations

import datetime as dt
import time
from types import SimpleNamespace

import pytest

from auditpacks.runner.run import recording
from auditpacks.runner.run.endpoint import Endpoint
from tests.support.run_config import run_config

USAGE = {"input_tokens": 120, "output_tokens": 30}


class Parts:
    """The parts ``record`` calls, each keeping what it was handed."""

    def __init__(self, monkeypatch) -> None:
        self.calls: dict[str, tuple] = {}
        for name, returned in (("save_rounds", (["round 1"], "summary")), ("cost_record", "cost"),
                               ("attach_judge_checks", None), ("mark_finished", None)):
            monkeypatch.setattr(recording, name, self.keeper(name, returned))
        monkeypatch.setattr(recording, "shard", SimpleNamespace(produced=self.keeper("produced", "shard produced")))
        monkeypatch.setattr(recording, "run_record", self.keeper("run_record", None))

    def keeper(self, name: str, returned):
        def keep(*args, **kwargs):
            self.calls[name] = (args, kwargs)
            if name == "run_record":
                return SimpleNamespace(save=lambda path: self.calls.__setitem__("saved", ((path,), {})))
            return returned
        return keep


def outcome(n: int) -> SimpleNamespace:
    return SimpleNamespace(scenarios=[f"s{n}"], results=[f"r{n}"], groups=n + 1, earlier_groups=n, resumed=2 * n)


def prepared(tmp_path, *, ep: Endpoint | None = None, notes=("context cut",), probe=None, cache=True, shard=True,
             **settings) -> SimpleNamespace:
    config = run_config(target="m", base_url="http://h/v1", seed=7, **settings)
    target = SimpleNamespace(stats=lambda: {"usage": USAGE, "prefill": 3}, notes=lambda: list(notes))
    pack = SimpleNamespace(manifest={"builder": "toy"}, load=lambda s: s, scenarios=[1, 2, 3, 4])
    return SimpleNamespace(
        config=config, pack=pack, endpoint=ep or Endpoint(model="m", base_url="http://h/v1"), target=target,
        probe=probe, folder=tmp_path, stem="m", reader="reader", skipped={"no decision": 1}, journal="journal",
        assigned=[0, 2], shard_record={"spec": "1/2"} if shard else None, model="m", judge="choice",
        started="2026-12-06T10:00:00+00:00", clock=time.monotonic() - 5, fingerprint="fp", digest="sha256:d",
        cache=SimpleNamespace(stats=lambda: {"hits": 1}) if cache else None,
        roles=SimpleNamespace(record=lambda: {"judge": {"model": "j"}}, judge="judge client"))


def recorded(monkeypatch, prep) -> tuple[Parts, object]:
    parts = Parts(monkeypatch)
    executed = SimpleNamespace(outcomes=[outcome(1), outcome(2)], panel={"alpha": 0.5})
    return parts, recording.record(prep, executed)


def test_the_rounds_get_the_notes_and_the_packs_counts(monkeypatch, tmp_path):
    prep = prepared(tmp_path, probe={"warnings": ["slow answers"]})
    parts, _ = recorded(monkeypatch, prep)
    args, kwargs = parts.calls["save_rounds"]
    assert args[1:] == (tmp_path, "m") and [o.scenarios for o in args[0]] == [["s1"], ["s2"]]
    assert kwargs == {"reader": "reader", "seed": 7, "skipped": {"no decision": 1},
                      "notes": ["context cut", "decision probe: slow answers"], "journal": "journal",
                      "load": prep.pack.load, "selected": [0, 2], "in_pack": 4}


def test_no_notes_is_none(monkeypatch, tmp_path):
    parts, _ = recorded(monkeypatch, prepared(tmp_path, notes=()))
    assert parts.calls["save_rounds"][1]["notes"] is None


def test_the_record_gets_the_runs_endpoint_timing_cache_models_and_performance(monkeypatch, tmp_path):
    prep = prepared(tmp_path)
    parts, _ = recorded(monkeypatch, prep)
    assert parts.calls["produced"][0] == ({"spec": "1/2"}, [0, 2], ["s1"])
    args, kwargs = parts.calls["run_record"]
    assert args == (prep.config, prep.pack) and 5 <= kwargs.pop("seconds") < 60
    assert kwargs == {
        "model": "m", "base_url": "http://h/v1", "judge": "choice", "started": "2026-12-06T10:00:00+00:00",
        "embedded": False, "fingerprint": "fp", "digest": "sha256:d", "shard": "shard produced",
        "cache": {"hits": 1}, "rounds": ["round 1"], "models": {"judge": {"model": "j"}}, "summary": "summary",
        "performance": {"prompt_order": "auto", "scheduling": "by document", "documents": 5, "concurrency": 1,
                        "slot_pinning": prep.config.execution.slot_pinning, "usage": USAGE, "prefill": 3,
                        "earlier_attempts": {"scenarios": 6, "documents": 3}}}


def test_without_a_cache_or_a_shard_the_record_has_neither(monkeypatch, tmp_path):
    parts, _ = recorded(monkeypatch, prepared(tmp_path, cache=False, shard=False))
    assert "produced" not in parts.calls
    assert (parts.calls["run_record"][1]["cache"], parts.calls["run_record"][1]["shard"]) == (None, None)


@pytest.mark.parametrize("ep, settings, base_url, costed", [
    (None, {}, "http://h/v1", True),
    (Endpoint(model="smollm2", base_url="http://127.0.0.1:5/v1", embedded=True), {}, None, False),
    (None, {"decision": "url", "decision_url": "http://d/v1/decide"}, "http://d/v1/decide", False),
])
def test_a_chat_run_on_a_named_endpoint_is_costed_from_the_targets_usage(monkeypatch, tmp_path, ep, settings,
                                                                          base_url, costed):
    """The embedded model's URL changes every run and costs nothing; a decision run is no chat."""
    prep = prepared(tmp_path, ep=ep, probe={"warnings": []}, **settings)
    parts, result = recorded(monkeypatch, prep)
    assert parts.calls["run_record"][1]["base_url"] == base_url
    assert ("cost_record" in parts.calls, getattr(result, "cost", None)) == (costed, "cost" if costed else None)
    if costed:
        assert parts.calls["cost_record"][0] == (prep.config, "m", USAGE)
    assert result.decision_probe == {"warnings": []}


def test_the_judge_checks_see_every_round_then_the_record_is_saved_and_the_run_finished(monkeypatch, tmp_path):
    prep = prepared(tmp_path)
    parts, result = recorded(monkeypatch, prep)
    args, kwargs = parts.calls["attach_judge_checks"]
    assert args == (result,) and kwargs == {
        "manifest": {"builder": "toy"}, "judge": "choice", "judge_client": "judge client", "scenarios": ["s1", "s2"],
        "results": ["r1", "r2"], "load": prep.pack.load, "panel": {"alpha": 0.5}}
    assert parts.calls["saved"][0] == (tmp_path / "m.run.json",)
    config, folder, when = parts.calls["mark_finished"][0]
    assert (config, folder, when.utcoffset()) == (prep.config, tmp_path, dt.timedelta(0))
