"""The demo ends by naming the environment to activate and the next commands, which exist as typed; the test
command gives SimpleAudit Studio an environment of its own once, and a failed install is one line."""

from __future__ import annotations

import importlib.util

from tests.support.paths import ROOT

spec = importlib.util.spec_from_file_location("bootstrap_script", ROOT / "scripts" / "bootstrap.py")
bootstrap = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bootstrap)


def test_the_demo_names_the_venv_and_the_next_commands(monkeypatch):
    monkeypatch.setattr(bootstrap, "VENV", ROOT / ".venv")
    lines = bootstrap.next_steps().splitlines()
    assert lines[0] == ("next: activate the environment once (. .venv/bin/activate), or call .venv/bin/auditpacks "
                        "instead of auditpacks; then, as the README goes on:")
    assert lines[1:] == ["  auditpacks report results/demo --out report.html",
                         "  auditpacks run --pack build/jacite.json --limit 50"]


class Ran:
    """subprocess.run's stand-in: records each command; ``fail`` makes the command at that index fail."""

    def __init__(self, fail: int | None = None) -> None:
        self.commands, self.fail = [], fail

    def __call__(self, command, **kwargs):
        self.commands.append([str(c) for c in command])
        if len(self.commands) - 1 == self.fail:
            raise bootstrap.subprocess.CalledProcessError(1, command, stderr="Resolving...\n  × No solution found\n")


class NoVenv:
    def __init__(self, **options) -> None:
        pass

    def create(self, folder) -> None:
        pass


def studio_at(monkeypatch, tmp_path, ran: Ran):
    venv = tmp_path / ".venv-studio"
    monkeypatch.setattr(bootstrap, "STUDIO_VENV", venv)
    monkeypatch.setattr(bootstrap.subprocess, "run", ran)
    monkeypatch.setattr(bootstrap.venv, "EnvBuilder", NoVenv)
    return venv


def test_studio_gets_its_own_environment_once(monkeypatch, tmp_path):
    ran = Ran()
    venv = studio_at(monkeypatch, tmp_path, ran)
    venv.mkdir()  # as the venv module leaves it
    bootstrap.setup_studio()
    python = str(bootstrap.bin_path("python", venv))
    assert ran.commands == [[python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "uv==0.13.9"],
                            [str(bootstrap.bin_path("uv", venv)), "pip", "install", "--quiet", "--python", python,
                             "simpleaudit-studio==0.5.20"]]
    assert (venv / ".auditpacks-installed").read_text() == "simpleaudit-studio==0.5.20"
    bootstrap.setup_studio()  # installed: nothing runs again
    assert len(ran.commands) == 2


def test_a_failed_studio_install_is_one_line_and_the_tests_go_on(monkeypatch, tmp_path, capsys):
    venv = studio_at(monkeypatch, tmp_path, Ran(fail=1))
    venv.mkdir()
    bootstrap.setup_studio()  # no exception: the other tests still run
    said = capsys.readouterr().out.splitlines()
    assert said[-1] == (f"bootstrap: could not install simpleaudit-studio==0.5.20 into {venv}: × No solution found; "
                        "tests/e2e/test_studio.py fails")
    assert not (venv / ".auditpacks-installed").exists()
