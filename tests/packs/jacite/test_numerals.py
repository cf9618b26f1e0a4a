"""Japanese numerals by hand: kanji with multipliers, 〇/零, 万, ASCII and full-width digits, both modes."""

import pytest

from auditpacks.packs.jacite.numerals import ABSURD, article_number, check_mode, kanji_to_int


@pytest.mark.parametrize("text, value", [
    ("一", 1), ("十", 10), ("十一", 11), ("二十", 20), ("百九十九", 199), ("二百五十二", 252),
    ("千二百", 1200), ("一万", 10000), ("万", 10000), ("二万三千", 23000), ("〇", 0), ("零", 0), ("一〇", 10),
    ("12", 12), ("１２", 12), ("007", 7), ("百5", 105),
    ("0", 0), ("000", 0), ("００", 0),
    # 万 multiplies everything before it: a kanji section, a bare digit string (any length), or nothing
    ("十万", 100000), ("十二万", 120000), ("百二十万", 1200000), ("三千万", 30000000), ("1234万", 12340000),
    ("1000000000万", 10**13), ("二万5", 20005),
])
def test_full_mode_values(text, value):
    assert kanji_to_int(text) == value


@pytest.mark.parametrize("text", [
    "", None, "十十", "百千", "一二百", "十二三", "a", "第一", "万万", "１万万",
    # a multiplier after a two-digit run, or a run after a multiplier as large as it: 一〇百, 十一〇, 百一二三
    "一〇百", "10百", "十一〇", "十10", "百一二三", "千一〇〇〇",
    # the same before 万
    "十二三万", "十一〇万", "百一二三万",
])
def test_full_mode_refuses_what_is_no_numeral(text):
    assert kanji_to_int(text) is None


@pytest.mark.parametrize("text, value", [
    ("十", 10), ("百九十九", 199), ("千二百五十二", 1252), ("十十", 20), ("一二", 12), ("１２", 12),
    ("〇", None), ("万", None), ("²", None), ("x", None),
])
def test_upstream_mode_reads_as_the_published_extractor(text, value):
    assert kanji_to_int(text, "upstream") == value


def test_runaway_digit_strings_read_as_the_absurd_number():
    assert article_number("0" * 20 + "5") == 5
    assert article_number("9" * 15) == 10**15 - 1
    assert article_number("1" + "0" * 15) == ABSURD
    assert article_number("1" + "0" * 14 + "1") == ABSURD  # 16 digits: not 10**15 + 1
    assert article_number("０" * 3 + "１" + "0" * 14) == 10**14  # leading zeros, ASCII or full-width, do not count
    assert kanji_to_int("9" * 40) == ABSURD
    assert kanji_to_int("一" * 40) == ABSURD
    assert kanji_to_int("9" * 40, "upstream") == ABSURD


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="unknown citation mode 'loose'; expected one of full, upstream"):
        kanji_to_int("一", "loose")
    check_mode("full")
