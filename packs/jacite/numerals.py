"""Japanese numerals in statute citations: kanji (十百千万, 〇/零), ASCII and full-width digits.

``mode="upstream"`` reads numerals as jacite-bench's published extractor does.
"""

from __future__ import annotations

import unicodedata

MODES = ("full", "upstream")
#: The extractor a run's grader and ``rescore`` use unless told otherwise (the same one, so they agree).
DEFAULT_MODE = "full"

_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_MULTIPLIERS = {"十": 10, "百": 100, "千": 1000}
_UPSTREAM_VALUES = {k: v for k, v in _DIGITS.items() if k != "〇"} | _MULTIPLIERS


def _digit(ch: str) -> int | None:
    return _DIGITS[ch] if ch in _DIGITS else unicodedata.decimal(ch, None)


def kanji_to_int(s: str | None, mode: str = "full") -> int | None:
    """A numeral as an int: kanji (十百千万 multipliers, 〇/零), ASCII or full-width digits; None if not one.

    ``mode="upstream"`` reads numerals as jacite-bench does: no 〇, no 万, no order checks.
    """
    if not s:
        return None
    if mode == "upstream":
        return upstream_int(s)
    check_mode(mode)
    if s.isdecimal():
        return int(s)
    total, section, current, last = 0, 0, None, 10**9
    for ch in s:
        if ch in _MULTIPLIERS:
            mult = _MULTIPLIERS[ch]
            if mult >= last or (current is not None and current > 9):
                return None  # 十十, 百千, 一二百: not a numeral
            section += (1 if current is None else current) * mult
            current, last = None, mult
        elif ch == "万":
            if total or (current is not None and last < 10**9 and current >= last):
                return None
            total = (section + (current or 0) or 1) * 10000
            section, current, last = 0, None, 10**9
        elif (d := _digit(ch)) is not None:
            current = d if current is None else current * 10 + d
        else:
            return None
    if current is not None and last < 10**9 and current >= last:
        return None  # 十二三
    return total + section + (current or 0)


def upstream_int(s: str) -> int | None:
    if s.isdigit():
        try:
            return int(s)
        except ValueError:  # e.g. superscript digits, which upstream would crash on
            return None
    total = current = 0
    for ch in s:
        value = _UPSTREAM_VALUES.get(ch)
        if value is None:
            return None
        if value >= 10:
            total += (current or 1) * value
            current = 0
        else:
            current = current * 10 + value if current else value
    return total + current


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unknown citation mode {mode!r}; expected one of {', '.join(MODES)}")
