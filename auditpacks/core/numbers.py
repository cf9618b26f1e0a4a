"""Numbers a server reports, checked once where its reply is read.

A token count is an integer from 0 to :data:`MAX_TOKENS`; anything else (NaN, a negative
count, 10**30, a string, a boolean) is *unknown* (None), never a crash further on. A float
that is a whole number in range counts as that integer.
"""

from __future__ import annotations

import math
from typing import Any

#: The largest token count taken at face value (far above any context or reply).
MAX_TOKENS = 10**12


def token_count(value: Any) -> int | None:
    """``value`` as a token count, or None when it is not one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            return None
        value = int(value)
    return value if 0 <= value <= MAX_TOKENS else None


def finite(value: Any) -> Any:
    """``value``, or None when it is a float that JSON cannot hold (NaN, infinity)."""
    return None if isinstance(value, float) and not math.isfinite(value) else value
