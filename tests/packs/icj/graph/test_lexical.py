"""Lexical passage search over one snapshot's cut corpus: which passages are indexed with which date, and BM25
scores checked against the formula (Lucene's variant, bm25s' default: k1 = 1.5, b = 0.75, no (k1 + 1) factor)."""

from __future__ import annotations

import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditpacks.packs.icj.graph.lexical import CORPUS, LexicalIndex, build_index, corpus
from auditpacks.packs.icj.graph.reader import Graph


def table(**columns):
    return pa.table({name: pa.array(values, pa.string()) for name, values in columns.items()})


def graph(passages=None, resolution_passages=None):
    return Graph(tables={
        "documents": table(document_id=["ICJ_070_1986", "ICJ_001_1949"], date=["1986-06-27", "1949-04-09"]),
        "resolutions": table(symbol=["A/RES/2625(XXV)"], date=["1970-10-24"]),
        "passages": passages if passages is not None else table(
            document_id=["ICJ_070_1986", "ICJ_001_1949", "ICJ_070_1986", "ICJ_999"],
            passage_id=["ICJ_070_1986#p1", None, "ICJ_070_1986#p2", "ICJ_999#p0"],
            text=["armed attack and self-defence", "mines in the Corfu Channel", "", "unknown document"]),
        "resolution_passages": resolution_passages if resolution_passages is not None else table(
            symbol=["A/RES/2625(XXV)"], passage_id=[None], text=["friendly relations among States"]),
    })


def test_the_corpus_holds_every_passage_with_text_and_its_source_s_date():
    rows = corpus(graph()).to_pylist()
    assert rows == [
        {"kind": "document", "source": "ICJ_070_1986", "passage_id": "ICJ_070_1986#p1", "date": "1986-06-27",
         "text": "armed attack and self-defence"},
        {"kind": "document", "source": "ICJ_001_1949", "passage_id": "ICJ_001_1949#1", "date": "1949-04-09",
         "text": "mines in the Corfu Channel"},
        {"kind": "document", "source": "ICJ_999", "passage_id": "ICJ_999#p0", "date": None,
         "text": "unknown document"},
        {"kind": "resolution", "source": "A/RES/2625(XXV)", "passage_id": "A/RES/2625(XXV)#0", "date": "1970-10-24",
         "text": "friendly relations among States"},
    ]
    assert all(field.type == pa.string() for field in corpus(graph()).schema)


def test_an_index_is_written_once_and_read_back(tmp_path):
    assert build_index(graph(), tmp_path / "snap" / "lexical") == 4
    assert pq.read_table(tmp_path / "snap" / "lexical" / CORPUS).num_rows == 4
    assert len(LexicalIndex(tmp_path / "snap" / "lexical").rows) == 4
    with pytest.raises(FileExistsError):
        build_index(graph(), tmp_path / "snap" / "lexical")


def test_an_empty_corpus_finds_nothing(tmp_path):
    empty = graph(table(document_id=[], passage_id=[], text=[]), table(symbol=[], passage_id=[], text=[]))
    assert build_index(empty, tmp_path / "lexical") == 0
    assert not (tmp_path / "lexical" / "bm25").exists()
    index = LexicalIndex(tmp_path / "lexical")
    assert index.rows == [] and index.search("armed attack") == []


TEXTS = ["armed attack armed force", "the attack on shipping in the Channel", "mines laid in the Corfu Channel",
         "friendly relations among States"]


def bm25(query_words, texts, k1=1.5, b=0.75):
    """Each text's score: the sum over query words of idf * tf / (tf + k1 * (1 - b + b * length / average length)),
    idf = ln(1 + (N - df + 0.5) / (df + 0.5)); English stopwords (here "the", "in", "on") are not words."""
    docs = [[w for w in t.lower().split() if w not in ("the", "in", "on")] for t in texts]
    average = sum(map(len, docs)) / len(docs)
    scores = []
    for doc in docs:
        score = 0.0
        for word in query_words:
            df = sum(word in d for d in docs)
            tf = doc.count(word)
            if tf:
                idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
                score += idf * tf / (tf + k1 * (1 - b + b * len(doc) / average))
        scores.append(score)
    return scores


@pytest.fixture
def index(tmp_path):
    passages = table(document_id=["ICJ_070_1986"] * 4, passage_id=[f"p{i}" for i in range(4)], text=TEXTS)
    build_index(graph(passages, table(symbol=[], passage_id=[], text=[])), tmp_path / "lexical")
    return LexicalIndex(tmp_path / "lexical")


def test_search_gives_passages_best_first_with_their_bm25_score(index):
    expected = bm25(["armed", "attack"], TEXTS)
    found = index.search("Armed attack")
    assert [row["passage_id"] for row in found] == ["p0", "p1"]  # the others hold neither word
    assert [row["score"] for row in found] == [round(expected[0], 6), round(expected[1], 6)]
    assert found[0] == {"kind": "document", "source": "ICJ_070_1986", "passage_id": "p0", "date": "1986-06-27",
                        "text": TEXTS[0], "score": round(expected[0], 6)}


def test_search_keeps_at_most_k_passages(index):
    assert [row["passage_id"] for row in index.search("attack channel", k=1)] == ["p1"]
    assert len(index.search("attack channel", k=50)) == 3
    assert index.search("attack", k=0) == [] and index.search("attack", k=-1) == []


@pytest.mark.parametrize("query", ["", "the in on", "teleportation", "???"])
def test_a_query_of_no_indexed_word_finds_nothing(index, query):
    assert index.search(query) == []


def test_ten_passages_unless_told_otherwise(tmp_path):
    texts = [f"armed attack number {i}" for i in range(12)]
    passages = table(document_id=["ICJ_070_1986"] * 12, passage_id=[f"p{i}" for i in range(12)], text=texts)
    build_index(graph(passages, table(symbol=[], passage_id=[], text=[])), tmp_path / "lexical")
    assert len(LexicalIndex(tmp_path / "lexical").search("attack")) == 10


def test_every_column_is_text_even_when_no_row_holds_one():
    no_dates = Graph(tables={**graph().tables, "documents": table(document_id=[], date=[]),
                             "resolutions": table(symbol=[], date=[])})
    assert corpus(no_dates).column("date").to_pylist() == [None] * 4
    empty = graph(table(document_id=[], passage_id=[], text=[]), table(symbol=[], passage_id=[], text=[]))
    for built in (corpus(no_dates), corpus(empty)):
        assert [(f.name, f.type) for f in built.schema] == [(name, pa.string()) for name in
                                                           ("kind", "source", "passage_id", "date", "text")]


def test_building_and_searching_show_no_progress_bars(tmp_path, capfd):
    build_index(graph(), tmp_path / "lexical")
    LexicalIndex(tmp_path / "lexical").search("armed attack")
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == ""
