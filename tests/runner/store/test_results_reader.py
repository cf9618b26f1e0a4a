"""Results files read one result at a time: the same results as ``json.load``, whatever the text holds."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from simpleaudit import AuditResult, AuditResults

from auditpacks.runner.store.results_file import slim_result, write_results
from auditpacks.runner.store.results_reader import scan_results
from tests.support.fuzz import FUZZ


def result(name: str, reply: str, documents=None) -> dict:
    user = {"role": "user", "content": "q", **({"documents": documents} if documents else {})}
    return AuditResult(scenario_name=name, scenario_description="d", conversation=[user, {"role": "assistant",
                       "content": reply}], severity="pass", issues_found=[], positive_behaviors=[], summary="s",
                       recommendations=[], expected_behavior=["x"], judgment={"severity": "pass"}).to_dict()


TRICKY = ['    {', '    }', '  "results": [', '}\n    }\n', '"results": []', "第一条\u2028\u2029", "\\", '\r\n    },']


def written(path: Path, results: list[dict]) -> Path:
    write_results(path, [slim_result(r) for r in results], results)
    return path


def test_ranges_give_back_every_result_and_slim_copies(tmp_path):
    results = [result(f"s{i}", reply, documents=[{"title": "t", "text": reply}]) for i, reply in enumerate(TRICKY)]
    index, slim = scan_results(written(tmp_path / "r.json", results))
    assert index.whole is None and len(index) == len(results)  # read by range, not whole
    assert [index.load(i) for i in range(len(index))] == json.loads((tmp_path / "r.json").read_text())["results"]
    assert slim == [slim_result(r) for r in results]
    assert all("documents" not in m for s in slim for m in s["conversation"])


def test_simpleaudits_own_file_and_other_layouts(tmp_path):
    results = [result("a", "x"), result("b", '    }')]
    AuditResults([AuditResult(**r) for r in results]).save(str(tmp_path / "sa.json"))
    index, slim = scan_results(tmp_path / "sa.json")
    assert index.whole is None and [index.load(i) for i in range(2)] == results
    compact = tmp_path / "compact.json"
    compact.write_text(json.dumps({"summary": {}, "results": results}))
    index, slim = scan_results(compact)
    assert index.whole == results and slim == [slim_result(r) for r in results]
    empty = written(tmp_path / "empty.json", [])
    assert len(scan_results(empty)[0]) == 0


def test_a_cut_file_is_refused(tmp_path):
    path = written(tmp_path / "r.json", [result("a", "x"), result("b", "y")])
    text = path.read_text()
    path.write_text(text[: text.rindex('"severity"')])
    with pytest.raises(ValueError):
        scan_results(path)


@FUZZ
@given(st.lists(st.text(max_size=40), min_size=0, max_size=4))
def test_any_reply_text_reads_back_exactly(replies):
    with tempfile.TemporaryDirectory() as folder:
        path = written(Path(folder) / "r.json", [result(f"s{i}", r) for i, r in enumerate(replies)])
        index, _ = scan_results(path)
        assert [index.load(i) for i in range(len(index))] == json.loads(path.read_text(encoding="utf-8"))["results"]
