"""``main`` in process: the command picked from argv, one line and an exit code for every error (bad input,
Ctrl-C or SIGTERM, a bug), the keys and URL credentials of the flags blanked out of it, and SIGTERM's handler
put back."""

from __future__ import annotations

import signal
import sys
import threading

import pytest

from auditpacks.core import redact
from auditpacks.core.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, UserError
from auditpacks.runner.cli import main as cli
from tests.support.tiny_pack import write_pack

INTERRUPTED = ("auditpacks: interrupted; nothing half-written is left, and a run's finished scenarios are kept in "
               "its journal\n")


@pytest.fixture(autouse=True)
def clean_state():
    """Nothing registered for redaction, and SIGTERM's and SIGINT's handlers as they were, after each test."""
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    redact.forget_all()
    yield
    redact.forget_all()
    for sig, handler in handlers.items():
        signal.signal(sig, handler)


def raising(exc: BaseException):
    def handler(args):
        raise exc
    return handler


def test_the_command_runs_on_its_arguments(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 2)
    assert cli.main(["check", str(pack), "--quiet"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "tiny.json: 2 scenarios, 0 errors, 2 warnings, manifest verified"


@pytest.mark.parametrize("exc", [UserError("bad pack\nsecond line"), OSError("bad pack\nsecond line"),
                                 ValueError("bad pack\nsecond line")])
def test_bad_input_is_one_line_and_exit_2(monkeypatch, capsys, exc):
    monkeypatch.setattr(cli, "_check", raising(exc))
    assert cli.main(["check", "p.json"]) == EXIT_BAD_INPUT == 2
    assert capsys.readouterr() == ("", "auditpacks: error: bad pack\n")


def test_ctrl_c_says_what_is_kept_and_exits_130(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_check", raising(KeyboardInterrupt()))
    assert cli.main(["check", "p.json"]) == EXIT_INTERRUPTED == 130
    assert capsys.readouterr() == ("", INTERRUPTED)


def test_sigterm_during_a_command_ends_it_like_ctrl_c_and_the_old_handler_comes_back(monkeypatch, capsys):
    def before(signum, frame):
        pass

    signal.signal(signal.SIGTERM, before)
    seen = []

    def handler(args):
        seen.append(signal.getsignal(signal.SIGINT))
        signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)  # as the signal would call it

    monkeypatch.setattr(cli, "_check", handler)
    sigint = signal.getsignal(signal.SIGINT)
    assert cli.main(["check", "p.json"]) == EXIT_INTERRUPTED
    assert capsys.readouterr().err == INTERRUPTED
    assert signal.getsignal(signal.SIGTERM) is before and signal.getsignal(signal.SIGINT) is sigint == seen[0]
    monkeypatch.setattr(cli, "_check", lambda args: 0)
    assert cli.main(["check", "p.json"]) == 0 and signal.getsignal(signal.SIGTERM) is before


def test_outside_the_main_thread_sigterm_is_left_alone(monkeypatch):
    monkeypatch.setattr(cli, "_check", lambda args: 5)
    before, got = signal.getsignal(signal.SIGTERM), {}
    thread = threading.Thread(target=lambda: got.update(sigterm=cli._interrupt_on_sigterm(),
                                                        code=cli.main(["check", "p.json"])))
    thread.start()
    thread.join()
    assert got == {"sigterm": None, "code": 5} and signal.getsignal(signal.SIGTERM) is before


def test_an_unexpected_error_is_one_redacted_line_and_exit_1(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_run", raising(RuntimeError("boom with sk-secret-123456\nmore")))
    monkeypatch.delenv("AUDITPACKS_TRACEBACK", raising=False)
    assert cli.main(["run", "--pack", "p.json", "--api-key", "sk-secret-123456"]) == 1
    assert capsys.readouterr() == ("", "auditpacks: error: unexpected RuntimeError: boom with [api key] "
                                       "(set AUDITPACKS_TRACEBACK=1 to see where)\n")
    monkeypatch.setenv("AUDITPACKS_TRACEBACK", "0")
    assert cli.main(["run", "--pack", "p.json"]) == 1


def test_auditpacks_traceback_1_lets_the_error_through(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_check", raising(RuntimeError("boom")))
    monkeypatch.setenv("AUDITPACKS_TRACEBACK", "1")
    with pytest.raises(RuntimeError, match="boom"):
        cli.main(["check", "p.json"])
    assert "unexpected RuntimeError: boom" in capsys.readouterr().err


@pytest.mark.parametrize("flags, secret", [
    (["--api-key", "sk-secret-123456"], "sk-secret-123456"),
    (["--base-url", "http://a:b@h", "--base-url", "http://user:pa55word@host/v1"], "pa55word"),
    (["--judge-base-url", "http://user:pa55word@host/v1"], "pa55word"),
])
def test_keys_and_url_credentials_of_the_flags_are_blanked_out_of_errors(monkeypatch, capsys, flags, secret):
    monkeypatch.setattr(cli, "_run", raising(UserError(f"refused: {secret}")))
    assert cli.main(["run", "--pack", "p.json", *flags]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == "auditpacks: error: refused: [api key]\n"


def test_the_command_is_the_first_argument_that_is_not_a_flag(monkeypatch, capsys):
    parser, seen = cli.build_parser(), []
    monkeypatch.setattr(cli, "build_parser", lambda command=None: seen.append(command) or parser)
    monkeypatch.setattr(sys, "argv", ["auditpacks", "--version", "check", "p.json"])
    with pytest.raises(SystemExit):
        cli.main()
    assert seen == ["check"] and capsys.readouterr().out.startswith("auditpacks ")
    with pytest.raises(SystemExit) as exc:
        cli.main(["--quiet"])
    assert seen[-1] is None and exc.value.code == 2


def test_no_command_and_an_unreadable_registry_are_one_line_and_exit_2(monkeypatch, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([])
    assert exc.value.code == 2 and "required: command" in capsys.readouterr().err

    def two_of_one_name(kind):
        raise UserError("two benchmarks named 'x': a and b; uninstall one of them")

    monkeypatch.setattr(cli, "modules", two_of_one_name)
    assert cli.main(["check", "p.json"]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == "auditpacks: error: two benchmarks named 'x': a and b; uninstall one of them\n"
