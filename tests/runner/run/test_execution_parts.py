"""What executing a set-up run hands its parts, in process over fakes: the progress display (every round's
scenarios, the plan file, shown or logged as asked), the rounds (under the early-failure watch, off for a batch
run), the connections closed after, and a panel's further judges over round 1 only when there is a panel and a
judge model."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from auditpacks.runner.readiness.fail_fast import FailFast
from auditpacks.runner.run import execution
from auditpacks.runner.trust import judge_panel
from tests.support.run_config import run_config


class Fakes:
    """The progress display, the rounds and the panel, each keeping what it was handed."""

    def __init__(self, monkeypatch) -> None:
        self.calls: dict[str, tuple] = {}
        fakes = self

        class Printer:
            def __init__(self, *args, **kwargs) -> None:
                fakes.calls["printer"] = (args, kwargs)

            def __enter__(self):
                return self

            def __exit__(self, *exc) -> None:
                pass

        async def run_rounds(*args):
            self.calls["rounds"] = args
            return [round_outcome(1), round_outcome(2)]

        def run_panel(*args, **kwargs):
            self.calls["panel"] = (args, kwargs)
            return {"alpha": 0.5}

        monkeypatch.setattr(execution, "ProgressPrinter", Printer)
        monkeypatch.setattr(execution, "run_rounds", run_rounds)
        monkeypatch.setattr(judge_panel, "run_panel", run_panel)


def round_outcome(n: int) -> SimpleNamespace:
    return SimpleNamespace(scenarios=[f"a{n}", f"b{n}"], results=[f"result a{n}", f"result b{n}"])


class Closable:
    def __init__(self, **attributes) -> None:
        self.closed = False
        self.__dict__.update(attributes)

    async def aclose(self) -> None:
        self.closed = True


class Journal:
    def __init__(self) -> None:
        self.state = "open"

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.state = "closed"


def prepared(tmp_path, *, judge: bool = True, **settings) -> SimpleNamespace:
    judge_model = SimpleNamespace(record=lambda: {"model": "j"}) if judge else None
    pack = SimpleNamespace(manifest={"builder": "toy"}, lazy=lambda names: ("lazy", tuple(names)),
                           load=lambda name: f"loaded {name}")
    return SimpleNamespace(
        config=run_config(**{"repeats": 2, "show_progress": False, "stop_after": 4, **settings}),
        journal=Journal(), runnable=["a", "b", "c"], folder=tmp_path, stem="m", engine="engine",
        target=Closable(), roles=Closable(judge=judge_model), pack=pack, reader="reader",
        endpoint=SimpleNamespace(embedded_url="http://127.0.0.1:5/v1"), cache="cache", embedded_identity={"e": 1})


@pytest.mark.parametrize("settings", [{}, {"show_progress": True, "log_progress": True}])
def test_the_progress_counts_every_rounds_scenarios_and_shows_as_asked(monkeypatch, tmp_path, settings):
    fakes, prep = Fakes(monkeypatch), prepared(tmp_path, **settings)
    execution.execute(prep)
    show, log = settings.get("show_progress", False), settings.get("log_progress", False)
    assert fakes.calls["printer"] == ((6,), {"show": show, "plan": tmp_path / "m.progress.jsonl", "log": log})


@pytest.mark.parametrize("batch, limit", [(False, 4), (True, 0)])
def test_the_rounds_run_under_the_early_failure_watch_then_the_connections_close(monkeypatch, tmp_path, batch,
                                                                                 limit):
    """A batch's results come back together, already paid for: its watch never stops the run."""
    fakes, prep = Fakes(monkeypatch), prepared(tmp_path, batch_api=batch)
    executed = execution.execute(prep)
    engine, target, scenarios, journal, config, watched, reader = fakes.calls["rounds"]
    assert (engine, target, scenarios, journal, config, reader) == (
        "engine", prep.target, ("lazy", ("a", "b", "c")), prep.journal, prep.config, "reader")
    assert isinstance(watched, FailFast) and (watched.limit, watched.watching) == (limit, limit > 0)
    assert (prep.target.closed, prep.roles.closed, prep.journal.state) == (True, True, "closed")
    assert [o.scenarios for o in executed.outcomes] == [["a1", "b1"], ["a2", "b2"]]


def test_a_panel_grades_round_ones_transcripts(monkeypatch, tmp_path):
    fakes, prep = Fakes(monkeypatch), prepared(tmp_path, judge_model="j", panel_models=("k",))
    assert execution.execute(prep).panel == {"alpha": 0.5}
    assert fakes.calls["panel"] == ((prep.config,), {
        "manifest": {"builder": "toy"}, "scenarios": ["loaded a1", "loaded b1"], "results": ["result a1", "result b1"],
        "first_judge": {"model": "j"}, "embedded_url": "http://127.0.0.1:5/v1", "cache": "cache",
        "embedded_identity": {"e": 1}})


@pytest.mark.parametrize("settings, judge", [({}, True), ({"panel_models": ("k",)}, False)])
def test_no_panel_without_further_judges_or_a_judge_model(monkeypatch, tmp_path, settings, judge):
    fakes = Fakes(monkeypatch)
    assert execution.execute(prepared(tmp_path, judge=judge, **settings)).panel is None
    assert "panel" not in fakes.calls
