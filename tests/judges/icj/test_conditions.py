"""The ICJ plugin's tool conditions: what ``setup`` hands the runner for each condition, and its one-line refusals."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from auditpacks.core.errors import UserError
from auditpacks.judges.icj import conditions
from auditpacks.packs.pack import Pack
from tests.support.icj_graph import GRAPH

PACK = Pack(Path("icj.json"), [], {"grading": {"pass_f1": 0.9}}, "0" * 64)
GOLD = {"name": "s", "metadata": {"gold_citation_case_ids": ["001", "002"], "gold_citation_provision_keys": [],
                                  "gold_citation_resolution_symbols": []}}
REPLY = {"role": "assistant", "content": json.dumps({"citation_case_ids": ["001"], "citation_provision_keys": [],
                                                     "citation_resolution_symbols": []})}


def _args(tmp_path, condition, encode=None):
    return argparse.Namespace(graph=GRAPH, mapping=None, cache=tmp_path, protocol=None, tool_alias=[],
                              condition=condition, encode=encode, embeddings_model=None)


def test_designed_tools_cut_at_each_scenarios_decision_date(tmp_path):
    setup = conditions.setup(_args(tmp_path, "Designed Tools Only"), PACK)
    assert setup.judge == "citations" and setup.system == conditions.SYSTEM
    assert setup.condition.search == "bm25 (lexical), cut corpus" and len(setup.condition.tools) == 12
    box = setup.toolbox_for({"name": "s", "metadata": {"cutoff_date": "1986-06-27"}})
    assert box.cutoff == "1986-06-27" and box.snapshot_id.startswith("1986-06-27_")
    with pytest.raises(UserError, match="s2: no metadata.cutoff_date"):
        setup.toolbox_for({"name": "s2", "metadata": {}})
    # citing 001 of 001 and 002: precision 1, recall 1/2, F1 2/3: under the pack's pass_f1 0.9, not under 0.5
    assert setup.grade(GOLD, REPLY)["severity"] != "pass"
    default = conditions.setup(_args(tmp_path, "Designed Tools Only"), Pack(Path("p.json"), [], {}, "0" * 64))
    assert default.grade(GOLD, REPLY)["severity"] == "pass"


def test_parametric_has_no_tools_and_no_instructions(tmp_path):
    setup = conditions.setup(_args(tmp_path, "Parametric"), PACK)
    assert setup.toolbox_for({"name": "s"}) is None and setup.system is None
    assert (setup.condition.tools, setup.condition.search, setup.condition.cutoff_policy) == ({}, None, None)


def test_semantic_needs_vectors_and_an_encoder(tmp_path):
    with pytest.raises(UserError, match="needs --embeddings-url and --embeddings-model"):
        conditions.setup(_args(tmp_path, "Cypher + Semantic"), PACK)
    with pytest.raises(UserError, match="not one of"):
        conditions.setup(_args(tmp_path, "Semantic"), PACK)
