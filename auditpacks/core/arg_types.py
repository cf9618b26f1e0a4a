"""Argument types that check a flag's value at parse time, so nonsense never reaches a run.

Each returns a function for ``add_argument(type=...)``; a bad value is argparse's usual
one-line error (``argument --concurrency: must be at least 1, got 0``) with exit 2.
"""

from __future__ import annotations

import argparse
import math
import re
from typing import Callable


def integer(minimum: int | None = None, maximum: int | None = None) -> Callable[[str], int]:
    """A whole number within ``[minimum, maximum]``."""
    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum}, got {value}")
        return value
    return parse


def number(minimum: float = 0.0, *, above: bool = False) -> Callable[[str], float]:
    """A finite number ``>= minimum`` (``> minimum`` with ``above``)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        if value < minimum or (above and value == minimum):
            raise argparse.ArgumentTypeError(f"must be {'above' if above else 'at least'} {minimum:g}, got {value:g}")
        return value
    return parse


def text(value: str) -> str:
    """A non-empty string."""
    if not value.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return value


#: A TCP port; 0 asks the system for a free one.
port = integer(0, 65535)


def plain(doc: str | None) -> str:
    """A docstring as help text: ````code```` and ``:func:`name``` read as plain words."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", lambda m: m.group(1).rsplit(".", 1)[-1], doc or "")
    return text.replace("``", "")
