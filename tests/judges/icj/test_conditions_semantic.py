"""The semantic condition's checks before any model request: the copy's passage vectors, the query encoder, and
vectors of the same length; each refusal one line naming the condition."""

from __future__ import annotations

import argparse
import shutil

import pyarrow.parquet as pq
import pytest

from auditpacks.core.errors import UserError
from auditpacks.judges.icj import conditions
from tests.judges.icj.test_conditions import PACK
from tests.support.icj_graph import GRAPH, with_word_vectors

SEMANTIC = "Cypher + Semantic"
WHAT = "--condition 'Cypher + Semantic'"


def args(tmp_path, encode, graph=GRAPH):
    return argparse.Namespace(graph=graph, mapping=None, cache=tmp_path / "cache", protocol=None, tool_alias=[],
                              condition=SEMANTIC, encode=encode, embeddings_model="e5")


def refusal(tmp_path, encode, graph=GRAPH) -> str:
    with pytest.raises(UserError) as err:
        conditions.setup(args(tmp_path, encode, graph), PACK)
    return str(err.value)


def test_an_encoder_of_the_copys_length_is_taken(tmp_path):
    asked = []
    setup = conditions.setup(args(tmp_path, lambda text: asked.append(text) or [0.0] * 4), PACK)   # the fixture: 4
    assert asked == ["passage vectors: a probe of the query encoder"]
    assert setup.condition.search == ("vector (cosine over the copy's passage vectors), query encoder e5, "
                                      "cut corpus")


def test_vectors_of_another_length_are_refused(tmp_path):
    assert refusal(tmp_path, lambda text: [0.0] * 3) == (
        f"{WHAT}: the embeddings model gives 3-dimensional vectors, the copy's passage vectors have 4; give the "
        "model that made them (--embeddings-model)")


def test_an_endpoint_that_fails_is_refused_with_the_first_line_of_its_error(tmp_path):
    def failing(message):
        def encode(text):
            raise RuntimeError(message)
        return encode

    assert refusal(tmp_path, failing("HTTP 500\ntraceback")) == (
        f"{WHAT}: the embeddings endpoint gives no query vector (HTTP 500)")
    assert refusal(tmp_path, failing("  ")) == f"{WHAT}: the embeddings endpoint gives no query vector (RuntimeError)"
    assert refusal(tmp_path, failing("x" * 300)).endswith(f"({'x' * 200})")


def test_a_copy_without_passage_vectors_is_refused(tmp_path):
    empty = with_word_vectors(tmp_path / "empty", lambda text: None)   # the column is there, every vector null
    assert refusal(tmp_path, lambda text: [0.0] * 4, empty) == (
        f"{WHAT}: the graph copy holds no passage vectors (a list-of-floats column beside passage_id; embedding is "
        "empty); run 'Cypher + Lexical' instead")
    bare = tmp_path / "bare"
    shutil.copytree(GRAPH, bare)
    for path in (bare / "data" / "passages").glob("*.parquet"):
        pq.write_table(pq.read_table(path).drop(["embedding"]), path)
    assert refusal(tmp_path, lambda text: [0.0] * 4, bare) == (
        f"{WHAT}: the graph copy holds no passage vectors (a list-of-floats column beside passage_id); run "
        "'Cypher + Lexical' instead")
