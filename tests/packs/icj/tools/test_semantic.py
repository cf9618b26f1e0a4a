"""Vector passage search: the query embedded by the given encoder, at most the search cap of passages, and the
dates of the sources they come from."""

import pytest

from auditpacks.packs.icj.tools.semantic import METHOD, Semantic


class Index:
    """A vector index that records what it was asked and answers with fixed passages."""

    def __init__(self, hits):
        self.hits, self.asked = hits, []

    def search(self, vector, k=10):
        self.asked.append((vector, k))
        return self.hits[:k]


def encode(text):
    return [float(len(text)), 1.0]


@pytest.mark.parametrize("limit, asked", [(5, 5), (20, 20), (21, 20), (50, 20), (1, 1), (0, 1), (-3, 1)])
def test_the_number_of_passages_is_kept_between_one_and_the_search_cap(limit, asked):
    index = Index([])
    Semantic(index, encode).search("self-defence", limit)
    assert index.asked == [([12.0, 1.0], asked)]


def test_ten_passages_unless_told_otherwise():
    index = Index([])
    Semantic(index, encode).search("q")
    assert index.asked == [([1.0, 1.0], 10)]


def test_the_answer_names_the_method_the_passages_and_their_sources_dates():
    hits = [{"passage_id": "p1", "date": "1986-06-27", "score": 0.9},
            {"passage_id": "p2", "date": "1949-12-15", "score": 0.8},
            {"passage_id": "p3", "date": None, "score": 0.7},
            {"passage_id": "p4", "date": "", "score": 0.6},
            {"passage_id": "p5", "date": "1986-06-27", "score": 0.5}]
    found = Semantic(Index(hits), encode).search("use of force")
    assert found == {"method": "vector (cosine), cut corpus", "passages": hits,
                     "source_dates": ["1949-12-15", "1986-06-27"]}
    assert METHOD == "vector (cosine), cut corpus"


def test_no_passages_no_dates():
    assert Semantic(Index([]), encode).search("q") == {"method": METHOD, "passages": [], "source_dates": []}
