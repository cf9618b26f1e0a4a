"""English article lists in full mode (spans, captions skipped, ranges expanded) and the first-release reader's limits."""

import pytest

from auditpacks.packs.jacite.citations import Citation, extract_citations, extract_citations_v1, find_citations


def test_each_number_of_a_list_has_its_own_span_past_a_caption():
    text = "Articles 541 (Termination) and 542-2"
    assert find_citations(text) == [Citation("541", False, (9, 12)),
                                    Citation("542-2", False, (text.index("542-2"), len(text)))]


@pytest.mark.parametrize("text, ids", [
    ("第三条, Articles 5 to 8 and 10", ["3", "5", "6", "7", "8", "10"]),  # only "to" makes a range
    ("Articles 2-3 to 5-5", ["2-3", "5-5"]),                               # other branch prefixes: ends only
])
def test_ranges_in_english_lists_expand_between_their_ends(text, ids):
    assert extract_citations(text, expand_ranges=True) == ids


def test_a_range_of_a_thousand_articles_is_expanded_and_no_longer():
    assert len(extract_citations("Articles 1 to 1001", expand_ranges=True)) == 1001
    assert extract_citations("Articles 1 to 1002", expand_ranges=True) == ["1", "1002"]


def test_the_first_release_reader_drops_a_number_it_cannot_read():
    """第1二条の三: jacite-bench's numeral reader gives nothing for a number mixing digits and kanji."""
    assert extract_citations_v1("第1二条の三") == []
    assert extract_citations_v1("第一二条の三") == ["12-3", "12"]
