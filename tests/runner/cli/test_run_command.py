"""``auditpacks run``'s last lines: the exit code that says whether every scenario was graded, and the viewer."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from auditpacks.runner.cli import run_command
from auditpacks.runner.display import summary_view


def _record(scenarios, errors, completed, graded_all):
    return SimpleNamespace(summary=SimpleNamespace(scenarios=scenarios, errors=errors, completed=completed,
                                                   graded_all=graded_all))


@pytest.mark.parametrize("record, code, why", [
    (_record(3, 0, 3, True), 0, None),
    (_record(0, 0, 0, False), 3, "no scenario was selected"),
    (_record(5, 2, 3, False), 3, "2 of 5 scenarios ended in ERROR"),
    (_record(4, 0, 4, False), 3, "the judge graded none of the 4 scenarios"),
])
def test_the_exit_code_says_whether_every_scenario_was_graded(monkeypatch, capsys, record, code, why):
    monkeypatch.setattr(summary_view, "print_summary", lambda r: print("table"))
    assert run_command.report_run(record, as_json=False) == code
    out, err = capsys.readouterr()
    assert out == "table\n"
    assert (why is None and err == "") or (why in err and "(exit 3)" in err)


def test_the_viewer_line_names_the_folder(tmp_path, capsys):
    run_command.print_viewer(tmp_path)
    assert capsys.readouterr().err == ("auditpacks: view the results: uvx simpleaudit-studio --visualize-only "
                                       f"--results_dir {tmp_path}\n")
