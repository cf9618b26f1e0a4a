"""Flag values checked at parse time: each type's bounds, and argparse's one-line error with exit 2."""

import argparse

import pytest

from auditpacks.core.arg_types import integer, number, plain, port, text


@pytest.mark.parametrize("value, expected", [("0", 0), (" 7 ", 7), ("-3", -3)])
def test_integer_without_bounds(value, expected):
    assert integer()(value) == expected


@pytest.mark.parametrize("value, message", [
    ("0", "must be at least 1, got 0"),
    ("11", "must be at most 10, got 11"),
    ("1.5", "must be a whole number, got '1.5'"),
    ("", "must be a whole number, got ''"),
])
def test_integer_bounds_and_bad_text(value, message):
    with pytest.raises(argparse.ArgumentTypeError) as err:
        integer(1, 10)(value)
    assert str(err.value) == message


def test_integer_bounds_are_inclusive():
    assert integer(1, 10)("1") == 1 and integer(1, 10)("10") == 10


@pytest.mark.parametrize("value, message", [
    ("-0.5", "must be at least 0, got -0.5"),
    ("nan", "must be a finite number, got 'nan'"),
    ("inf", "must be a finite number, got 'inf'"),
    ("abc", "must be a number, got 'abc'"),
])
def test_number_refuses_negative_non_finite_and_text(value, message):
    with pytest.raises(argparse.ArgumentTypeError) as err:
        number()(value)
    assert str(err.value) == message


def test_number_at_the_minimum_depends_on_above():
    assert number()("0") == 0.0
    assert number(0.5)("2.25") == 2.25
    with pytest.raises(argparse.ArgumentTypeError) as err:
        number(0, above=True)("0")
    assert str(err.value) == "must be above 0, got 0"
    assert number(0, above=True)("0.001") == 0.001


def test_text_must_not_be_blank():
    assert text(" x ") == " x "
    with pytest.raises(argparse.ArgumentTypeError) as err:
        text("   ")
    assert str(err.value) == "must not be empty"


@pytest.mark.parametrize("value, ok", [("0", True), ("65535", True), ("65536", False), ("-1", False)])
def test_port_range(value, ok):
    if ok:
        assert port(value) == int(value)
    else:
        with pytest.raises(argparse.ArgumentTypeError):
            port(value)


def test_a_bad_value_is_argparse_one_line_error_with_exit_2(capsys):
    parser = argparse.ArgumentParser(prog="auditpacks")
    parser.add_argument("--concurrency", type=integer(1))
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(["--concurrency", "0"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "auditpacks: error: argument --concurrency: must be at least 1, got 0")


@pytest.mark.parametrize("doc, help_text", [
    (None, ""),
    ("", ""),
    ("Plain words stay.", "Plain words stay."),
    ("At most ``--limit`` scenarios.", "At most --limit scenarios."),
    ("See :func:`split_reasoning`.", "See split_reasoning."),
    ("See :func:`auditpacks.core.reasoning.split_reasoning`.", "See split_reasoning."),
    ("See :func:`~auditpacks.core.reasoning.split_reasoning`.", "See split_reasoning."),
    ("Raises :class:`PackError`; reads :mod:`json`, :data:`ABSURD` and ``x``.",
     "Raises PackError; reads json, ABSURD and x."),
    ("A :Func:`x` role in capitals is not one.", "A :Func:`x` role in capitals is not one."),
])
def test_plain_reads_a_docstring_as_help_text(doc, help_text):
    assert plain(doc) == help_text
