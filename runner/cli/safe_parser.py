"""The command line's parser: an error line never echoes a value that may be a key.

A mistyped flag (``--api-kye sk-…``) makes argparse list the unrecognised arguments, the key among
them, and a value a flag refuses is quoted in its error. :class:`SafeParser` (every subcommand's
parser, as argparse makes them of the same class) prints the unrecognised flags without their
values, cuts any quoted value of :data:`LONG` characters or more to its first few, and blanks what
:func:`auditpacks.core.redact.redact` knows as a secret.
"""

from __future__ import annotations

import argparse
import re
from typing import NoReturn

from auditpacks.core.redact import redact

LONG = 16
_UNRECOGNISED = re.compile(r"^(unrecognized arguments: )(.*)$", re.S)
_QUOTED = re.compile(r"'([^'\s]{%d,})'" % LONG)


def _flags_only(arguments: str) -> str:
    flag = lambda w: w.split("=", 1)[0] + ("=…" if "=" in w else "")  # noqa: E731
    return " ".join(flag(w) if w.startswith("-") else "…" for w in arguments.split())


def safe_message(message: str) -> str:
    """``message`` with no value that may be a key: unrecognised flags without their values, long quoted values
    cut, known secrets blanked."""
    found = _UNRECOGNISED.match(message)
    if found:
        message = found.group(1) + _flags_only(found.group(2))
    return redact(_QUOTED.sub(lambda m: f"'{m.group(1)[:4]}…' ({len(m.group(1))} characters)", message))


class SafeParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage()
        self.exit(2, f"{self.prog}: error: {safe_message(message)}\n")
