"""The context a report is rendered from, in process: each run's section (counts, scenarios, documents, rounds,
the record's lines), the overview, the comparisons, the shared documents and whether CJK text is shown."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from types import SimpleNamespace

import pytest
from markupsafe import Markup

from auditpacks.core.runs.run_files import tool_run_names
from auditpacks.judges.figures import Figure, Headline, Section
from auditpacks.packs.pack import PackWriter
from auditpacks.runner.reporting.report import _round_results, build_context, comparisons_for, has_cjk
from auditpacks.runner.reporting.runs import LoadedRun, load_runs
from tests.support.hand_runs import choice_result, tiny_choice_run, write_run
from tests.support.tiny_pack import tiny_scenario, write_pack


def test_cjk_is_han_kana_or_hangul_text():
    assert [has_cjk(t) for t in ("民法", "ひらがな", "한국어", "Straße", None)] == \
        [True, True, True, False, False]


def right(scenarios: list[dict]) -> list[dict]:
    """Each scenario answered with its accepted option."""
    return [choice_result(s, s["decision"]["accepted"][0]) for s in scenarios]


def one_run(folder, results_of=right, *later):
    """A choice_match run of a 3-scenario tiny pack (results from ``results_of``; ``later``: more rounds)."""
    pack = write_pack(folder / "p.json", 3)
    scenarios = json.loads(pack.read_text(encoding="utf-8"))
    return write_run(folder / "run", "m", pack, "choice_match", results_of(scenarios),
                     *(round_of(scenarios) for round_of in later))


def runs_of(folder, packs: list[str], **pack_options) -> list:
    """One run per entry of ``packs``: a pack's name (runs of one name share its pack, of as many tiny scenarios as
    the name has letters); the run records' paths."""
    paths = []
    for i, name in enumerate(packs):
        pack = folder / f"{name}.json"
        if not pack.exists():
            write_pack(pack, len(name), **pack_options)
        scenarios = json.loads(pack.read_text(encoding="utf-8"))
        paths.append(write_run(folder / f"run{i}", f"m{i}", pack, "choice_match", right(scenarios)))
    return paths


def test_comparisons_pair_the_runs_of_one_pack_first_given_as_a(tmp_path):
    paths = runs_of(tmp_path, ["alpha", "alpha", "beta", "alpha"])
    runs = load_runs(paths)
    labels = [run.label for run in runs]
    assert [(c["a"], c["b"]) for c in comparisons_for(runs)] == [
        (labels[a], labels[b]) for a, b in [(0, 1), (0, 3), (1, 3)]]
    fresh = load_runs(paths[:2])
    fresh[1].record.judge = "checklist"          # one pack read by two graders: nothing to pair
    assert comparisons_for(fresh) == []


def test_the_context_of_one_run(tmp_path):
    context = build_context(load_runs([tiny_choice_run(tmp_path)]), plots_on=False)
    generated = dt.datetime.fromisoformat(context["generated"])
    assert generated.utcoffset() == dt.timedelta(0) and "." not in context["generated"]
    assert (context["differs"], context["cjk"], context["comparisons"], context["documents"]) == ("", False, [], [])
    (section,) = context["runs"]
    (overview,) = context["overview"]
    assert overview == {"id": "run1", "label": "m · tiny.json", "benchmark": section["benchmark"], "n": 4,
                        "errors": 1, "key": section["headline"][0]}
    assert overview["key"]["figure"] == "agreement (micro)" and overview["key"]["value"] == 0.5
    assert (section["model"], section["pack"], section["judge"], section["provider"]) == (
        "m", "tiny.json", "choice_match", "openai")
    assert (section["rounds"], section["plots"], section["per_round"], section["hidden"]) == (1, [], None, 0)
    assert section["counts"] == {"scenarios": 4, "verdicts": {"correct": 2, "wrong": 1, "error": 1}, "bad": ["wrong"],
                                 "commonest_error": ("APIStatusError: HTTP 500", 1), "simpleaudit_score": None,
                                 "tokens": None}
    assert list(section["counts"]["verdicts"]) == ["correct", "wrong", "error"]   # commonest first
    assert section["groups"] == ["q0", "q1", "q2", "q3"] and (section["tool_calls"], section["blocked"]) == (0, 0)
    first = section["scenarios"][0]
    assert (first["name"], first["group"], first["outcome"], first["bad"], first["severity"]) == (
        "Tiny 0000 - Outcome of V0000", "q0", "correct", False, "pass")
    assert first["reply"] == "guilty\nBecause." and first["summary"] == "Chose 'guilty'; accepted ['guilty']."
    assert first["stability"] == [] and first["trace"] is None and first["prompt"].startswith("Case 0: what did")
    assert [row["outcome"] for row in section["scenarios"]] == ["correct", "correct", "wrong", "error"]
    assert [row["bad"] for row in section["scenarios"]] == [False, False, True, False]
    assert section["benchmark"] == "closed questions (Iustitia Marigonae style)"


def test_given_comparisons_are_kept_even_when_none(tmp_path):
    runs = load_runs(runs_of(tmp_path, ["alpha", "alpha"]))
    assert len(build_context(runs, plots_on=False)["comparisons"]) == 1
    assert build_context(runs, [], plots_on=False)["comparisons"] == []


@pytest.mark.parametrize("shown, hidden", [(2, 2), (4, 0), (9, 0)])
def test_the_drill_down_shows_at_most_max_scenarios(tmp_path, shown, hidden):
    (section,) = build_context(load_runs([tiny_choice_run(tmp_path)]), max_scenarios=shown, plots_on=False)["runs"]
    assert (len(section["scenarios"]), section["hidden"]) == (min(shown, 4), hidden)


def test_documents_are_shared_between_runs_and_plots_drawn_by_default(tmp_path):
    runs = load_runs(runs_of(tmp_path, ["doc", "doc"], documents=True))   # one document per scenario
    context = build_context(runs)   # plots are drawn unless turned off
    texts = [f"Judgment V0000. The court heard case {i}." for i in range(3)]
    assert [(d["name"], d["text"]) for d in context["documents"]] == [("V0000", text) for text in texts]
    ids = [d["id"] for d in context["documents"]]
    assert len(set(ids)) == 3 and all(re.fullmatch(r"doc-[0-9a-f]{12}", key) for key in ids)
    for section in context["runs"]:
        assert [row["documents"] for row in section["scenarios"]] == [
            [{"id": key, "name": "V0000", "size": len(texts[i]), "start": texts[i]}] for i, key in enumerate(ids)]
        assert section["plots"] and all(isinstance(plot, Markup) for plot in section["plots"])


def doc_run(folder, text: str):
    """A one-scenario run whose scenario carries the document ``text``."""
    pack = folder / "p.json"
    scenario = {**tiny_scenario(0), "documents": [text]}
    with PackWriter(pack, builder="tests", extra={"grading": {"judge": "choice_match"}}) as writer:
        writer.add(scenario)
    return write_run(folder / "run", "m", pack, "choice_match", [choice_result(scenario, "guilty")])


def test_a_documents_start_is_its_first_60_characters(tmp_path):
    long = "Judgment V0000. " + "x" * 80
    (doc,) = build_context(load_runs([doc_run(tmp_path, long)]), plots_on=False)["runs"][0]["scenarios"][0]["documents"]
    assert (doc["size"], doc["start"]) == (96, long[:60])


def cjk_in(field: str):
    def results(scenarios):
        made = right(scenarios)
        if field == "reply":
            made[0]["conversation"][-1]["content"] = "guilty\n民法"
        elif field == "prompt":
            made[0]["conversation"][0]["content"] = "判決"
        elif field == "summary":
            made[0]["judgment"]["summary"] = "判決"
        elif field == "answer":
            made[0]["judgment"]["choice"] = "有罪"
        return made
    return results


@pytest.mark.parametrize("field", ["reply", "prompt", "summary", "answer", None])
def test_cjk_anywhere_shown_asks_for_the_font(tmp_path, field):
    assert build_context(load_runs([one_run(tmp_path, cjk_in(field))]), plots_on=False)["cjk"] is (field is not None)


def test_a_cjk_document_asks_for_the_font(tmp_path):
    assert build_context(load_runs([doc_run(tmp_path, "民法第709条")]), plots_on=False)["cjk"] is True


@pytest.mark.parametrize("judgment, result, shown", [("judged", "result's", "judged"), (None, "result's", "result's"),
                                                      (None, None, "")])
def test_a_scenarios_summary_is_the_judgments_else_the_results(tmp_path, judgment, result, shown):
    def results(scenarios):
        made = right(scenarios)
        made[0]["judgment"]["summary"], made[0]["summary"] = judgment, result
        return made
    (section,) = build_context(load_runs([one_run(tmp_path, results)]), plots_on=False)["runs"]
    assert section["scenarios"][0]["summary"] == shown


def test_a_repeated_run_shows_each_rounds_figures_and_each_scenarios_stability(tmp_path):
    def wrong(scenarios):
        return [choice_result(s, "dismissed" if s["decision"]["accepted"] != ["dismissed"] else "guilty")
                for s in scenarios]
    path = one_run(tmp_path, right, right, wrong)
    (section,) = build_context(load_runs([path]), plots_on=False)["runs"]
    assert section["rounds"] == 3
    assert [row["stability"] for row in section["scenarios"]] == [["correct", "correct", "wrong"]] * 3
    per_round = section["per_round"]
    assert per_round["figures"] == ["agreement (micro)", "agreement (macro)", "coverage"]
    assert [row["round"] for row in per_round["rows"]] == [1, 2, 3]
    assert [[cell["value"] for cell in row["cells"]] for row in per_round["rows"]] == [
        [1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 1.0]]


def test_a_runs_record_brings_its_qualification_line_start_and_tokens(tmp_path):
    path = one_run(tmp_path)
    record = json.loads(path.read_text(encoding="utf-8"))
    record.update(judge_qualification={"line": "judge j: qualified on x"}, started="2026-12-01T00:00:00")
    record["summary"].update(tokens={"total": 42}, simpleaudit_score=0.9)
    path.write_text(json.dumps(record), encoding="utf-8")
    (section,) = build_context(load_runs([path]), plots_on=False)["runs"]
    assert (section["judge_qualification"], section["started"]) == ("judge j: qualified on x", "2026-12-01T00:00:00")
    assert (section["counts"]["tokens"], section["counts"]["simpleaudit_score"]) == (42, 0.9)


def test_a_runs_section_takes_its_benchmarks_part_and_its_headline(tmp_path, monkeypatch):
    (run,) = load_runs([tiny_choice_run(tmp_path)])
    part = Section(tables=["table"], plots=["plot"], warnings=["a"], per_round=False)
    monkeypatch.setattr(LoadedRun, "report", property(lambda self: SimpleNamespace(
        section=lambda of, index: part if (of, index) == (run, 0) else None, headline=lambda of, index: [])))
    run.headline = lambda round_index=0: Headline({"warnings": ["a", "b"], "calibration": {"ece": 0.1}})
    monkeypatch.setattr("auditpacks.runner.reporting.plots.render", lambda plot, title: f"<svg>{plot} {title}</svg>")
    monkeypatch.setattr("auditpacks.runner.reporting.report.calibration_section",
                        lambda calibration, title, *, plots_on: (calibration, title, plots_on))
    context = build_context([run])
    (section,) = context["runs"]
    assert (section["tables"], section["warnings"]) == (["table"], ["a", "b"])   # each warning once
    assert section["plots"] == [Markup("<svg>plot m on tiny.json</svg>")]
    assert section["calibration"] == ({"ece": 0.1}, "m on tiny.json", True)
    assert section["headline"] == [] and context["overview"][0]["key"] is None    # no percentage to lead with


def no_benchmarks_run(folder, rounds: int):
    """A checklist run (no benchmark reads it) of a 3-scenario tiny pack, every round alike; its loaded run."""
    pack = write_pack(folder / "p.json", 3)
    scenarios = json.loads(pack.read_text(encoding="utf-8"))
    (run,) = load_runs([write_run(folder / "run", "m", pack, "checklist", *[right(scenarios)] * rounds)])
    return run


def test_a_run_no_benchmark_reads_is_other_and_shows_two_rounds_side_by_side(tmp_path):
    (section,) = build_context([no_benchmarks_run(tmp_path, 2)], plots_on=False)["runs"]
    assert section["benchmark"] == "other" and section["per_round"]["figures"] == ["pass rate"]
    assert [row["round"] for row in section["per_round"]["rows"]] == [1, 2]
    assert section["scenarios"][0]["stability"] == ["correct", "correct"]


def test_the_rounds_side_by_side_show_the_first_rounds_percentages(tmp_path):
    run = no_benchmarks_run(tmp_path, 2)
    shown = [[Figure("micro", 0.5), Figure("tasks", 3, "count")], [Figure("micro", 0.25), Figure("macro", 0.1)]]
    run.headline = lambda round_index=0: Headline({}, reading=lambda values: shown[round_index])
    per_round = build_context([run], plots_on=False)["runs"][0]["per_round"]
    assert per_round["figures"] == ["micro"]
    assert [[cell["value"] for cell in row["cells"]] for row in per_round["rows"]] == [[0.5], [0.25]]


def test_a_scenarios_stability_takes_its_first_result_in_each_round():
    run = SimpleNamespace(rounds=[[{"scenario_name": "b", "n": 1}, {"scenario_name": "a", "n": 2},
                                   {"scenario_name": "a", "n": 3}], [{"scenario_name": "a", "n": 4}]])
    assert [r["n"] for r in _round_results(run, "a")] == [2, 4]


def test_a_clean_tool_runs_section_counts_its_calls_cost_and_no_errors(tmp_path):
    path = one_run(tmp_path)
    record = json.loads(path.read_text(encoding="utf-8"))
    record["condition"] = {"name": "Tools", "tools": {"find": "find_case"}}
    record["cost"] = {"way": "batch", "price_table_date": "2026-11-01", "quote": {"cost": 1.0},
                      "incurred": {"cost": 0.5, "input": 1000, "cached_input": 0, "cache_write": 0, "output": 10,
                                   "cache_hit_rate": 0.5}}
    path.write_text(json.dumps(record), encoding="utf-8")
    tool = {"kind": "tool", "tool": "find_case", "result": "{}", "ok": True, "leak": False}
    traces = [{"scenario": "Tiny 0000 - Outcome of V0000", "steps": [tool, {**tool, "ok": False, "leak": True}]},
              {"scenario": "Tiny 0001 - Outcome of V0000", "steps": [tool]}]
    (path.parent / tool_run_names("m")[0]).write_text("".join(json.dumps(t) + "\n" for t in traces),
                                                      encoding="utf-8")
    context = build_context(load_runs([path]), plots_on=False)
    (section,) = context["runs"]
    assert context["overview"][0]["errors"] == 0 and section["counts"]["commonest_error"] is None
    assert section["sha256"] == hashlib.sha256((tmp_path / "p.json").read_bytes()).hexdigest()
    assert section["cost"] == ("cost (batch, prices of 2026-11-01): $0.5000 incurred, $1.0000 quoted; 1,000 input "
                               "tokens, 0 cached, 0 cache writes, 10 output; cache hit rate 50%")
    assert section["condition"].name == "Tools" and (section["tool_calls"], section["blocked"]) == (3, 1)
    assert [row["trace"] and row["trace"]["tool_calls"] for row in section["scenarios"]] == [2, 1, None]
    assert section["scenarios"][0]["cost"]["input"] == 0
