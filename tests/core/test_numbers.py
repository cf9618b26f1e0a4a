"""Token counts from servers: whole numbers in range, else unknown."""

from __future__ import annotations

import math

import pytest

from auditpacks.core.numbers import MAX_TOKENS, finite, token_count


@pytest.mark.parametrize("value, count", [
    (0, 0), (12, 12), (12.0, 12), (MAX_TOKENS, MAX_TOKENS),
    (math.nan, None), (math.inf, None), (-5, None), (10**30, None), (1e30, None), (2.5, None),
    (True, None), ("12", None), (None, None), ([3], None),
])
def test_token_count(value, count):
    assert token_count(value) == count


def test_finite_blanks_only_non_finite_floats():
    assert finite(math.nan) is None and finite(-math.inf) is None
    assert finite(0.5) == 0.5 and finite("NaN") == "NaN" and finite(3) == 3
