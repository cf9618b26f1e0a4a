"""A run that cannot start or go on is a user error: shown as its first line after ``auditpacks: error:``, with
credentials blanked out, never as a traceback."""

from __future__ import annotations

from auditpacks.core.errors import UserError, report
from auditpacks.runner.models.errors import RunError


def test_a_run_error_is_a_user_error_shown_as_one_line():
    error = RunError("http://u:pw1234@h:1/v1 refuses the key (HTTP 401)\ndetails")
    assert isinstance(error, UserError) and not isinstance(error, ValueError)
    assert report(error) == "auditpacks: error: http://[credentials]@h:1/v1 refuses the key (HTTP 401)"
