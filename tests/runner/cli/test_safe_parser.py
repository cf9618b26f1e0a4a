"""A mistyped flag's value is never echoed: it may be a key."""

from __future__ import annotations

import pytest

from auditpacks.runner.cli.main import main
from auditpacks.runner.cli.safe_parser import safe_message

KEY = "sk-proj-Abc123Def456Ghi789"


@pytest.mark.parametrize(("argv", "shown"), [
    (["--api-kye", KEY], "unrecognized arguments: --api-kye …"),
    ([f"--api-kye={KEY}"], "unrecognized arguments: --api-kye=…"),
    (["--temperature", KEY], "argument --temperature: must be a number, got 'sk-p…' (26 characters)"),
])
def test_the_error_line_names_the_flag_never_the_value(capsys, argv, shown):
    with pytest.raises(SystemExit) as done:
        main(["run", "--pack", "p.json", "--target", "m", *argv])
    err = capsys.readouterr().err
    assert done.value.code == 2 and KEY not in err and err.strip().splitlines()[-1].endswith(shown)


def test_a_short_value_is_still_shown_for_the_typo_it_is():
    assert safe_message("argument --temperature: must be a number, got '0,7'") == \
        "argument --temperature: must be a number, got '0,7'"


@pytest.mark.parametrize(("arguments", "shown"), [
    ("--api-kye=c2stcHJvai1BYmMxMjM=", "--api-kye=…"),          # a base64 key ends in "="
    ("--hedaer=Authorization=Bearer=x", "--hedaer=…"),
    ("--seed=7 extra sk-proj-Abc123 -v", "--seed=… … … -v"),
])
def test_an_unrecognised_flag_keeps_its_name_up_to_the_first_equals_sign(arguments, shown):
    assert safe_message(f"unrecognized arguments: {arguments}") == f"unrecognized arguments: {shown}"
