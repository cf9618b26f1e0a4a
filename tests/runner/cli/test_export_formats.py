"""``auditpacks export inspect`` and ``export eee`` on the command line: listed beside each benchmark's own export,
generic over packs no benchmark built, and a missing extra or schema is one line with what to install, before
anything is read or written."""

from __future__ import annotations

import sys

import pytest

from auditpacks.runner.cli.main import main
from tests.support.hand_runs import tiny_choice_run


@pytest.fixture
def tiny_run(tmp_path):
    return tiny_choice_run(tmp_path)


def test_export_lists_both_formats_beside_the_benchmarks(capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    shown = capsys.readouterr().out
    assert all(name in shown for name in ("inspect", "eee", "jacite", "iustitia", "icj"))


def test_a_missing_inspect_extra_is_one_line_with_the_install_command(tiny_run, tmp_path, monkeypatch, capsys):
    for name in ("inspect_ai", "inspect_ai.log"):
        monkeypatch.setitem(sys.modules, name, None)  # as if inspect-ai were not installed
    out = tmp_path / "run.eval"
    assert main(["export", "inspect", str(tiny_run), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("auditpacks: error: the Inspect AI export needs the inspect extra (inspect-ai); install it with: "
                   "pip install 'auditpacks[inspect]'")
    assert not out.exists()


def test_a_log_file_name_ends_in_eval_or_json(tiny_run, tmp_path, capsys):
    assert main(["export", "inspect", str(tiny_run), "--out", str(tmp_path / "run.txt")]) == 2
    assert "run.txt: an Inspect log file ends in .eval or .json" in capsys.readouterr().err
    assert list(tmp_path.glob("*.txt")) == [] and list(tmp_path.glob(".*")) == []


def test_no_schema_is_one_line_before_the_run_is_read(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    assert main(["export", "eee", str(tmp_path / "no-such-run"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no Every Eval Ever schema available" in err
    assert not (tmp_path / "out").exists()


def test_an_unknown_relationship_is_refused(tiny_run, tmp_path, capsys):
    assert main(["export", "eee", str(tiny_run), "--out", str(tmp_path / "out"), "--relationship", "friends"]) == 2
    assert "--relationship 'friends': one of third_party, first_party" in capsys.readouterr().err


def test_a_log_that_fails_half_way_leaves_no_file(tiny_run, tmp_path, monkeypatch, capsys):
    def broken(log, location, format):
        with open(location, "w", encoding="utf-8") as fh:
            fh.write("half a log")
        raise OSError("disk full")

    monkeypatch.setattr("inspect_ai.log.write_eval_log", broken)
    out = tmp_path / "logs" / "run.eval"
    assert main(["export", "inspect", str(tiny_run), "--out", str(out)]) == 2
    assert "disk full" in capsys.readouterr().err
    assert list((tmp_path / "logs").iterdir()) == []
