"""`auditpacks tools icj run` on the scripted server, then `export icj` and `score icj` per condition."""

from __future__ import annotations

import json
import re

import pytest

from auditpacks.core.runs.record import RunRecord
from auditpacks.core.runs.run_files import record_name, tool_run_names
from auditpacks.runner.cli.main import main
from auditpacks.packs.icj.graph.vectors import hashing_encoder
from tests.support.icj_graph import GRAPH, TARGETS, with_word_vectors
from tests.support.tool_server import ScriptedToolServer

FIXTURE = TARGETS.parent.parent
ANSWER = {"citation_case_ids": ["001", "064"], "citation_provision_keys": ["statute:article_53"],
          "citation_resolution_symbols": []}


def script(body, n):
    """Ask get_case_citations once per conversation, then answer with a fixed prediction."""
    asked = any(m["role"] == "tool" for m in body["messages"])
    if "tools" in body and not asked:
        return {"tool_calls": [("get_case_citations", '{"case_id": "001"}')]}
    return {"content": json.dumps(ANSWER)}


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    out = tmp_path_factory.mktemp("pack") / "icj.json"
    assert main(["build", "icj", "--source", str(FIXTURE), "--out", str(out)]) == 0
    return out


def _run(pack, tmp_path, condition, server, *extra, command=("tools", "icj")):
    return main([*command, "run", "--graph", str(GRAPH), "--pack", str(pack), "--condition", condition,
                 "--base-url", server.base_url, "--target", "scripted", "--out", str(tmp_path / "out" / condition),
                 "--cache", str(tmp_path / "cache"), *extra])


def test_tool_conditions_run_export_and_score(pack, tmp_path, capsys):
    with ScriptedToolServer(script) as server:
        assert _run(pack, tmp_path, "Designed Tools Only", server) == 0
        assert _run(pack, tmp_path, "Parametric", server, command=("icj-tools",)) == 0
        requests = list(server.requests)
        assert _run(pack, tmp_path, "Designed Tools Only", server, "--fresh") == 0
        assert len(server.requests) == len(requests)  # every step replayed from the response cache
    assert len(requests) == 5 * 2 + 5  # two calls per target with tools, one without
    folder = tmp_path / "out" / "Designed Tools Only"
    traces = [json.loads(line) for line in (folder / tool_run_names("scripted")[0]).read_text().splitlines()]
    assert len(traces) == 5 and all(t["steps"][1]["tool"] == "get_case_citations" for t in traces)
    info = json.loads((folder / tool_run_names("scripted")[1]).read_text())
    record = RunRecord.load(folder / record_name("scripted"))
    assert record.judge == "citations" and record.summary.scenarios == 5 and record.summary.errors == 0
    condition = record.condition
    assert condition.name == "Designed Tools Only" and condition.search == "bm25 (lexical), cut corpus"
    assert set(condition.tools) == {"find_case", "get_case", "get_case_citations", "find_document", "get_document",
                                    "get_passages", "find_provision", "get_provision", "find_resolution",
                                    "get_resolution", "find_judge", "get_judge"}
    assert sorted(condition.snapshots) == ["1948-05-28", "1949-12-15", "1986-06-27", "2004-07-09", "2025-07-23"]
    assert all(v.startswith(k + "_") for k, v in condition.snapshots.items())
    assert "strictly before" in condition.cutoff_policy
    assert RunRecord.load(tmp_path / "out" / "Parametric" / record_name("scripted")).condition.tools == {}
    assert info["search"] == "bm25 (lexical), cut corpus" and info["counts"]["tool_calls"] == 5
    predictions = tmp_path / "predictions.jsonl"
    lines = []
    for condition in ("Designed Tools Only", "Parametric"):
        out = tmp_path / f"{condition}.jsonl"
        assert main(["export", "icj", str(tmp_path / "out" / condition / "scripted.json"), "--model-id", "scripted",
                     "--out", str(out)]) == 0
        lines += out.read_text().splitlines()
    predictions.write_text("\n".join(lines) + "\n")
    assert {json.loads(line)["condition"] for line in lines} == {"Designed Tools Only", "Parametric"}
    capsys.readouterr()
    assert main(["score", "icj", "--pred", str(predictions), "--test", str(TARGETS), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)["results"]["scripted"]
    # the same answer for all five targets: cases TP = 070's 001 and 064 = 2, FP = 5*2 - 2 = 8, FN = 7 - 2 = 5
    for condition in ("Designed Tools Only", "Parametric"):
        cases = scores[condition]["case_ids"]
        assert (cases["tp"], cases["fp"], cases["fn"]) == ([2], [8], [5])


def test_an_unknown_condition_is_one_line(pack, tmp_path, capsys):
    with ScriptedToolServer(script) as server:
        assert _run(pack, tmp_path, "Cypher + Oracle", server) == 2
        assert "not one of Parametric, Cypher + Lexical, Designed Tools Only, Cypher + Semantic" in \
            capsys.readouterr().err
        assert _run(pack, tmp_path, "Cypher + Semantic", server) == 2
        assert "searching by vector needs --embeddings-url and --embeddings-model" in capsys.readouterr().err
        assert not server.requests


def test_cypher_semantic_searches_the_copys_vectors_with_the_endpoints_query_vectors(pack, tmp_path):
    encode = hashing_encoder(64)
    copy = with_word_vectors(tmp_path / "graph", encode)

    def search(body, n):
        if "tools" in body and not any(m["role"] == "tool" for m in body["messages"]):
            return {"tool_calls": [("search_passages", '{"query": "diplomatic staff hostages", "limit": 3}')]}
        return {"content": json.dumps(ANSWER)}

    with ScriptedToolServer(search, embed=encode) as server:
        out = tmp_path / "semantic"
        assert main(["tools", "icj", "run", "--graph", str(copy), "--pack", str(pack), "--condition",
                     "Cypher + Semantic", "--base-url", server.base_url, "--target", "scripted", "--limit", "2",
                     "--embeddings-url", server.base_url, "--embeddings-model", "words", "--out", str(out),
                     "--cache", str(tmp_path / "cache")]) == 0
        assert server.embedded[1:] == ["diplomatic staff hostages"] * 2  # after the encoder's probe
    record = RunRecord.load(out / record_name("scripted"))
    assert record.condition.tools == {"get_schema": "get_schema", "run_cypher": "run_cypher",
                                      "search_passages": "semantic_search"}
    assert record.condition.search.startswith("vector (cosine") and "query encoder words" in record.condition.search
    traces = [json.loads(line) for line in (out / tool_run_names("scripted")[0]).read_text().splitlines()]
    for trace in traces:
        found = json.loads(trace["steps"][1]["result"])
        assert found["method"] == "vector (cosine), cut corpus" and len(found["passages"]) == 3
        assert all(date < trace["cutoff"] for date in found["source_dates"])


def _semantic(pack, tmp_path, graph, server, embeddings_url):
    return main(["tools", "icj", "run", "--graph", str(graph), "--pack", str(pack), "--condition", "Cypher + Semantic",
                 "--base-url", server.base_url, "--target", "scripted", "--embeddings-url", embeddings_url,
                 "--embeddings-model", "words", "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "cache")])


def test_a_semantic_condition_whose_parts_are_missing_is_refused_before_any_request(pack, tmp_path, capsys):
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    empty = tmp_path / "no-vectors"
    shutil.copytree(GRAPH, empty)
    for path in sorted((empty / "data" / "passages").glob("*.parquet")):
        table = pq.read_table(path)
        nulls = pa.nulls(table.num_rows, table.schema.field("embedding").type)
        pq.write_table(table.set_column(table.column_names.index("embedding"), "embedding", nulls), path)
    with ScriptedToolServer(script, embed=hashing_encoder(4)) as server:
        assert _semantic(pack, tmp_path, empty, server, server.base_url) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "holds no passage vectors" in err and "embedding is empty" in err
        assert _semantic(pack, tmp_path, GRAPH, server, "http://127.0.0.1:9/v1") == 2  # nothing listens there
        assert "the embeddings endpoint gives no query vector" in capsys.readouterr().err
        assert not server.requests and not server.embedded
    with ScriptedToolServer(script, embed=hashing_encoder(64)) as server:  # the fixture's vectors have 4
        assert _semantic(pack, tmp_path, GRAPH, server, server.base_url) == 2
        assert "gives 64-dimensional vectors, the copy's passage vectors have 4" in capsys.readouterr().err
        assert not server.requests


def test_every_tool_loop_call_is_capped_and_carries_the_inputs_system_message(pack, tmp_path):
    from auditpacks.packs.pack import load_pack

    built = load_pack(pack)
    with ScriptedToolServer(script) as server:
        assert _run(pack, tmp_path, "Designed Tools Only", server) == 0
        bodies = server.requests
    budget = built.manifest["run"]["max_tokens"]  # the pack's output budget: no call generates without end
    assert budget and all(b.get("max_tokens") == budget for b in bodies)
    systems = {b["messages"][0]["content"] for b in bodies if b["messages"][0]["role"] == "system"}
    own = {s["metadata"]["system_prompt"] for s in built.scenarios}
    assert len(systems) == 1 and len(own) == 1
    assert systems.pop().startswith(own.pop() + "\n\n")  # the inputs' system message, then the condition's
    _, tools_file, _ = tool_run_names("scripted")
    assert json.loads((tmp_path / "out" / "Designed Tools Only" / tools_file).read_text())["max_tokens"] == budget


def test_a_tool_run_prints_progress_lines_as_run_does(pack, tmp_path, capsys):
    with ScriptedToolServer(script) as server:
        capsys.readouterr()
        assert _run(pack, tmp_path, "Parametric", server) == 0
    err = capsys.readouterr().err
    counts = re.findall(r"^\[(\d+)/5\] .* errors", err, flags=re.M)
    assert counts and counts[-1] == "5", err   # five targets, the last line counts all of them
