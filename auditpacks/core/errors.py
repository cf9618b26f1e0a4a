"""The errors a user sees as one line (``auditpacks: error: …``) with exit code 2, never a traceback."""

from __future__ import annotations

import sys

PREFIX = "auditpacks: error:"
#: The command's exit codes: every selected scenario graded; bad input (one line on stderr); a run that finished
#: but selected nothing or kept ERROR scenarios after its retries; interrupted.
EXIT_OK, EXIT_BAD_INPUT, EXIT_INCOMPLETE, EXIT_INTERRUPTED = 0, 2, 3, 130


class UserError(Exception):
    """Bad input or an impossible request; the message is one line naming file, record and field."""


class PackError(UserError):
    """A pack, source, manifest or dataset problem."""


class FormatError(UserError, ValueError):
    """A benchmark file (targets, predictions, results) that is not in the benchmark's format."""


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (its type name when it has none)."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def report(exc: BaseException) -> str:
    """The one line printed for ``exc`` (its first line only, keys and URL credentials blanked out)."""
    from auditpacks.core.redact import redact

    return redact(f"{PREFIX} {first_line(exc)}")


def fail(exc: BaseException, code: int = 2) -> int:
    """Print ``exc`` as one line on stderr and return the exit code."""
    print(report(exc), file=sys.stderr)
    return code
