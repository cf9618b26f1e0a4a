"""``auditpacks run`` with its steps faked: what goes to stdout and stderr, the exit code that says whether every
scenario was graded, the viewer line, the dry run's quote and the pilot's re-quote."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.core.errors import UserError
from auditpacks.runner.cli import run_command
from auditpacks.runner.display import summary_view
from auditpacks.runner.hosted import pilot, plan, plan_view
from auditpacks.runner.readiness import early
from auditpacks.runner.run import run as run_module
from auditpacks.runner.store import layout


def _record(scenarios, errors, completed, graded_all):
    return SimpleNamespace(summary=SimpleNamespace(scenarios=scenarios, errors=errors, completed=completed,
                                                   graded_all=graded_all))


@pytest.mark.parametrize("record, code, why", [
    (_record(3, 0, 3, True), 0, None),
    (_record(0, 0, 0, False), 3, "no scenario was selected"),
    (_record(5, 2, 3, False), 3, "2 of 5 scenarios ended in ERROR"),
    (_record(4, 0, 4, False), 3, "the judge graded none of the 4 scenarios (see why under ungraded)"),
])
def test_the_exit_code_says_whether_every_scenario_was_graded(monkeypatch, capsys, record, code, why):
    monkeypatch.setattr(summary_view, "print_summary", lambda r: print(f"table of {r.summary.scenarios}"))
    assert run_command.report_run(record, as_json=False) == code
    out, err = capsys.readouterr()
    assert out == f"table of {record.summary.scenarios}\n"
    assert err == ("" if why is None else f"auditpacks: incomplete: {why} (exit 3)\n")


def test_the_viewer_line_names_the_folder(tmp_path, capsys):
    run_command.print_viewer(tmp_path)
    assert capsys.readouterr().err == ("auditpacks: view the results: uvx simpleaudit-studio --visualize-only "
                                       f"--results_dir {tmp_path}\n")


def test_the_json_summary_is_indented_and_keeps_non_ascii(monkeypatch, capsys):
    monkeypatch.setattr(summary_view, "summary_json", lambda r: {"scenarios": r.summary.scenarios, "note": "ære"})
    assert run_command.report_run(_record(1, 0, 1, True), as_json=True) == 0
    assert capsys.readouterr().out == '{\n  "scenarios": 1,\n  "note": "ære"\n}\n'


class Fakes:
    """The run's steps replaced, each recording what it was given: the config is ``("config", args)``; the run
    prints a progress line and returns ``record``."""

    def __init__(self, monkeypatch, record, target="m"):
        self.calls = []
        self.admitted = SimpleNamespace(scenarios=["s1", "s2"])
        monkeypatch.setattr(run_command, "config_from_args",
                            lambda args: SimpleNamespace(args=args, target=SimpleNamespace(model=target)))
        monkeypatch.setattr(early, "refuse_early", lambda config: self.calls.append(("refuse", config)) or self.admitted)
        monkeypatch.setattr(run_module, "run", self.run)
        monkeypatch.setattr(layout, "located", lambda config, rec: self.calls.append(("located", config, rec))
                            or Path("/runs/r1"))
        self.record = record

    def run(self, config, admitted):
        self.calls.append(("run", config, admitted))
        print("progress")
        return self.record


def args(**given):
    return SimpleNamespace(**{"dry_run": False, "json": False, **given})


@pytest.mark.parametrize("as_json, out", [(True, '{\n  "scenarios": 2\n}\n'), (False, "table\n")])
def test_a_run_prints_its_progress_and_files_on_stderr_and_the_summary_last(monkeypatch, capsys, as_json, out):
    fakes = Fakes(monkeypatch, _record(2, 1, 1, False))
    monkeypatch.setattr(summary_view, "print_summary", lambda r: print("table"))
    monkeypatch.setattr(summary_view, "summary_json", lambda r: {"scenarios": r.summary.scenarios})
    given = args(json=as_json)
    assert run_command.run_command(given) == 3
    captured = capsys.readouterr()
    assert captured.out == out
    err = captured.err
    assert err.splitlines() == ["progress", "run files in /runs/r1",
                                "auditpacks: incomplete: 1 of 2 scenarios ended in ERROR (exit 3)",
                                "auditpacks: view the results: uvx simpleaudit-studio --visualize-only "
                                "--results_dir /runs/r1"]
    [(_, refused), (_, config, admitted), located] = fakes.calls
    assert refused is config and config.args is given and admitted is fakes.admitted
    assert located == ("located", config, fakes.record)


@pytest.mark.parametrize("pilot_given", [{}, {"pilot": 0}])
@pytest.mark.parametrize("as_json, out", [(True, '{\n  "total": "1 €"\n}\n'), (False, "quote table\n")])
def test_a_dry_run_quotes_and_sends_nothing(monkeypatch, capsys, as_json, out, pilot_given):
    """Without ``--pilot`` (or with it 0) the quote is all; no run is started."""
    fakes = Fakes(monkeypatch, None)
    quoted = SimpleNamespace(to_dict=lambda: {"total": "1 €"})
    monkeypatch.setattr(plan, "quote", lambda config: fakes.calls.append(("quote", config.args)) or quoted)
    monkeypatch.setattr(plan_view, "print_quote", lambda q: print("quote table") if q is quoted else None)
    given = args(dry_run=True, json=as_json, **pilot_given)
    assert run_command.run_command(given) == 0
    assert capsys.readouterr().out == out and fakes.calls == [("quote", given)]


def pilot_fakes(monkeypatch, cost, target="m"):
    fakes = Fakes(monkeypatch, SimpleNamespace(cost=cost), target=target)
    monkeypatch.setattr(pilot, "pilot_config", lambda config, n: SimpleNamespace(trial_of=config, n=n))
    monkeypatch.setattr(pilot, "requote", lambda config, cost, n: SimpleNamespace(
        of=(config.args, cost, n), to_dict=lambda: {"re-quoted": n, "billed": f"{cost['incurred']['cost']} €"}))
    monkeypatch.setattr(pilot, "pilot_line", lambda result: f"{result.of[2]} scenarios, {result.of[1]['incurred']['cost']}")
    return fakes


@pytest.mark.parametrize("as_json, out", [(True, '{\n  "re-quoted": 2,\n  "billed": "0.1 €"\n}\n'),
                                          (False, "2 scenarios, 0.1\n")])
def test_a_pilot_runs_the_first_n_and_requotes_from_their_bill(monkeypatch, capsys, as_json, out):
    fakes = pilot_fakes(monkeypatch, {"incurred": {"cost": 0.1}})
    given = args(dry_run=True, json=as_json, pilot=3)
    assert run_command.run_command(given) == 0
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (out, "progress\n")
    [(_, trial), (_, ran, admitted)] = fakes.calls
    assert (trial.trial_of.args, trial.n, ran, admitted) == (given, 3, trial, fakes.admitted)


@pytest.mark.parametrize("target, cost, message", [
    (None, {"incurred": {}}, "--pilot needs one --target: the model whose bill it reads"),
    ("m", None, "--pilot: m is not in the price table, so its bill cannot be read"),
])
def test_a_pilot_without_a_target_or_a_bill_is_refused(monkeypatch, target, cost, message):
    pilot_fakes(monkeypatch, cost, target=target)
    with pytest.raises(UserError, match=f"^{re.escape(message)}$"):
        run_command.run_command(args(dry_run=True, pilot=3))
