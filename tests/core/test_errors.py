"""User errors as one line: the first line of the message, the prefix, secrets blanked, exit code 2."""

from auditpacks.core import redact
from auditpacks.core.errors import FormatError, PackError, UserError, fail, first_line, report


def test_the_error_family():
    assert issubclass(PackError, UserError) and issubclass(FormatError, UserError)
    assert issubclass(FormatError, ValueError)  # readers that catch ValueError still catch it


def test_first_line_or_the_type_name():
    assert first_line(PackError("p.json: record #3\ntraceback detail")) == "p.json: record #3"
    assert first_line(ValueError("  \n ")) == "ValueError"


def test_report_and_fail_print_one_redacted_line(capsys):
    redact.register("sk-secret-value")
    try:
        exc = UserError("cannot reach http://u:pw@host with key sk-secret-value\nmore")
        assert report(exc) == "auditpacks: error: cannot reach http://[credentials]@host with key [api key]"
        assert fail(exc) == 2 and fail(exc, 3) == 3
    finally:
        redact.forget_all()
    err = capsys.readouterr().err
    assert err == ("auditpacks: error: cannot reach http://[credentials]@host with key [api key]\n" * 2)
