"""What ``setup`` hands the runner besides the tools: the condition as the run record names it, the final nudge,
the graph's identity, the snapshot cache, a protocol's own conditions and aliases, the semantic search."""

from __future__ import annotations

import argparse
import json

import pytest

from auditpacks.core.errors import UserError
from auditpacks.judges.icj import conditions
from auditpacks.packs.icj.graph.reader import read_graph
from tests.judges.icj.test_conditions import PACK
from tests.support.icj_graph import GRAPH

SCENARIO = {"name": "s", "metadata": {"cutoff_date": "1986-06-27"}}


def args(tmp_path, condition, **kw):
    return argparse.Namespace(**{"graph": GRAPH, "mapping": None, "cache": tmp_path / "cache", "protocol": None,
                                 "tool_alias": [], "condition": condition, "encode": None, "embeddings_model": None,
                                 **kw})


def test_the_condition_the_run_record_names_and_the_graphs_identity(tmp_path):
    graph = read_graph(GRAPH)
    for name, policy in (("Designed Tools Only", conditions.CUTOFF_POLICY), ("Parametric", None)):
        setup = conditions.setup(args(tmp_path, name), PACK)
        assert (setup.condition.name, setup.condition.cutoff_policy) == (name, policy)
        assert setup.final_nudge == conditions.FINAL_NUDGE
        assert setup.info == {"graph_source_hash": graph.source_hash, "graph_read_report": graph.report}


def test_an_unknown_condition_names_every_known_one(tmp_path):
    with pytest.raises(UserError) as err:
        conditions.setup(args(tmp_path, "Oracle"), PACK)
    assert str(err.value) == ("--condition 'Oracle': not one of Parametric, Cypher + Lexical, Designed Tools Only, "
                              "Cypher + Semantic")


def test_snapshots_go_to_the_user_cache_unless_a_cache_is_given(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    box = conditions.setup(args(tmp_path, "Designed Tools Only", cache=None), PACK).toolbox_for(SCENARIO)
    assert (tmp_path / "xdg" / "auditpacks" / "icj-snapshots") in box.snapshot.folder.parents


def test_a_protocols_conditions_and_aliases(tmp_path):
    (tmp_path / "conditions.json").write_text(json.dumps({"graph": ["lookup_case", "get_schema"]}), encoding="utf-8")
    setup = conditions.setup(args(tmp_path, "graph", protocol=tmp_path, tool_alias=["lookup_case=find_case"]), PACK)
    assert setup.condition.tools == {"lookup_case": "find_case", "get_schema": "get_schema"}
    assert setup.condition.search == "bm25 (lexical), cut corpus"   # a condition the card does not name
    assert setup.toolbox_for(SCENARIO).semantic is None
    (tmp_path / "conditions.json").write_text(json.dumps({"closed book": []}), encoding="utf-8")
    closed = conditions.setup(args(tmp_path, "closed book", protocol=tmp_path), PACK).condition
    assert (closed.tools, closed.search, closed.cutoff_policy) == ({}, None, None)   # no tools: nothing searched


def test_the_semantic_condition_searches_the_snapshots_vectors_with_the_encoder(tmp_path):
    def encode(text):
        return [1.0, 0.0, 0.0, 0.0]

    box = conditions.setup(args(tmp_path, "Cypher + Semantic", encode=encode, embeddings_model="e5"),
                           PACK).toolbox_for(SCENARIO)
    assert box.semantic.encode is encode
    found = box.semantic.search("hostages", 2)
    assert len(found["passages"]) == 2 and all(d < "1986-06-27" for d in found["source_dates"])


def test_no_encoder_attribute_at_all_is_the_same_refusal(tmp_path):
    plain = args(tmp_path, "Cypher + Semantic")
    del plain.encode
    with pytest.raises(UserError, match="needs --embeddings-url and --embeddings-model"):
        conditions.setup(plain, PACK)


def test_a_partial_copy_is_refused_unless_allowed(tmp_path, capsys):
    import shutil

    partial = tmp_path / "partial"
    shutil.copytree(GRAPH, partial)
    (partial / "data" / "judges.parquet").unlink()
    plain = args(tmp_path, "Parametric", graph=partial)
    with pytest.raises(UserError, match="declares judges"):
        conditions.setup(plain, PACK)                  # no --allow-partial attribute at all: refused
    with pytest.raises(UserError, match="declares judges"):
        conditions.setup(args(tmp_path, "Parametric", graph=partial, allow_partial=False), PACK)
    allowed = conditions.setup(args(tmp_path, "Parametric", graph=partial, allow_partial=True), PACK)
    assert allowed.info["graph_read_report"]["warnings"] == [
        "manifest.json declares judges (14 rows), and it was not read: no file of the copy was read as it"]
    capsys.readouterr()


def test_the_users_mapping_is_applied(tmp_path):
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text("tables:\n  judges: data/nowhere.parquet\n", encoding="utf-8")
    with pytest.raises(UserError, match="names no table"):
        conditions.setup(args(tmp_path, "Parametric", mapping=mapping), PACK)
