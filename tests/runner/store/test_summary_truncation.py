"""Replies stopped at the output-token cap are flagged for every benchmark: a note in the run's summary and a mark
after the reply in the report (a jacite run on the fake server, two of four replies cut)."""

from __future__ import annotations

import json

from auditpacks.runner.cli.main import main
from auditpacks.runner.reporting.outcomes import CUT_MARK, reply
from auditpacks.judges.figures import Headline
from auditpacks.judges.reader import Reader
from auditpacks.runner.store.summary import summarize
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import run_file, run_here


def test_summarize_counts_the_cut_replies_once_whatever_notes_came_before():
    results = [{"scenario_name": f"s{i}", "scenario_description": "", "conversation": [], "severity": "pass",
                "issues_found": [], "positive_behaviors": [], "recommendations": [], "summary": "",
                "judgment": {"truncated": i < 2}} for i in range(5)]
    earlier = "replies stopped at the output-token cap: 1 of 3; their answers may be cut short (a shard's)"
    notes = summarize([{}] * 5, results, Headline(), Reader("grounding"), notes=["other", earlier]).notes
    assert notes == ["other", "replies stopped at the output-token cap: 2 of 5; their answers may be cut short "
                              "(raise --max-tokens to give them room)"]
    assert summarize([{}] * 5, [{**r, "judgment": {}} for r in results], Headline(), Reader("grounding")).notes == []


def test_a_jacite_run_with_replies_cut_at_the_cap_says_so(tmp_path, capsys):
    pack = tmp_path / "jacite.json"
    assert main(["build", "jacite", "--out", str(pack), "--limit", "4"]) == 0
    calls = []

    def answer(model, messages):
        calls.append(1)
        cut = len(calls) % 2 == 1      # every other reply stops at the cap
        return {"content": "民法第1条 によれば" if cut else "民法第1条 です。", "finish_reason": "length" if cut else "stop"}

    with FakeOpenAI(answer=answer) as server:
        assert run_here(pack, tmp_path / "out", server.base_url) == 0
    out = capsys.readouterr().out
    results = json.loads((tmp_path / "out" / "m.json").read_text(encoding="utf-8"))["results"]
    cut = sum(bool(r["judgment"].get("truncated")) for r in results)
    assert cut == 2
    note = f"replies stopped at the output-token cap: 2 of 4"
    assert any(n.startswith(note) for n in run_file(tmp_path / "out")["summary"]["notes"])
    assert note in out
    marked = [r for r in results if r["judgment"].get("truncated")]
    assert reply(marked[0]).endswith("\n" + CUT_MARK) and CUT_MARK not in reply(
        next(r for r in results if not r["judgment"].get("truncated")))
