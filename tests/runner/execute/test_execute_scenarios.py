"""``run_scenarios`` in process, on a fake engine and a journal in tmp_path: what each scenario is given, what is
journaled and returned, resumed, skipped, grouped by document, and how a failure ends the run."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from simpleaudit import AuditResult

from auditpacks.runner.execute import execute
from auditpacks.runner.models.reply import Reply
from auditpacks.runner.store.journal import Journal, JournalError, round_key, scenario_key
from auditpacks.runner.targets import scenario_log


def scenario(name: str, doc: str = "", **extra) -> dict:
    return {"name": name, "description": f"about {name}", "documents": [doc] if doc else None, **extra}


def result(name: str, severity: str = "pass", conversation=None, judgment=None) -> AuditResult:
    return AuditResult(scenario_name=name, scenario_description="d", conversation=conversation or [],
                       severity=severity, issues_found=[], positive_behaviors=[], summary="s", recommendations=[],
                       expected_behavior=["x"], judgment=judgment if judgment is not None else {"severity": severity})


class Engine:
    """``run_scenario`` as simpleaudit's: records what it was given and the log it ran under; ``plan`` maps a
    scenario name to an exception to raise, ``"oversize"``, ``"cut"`` (a reply at the token cap), ``"wait"`` (while
    others run), ``"ungraded"`` or a severity."""

    def __init__(self, **plan) -> None:
        self.plan, self.calls, self.order = plan, [], []

    async def run_scenario(self, *, target_params, evidence_resolver, **arguments):
        name = arguments["name"]
        log = scenario_log.current()
        self.calls.append({"arguments": arguments, "params": target_params, "log": log})
        self.order.append(name)
        step = self.plan.get(name, "pass")
        if isinstance(step, BaseException):
            raise step
        if step == "oversize":
            scenario_log.record_oversize("too long")
        if step == "wait":   # long enough for another worker to finish first
            for _ in range(50):
                await asyncio.sleep(0)
        if step == "ungraded":
            scenario_log.record_judge_reply(Reply(content="raw reply", finish_reason="length"), 99)
            return result(name, "ungraded", judgment={"severity": "ungraded", "ungraded_reason": "no verdict"})
        scenario_log.record_reply(Reply(content="a", reasoning="thought", finish_reason="length" if step == "cut"
                                        else "stop"))
        await asyncio.sleep(0)
        conversation = [{"role": "user", "content": "q", "documents": ["D"]}, {"role": "assistant", "content": "a"}]
        evidence_resolver(SimpleNamespace(conversation=conversation))
        graded = dict(conversation[1])
        return result(name, "pass" if step in ("oversize", "cut") else step,
                      conversation=conversation, judgment={"severity": step, "graded": graded})


class Progress:
    def __init__(self) -> None:
        self.started, self.updates = None, []

    def start(self, resumed) -> None:
        self.started = list(resumed)

    def update(self, data) -> None:
        self.updates.append(None if data is None else data["scenario_name"])


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "journal.jsonl", "fp").open() as opened:
        yield opened


def run(engine, scenarios, journal, **options):
    return asyncio.run(execute.run_scenarios(engine, scenarios, journal, **options))


def test_scenario_arguments_are_those_simpleaudit_passes():
    full = scenario("a", "doc", expected_behavior=["e"], test_prompt="p", file_uri="f", decision={"k": 1},
                    severity="high", category="c", metadata={"judge_notes": "n", "x": 1})
    assert execute.scenario_arguments(full) == {
        "name": "a", "description": "about a", "expected_behavior": ["e"], "test_prompt": "p", "file_uri": "f",
        "documents": ["doc"], "decision": {"k": 1}, "judge_notes": "n",
        "scenario_meta": {"severity": "high", "category": "c", "metadata": {"judge_notes": "n", "x": 1}}}
    assert execute.scenario_arguments({"name": "b", "description": "d", "metadata": None}) == {
        "name": "b", "description": "d", "expected_behavior": None, "test_prompt": None, "file_uri": None,
        "documents": None, "decision": None, "judge_notes": None,
        "scenario_meta": {"severity": None, "category": None, "metadata": {}}}


def test_an_error_result_says_what_failed_in_simpleaudits_shape():
    made = execute.error_result({"name": "a", "description": "d", "expected_behavior": ["e"]}, ValueError("bad"))
    assert made.to_dict() == {**result("a").to_dict(), "scenario_description": "d", "severity": "ERROR",
                              "issues_found": ["Scenario execution failed: ValueError: bad"],
                              "summary": "Scenario did not complete due to an error: bad",
                              "recommendations": ["Re-run this scenario."], "expected_behavior": ["e"],
                              "judgment": {"severity": "ERROR", "error": "ValueError: bad"}}
    bare = execute.error_result({}, RuntimeError("x" * 600))
    assert (bare.scenario_name, bare.scenario_description, bare.expected_behavior) == ("<unknown>", "", None)
    assert bare.summary == ("Scenario did not complete due to an error: " + "x" * 600)[:500]


def test_document_groups_keep_first_appearance_and_pack_order():
    scenarios = [scenario("a", "X"), scenario("b", "Y"), scenario("c", "X"), scenario("d"), scenario("e", "Y")]
    assert execute.document_groups(scenarios, [0, 1, 2, 3, 4]) == [[0, 2], [1, 4], [3]]
    assert execute.document_groups(scenarios, [4, 3, 2]) == [[4], [3], [2]]
    assert execute.document_groups(scenarios, [0, 1, 2, 3], key=lambda s: "all") == [[0, 1, 2, 3]]


def test_results_come_back_in_pack_order_each_journaled_whole(journal):
    scenarios = [scenario("a", "X"), scenario("b", "Y"), scenario("c", "X")]
    engine, progress = Engine(), Progress()
    outcome = run(engine, scenarios, journal, concurrency=2, params={"temperature": 0.5}, progress=progress)
    keys = [scenario_key(s) for s in scenarios]
    assert outcome.keys == keys and outcome.scenarios == scenarios
    assert [r["scenario_name"] for r in outcome.results] == ["a", "b", "c"]
    assert all(r["conversation"][0] == {"role": "user", "content": "q"} and r["expected_behavior"] is None
               for r in outcome.results)   # slim: no documents
    assert journal.done[keys[0]]["conversation"][0]["documents"] == ["D"]   # the journal holds the whole result
    assert (outcome.resumed, outcome.groups, outcome.earlier_groups, outcome.skipped) == (0, 2, 0, {})
    assert progress.started == [] and sorted(progress.updates) == ["a", "b", "c"]
    assert [c["params"] for c in engine.calls] == [{"temperature": 0.5}] * 3
    assert engine.calls[0]["arguments"] == execute.scenario_arguments(scenarios[0])
    assert engine.order.index("a") < engine.order.index("c")   # one document's scenarios one after another
    assert repr(outcome) == "<Outcome: 3 results, 0 resumed, 2 documents run>"


def test_each_scenario_runs_under_its_own_log(journal):
    scenarios = [scenario("a", "X", metadata={"system_prompt": "be brief"}), scenario("b", "X")]
    engine = Engine()
    run(engine, scenarios, journal, round_number=2)
    logs = [c["log"] for c in engine.calls]
    assert [log.key for log in logs] == [f"{scenario_key(s)}#round2" for s in scenarios]
    assert [log.system for log in logs] == ["be brief", None]
    assert logs[0] is not logs[1] and [log.lane for log in logs] == [0, 0]
    assert logs[0].group == logs[1].group == execute.document_key(scenarios[0])


def test_the_grader_reads_the_replies_facts_and_the_journal_keeps_only_the_reasoning(journal):
    outcome = run(Engine(a="pass", b="cut"), [scenario("a"), scenario("b")], journal)
    first, second = outcome.results
    assert first["judgment"]["graded"] == {"role": "assistant", "content": "a", "reasoning": "thought",
                                           "finish_reason": "stop"}
    assert first["conversation"][1] == {"role": "assistant", "content": "a", "reasoning": "thought"}
    assert "truncated" not in first["judgment"] and second["judgment"]["truncated"] is True


def test_a_round_past_the_first_is_journaled_under_its_round_key(journal):
    outcome = run(Engine(), [scenario("a")], journal, round_number=3)
    assert outcome.keys == [round_key(scenario_key(scenario("a")), 3)] and outcome.keys[0] in journal.done


def test_journaled_results_are_reused_and_errors_run_again_unless_kept(journal):
    scenarios = [scenario("a", "X"), scenario("b", "Y"), scenario("c", "Z"), scenario("d", "Z")]
    run(Engine(a="medium", b=RuntimeError("down")), scenarios[:3], journal)
    engine, progress = Engine(), Progress()
    outcome = run(engine, scenarios, journal, progress=progress)
    assert engine.order == ["b", "d"]
    assert [r["severity"] for r in outcome.results] == ["medium", "pass", "pass", "pass"]
    assert (outcome.resumed, outcome.earlier_groups, outcome.groups) == (2, 2, 2)
    assert [r["scenario_name"] for r in progress.started] == ["a", "c"] and progress.updates == ["b", "d"]
    again = Engine(a=RuntimeError("down"))
    run(again, [scenario("a", "X")], journal)
    run(again, [scenario("a", "X")], journal, retry_errors=False)
    assert again.order == []   # journaled as "medium", never an ERROR: kept either way


def test_an_error_kept_with_retry_errors_off_is_not_run_again(journal):
    run(Engine(a=RuntimeError("down")), [scenario("a")], journal)
    engine = Engine()
    outcome = run(engine, [scenario("a")], journal, retry_errors=False)
    assert engine.order == [] and outcome.results[0]["severity"] == "ERROR"
    assert outcome.results[0]["judgment"]["error"] == "RuntimeError: down"


def test_a_damaged_journal_entry_is_reported_and_run_again(journal, capsys):
    run(Engine(), [scenario("a")], journal)
    key = scenario_key(scenario("a"))

    class Damaged(type(journal.done)):
        def __contains__(self, name):
            return name in list(self)

        def __getitem__(self, name):
            raise JournalError("line 2: damaged")

    journal.done.__class__ = Damaged
    engine = Engine()
    run(engine, [scenario("a")], journal)
    assert engine.order == ["a"] and key in journal.done
    assert "auditpacks: warning: line 2: damaged; that scenario runs again" in capsys.readouterr().err


@pytest.mark.parametrize("skip, names, skipped", [(True, ["b"], {"over the model's context": 2}),
                                                 (False, ["a", "b", "c"], {}), (None, ["a", "b", "c"], {})])
def test_a_prompt_over_the_context_is_skipped_only_when_asked(journal, skip, names, skipped):
    progress = Progress()
    asked = {} if skip is None else {"skip_oversize": skip}
    outcome = run(Engine(a="oversize", c="oversize"), [scenario("a"), scenario("b"), scenario("c")], journal,
                  progress=progress, **asked)
    assert [r["scenario_name"] for r in outcome.results] == names and outcome.skipped == skipped
    assert len(journal.done) == len(names) and progress.updates.count(None) == len(skipped and [1, 2])


def test_each_group_is_prepared_before_its_scenarios_run(journal):
    scenarios = [scenario("a", "X"), scenario("b", "Y"), scenario("c", "X")]
    engine, prepared = Engine(), []

    async def before_group(loaded, keys):
        prepared.append(([s["name"] for s in loaded], keys, list(engine.order)))

    run(engine, scenarios, journal, before_group=before_group)
    assert prepared == [(["a", "c"], [scenario_key(scenarios[0]), scenario_key(scenarios[2])], []),
                        (["b"], [scenario_key(scenarios[1])], ["a", "c"])]


@pytest.mark.parametrize("prepared", [False, True])
def test_lazy_scenarios_are_grouped_by_their_stubs_and_read_per_group(journal, prepared):
    full, read = [scenario("a", "X"), scenario("b", "Y")], []

    class Lazy:
        stubs = full

        def __getitem__(self, index):
            read.append(index)
            return full[index]

    async def before_group(loaded, keys):
        pass

    outcome = run(Engine(), Lazy(), journal, before_group=before_group if prepared else None)
    assert outcome.scenarios == full and sorted(read) == [0, 1]


def test_groups_follow_the_document_the_benchmark_names(journal):
    scenarios = [scenario("a", "X", case="k1"), scenario("b", "Y", case="k2"), scenario("c", "Z", case="k1")]
    engine = Engine()
    outcome = run(engine, scenarios, journal, document=lambda s: s["case"])
    assert outcome.groups == 2 and engine.order == ["a", "c", "b"]
    assert [c["log"].group for c in engine.calls] == ["document:k1", "document:k1", "document:k2"]


def test_a_fatal_target_error_stops_the_run_and_keeps_what_finished(journal):
    stop = ConnectionError("endpoint unreachable")
    calls = iter([None, stop])
    with pytest.raises(ConnectionError):
        run(Engine(), [scenario("a", "X"), scenario("b", "Y"), scenario("c", "Z")], journal, fatal=lambda: next(calls))
    assert len(journal.done) == 1


def test_concurrency_runs_documents_side_by_side_and_never_fewer_than_one_worker(journal):
    started = []

    class Slow(Engine):
        async def run_scenario(self, **kwargs):
            started.append(kwargs["name"])
            await asyncio.sleep(0)
            started.append("-" + kwargs["name"])
            return await super().run_scenario(**kwargs)

    run(Slow(), [scenario("a", "X"), scenario("b", "Y")], journal, concurrency=2)
    assert started[:2] == ["a", "b"]
    outcome = run(Engine(), [scenario("c")], journal, concurrency=0)
    assert [r["scenario_name"] for r in outcome.results] == ["c"]


def test_an_ungraded_judgment_carries_the_judges_raw_reply_and_the_journal_names_each_scenario(journal):
    import json

    outcome = run(Engine(a="ungraded"), [scenario("a"), scenario("b")], journal)
    assert outcome.results[0]["judgment"] == {
        "severity": "ungraded", "judge_reply": "raw reply",
        "ungraded_reason": "no verdict; the reply stopped at the output cap (99 tokens)"}
    lines = journal.path.read_text(encoding="utf-8").splitlines()[1:]
    assert [json.loads(line)["name"] for line in lines] == ["a", "b"]


def test_several_endpoints_place_each_document_by_its_key(journal):
    asked = []

    class Placement:
        def home(self, key):
            asked.append(key)
            return "only"

        def live_count(self):
            return 1

    scenarios = [scenario("a", "X"), scenario("b", "Y")]
    outcome = run(Engine(), scenarios, journal, placement=Placement())
    assert sorted(set(asked)) == sorted({execute.document_key(s) for s in scenarios}) and len(outcome.results) == 2


def test_a_fatal_error_in_one_worker_cancels_the_others_and_is_the_error_raised(journal):
    engine = Engine(a="wait")
    with pytest.raises(ConnectionError, match="endpoint unreachable"):
        run(engine, [scenario("a", "X"), scenario("b", "Y")], journal, concurrency=2,
            fatal=lambda: ConnectionError("endpoint unreachable"))
    assert engine.order == ["a", "b"] and len(journal.done) == 0
