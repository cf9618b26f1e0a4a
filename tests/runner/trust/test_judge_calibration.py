"""Grading calibration items with the judge under test: each item's replies and follow-up turns replayed in order
through the run's own checklist path, its verdict and judgment kept under its id, progress reported per item,
a failed item kept as ungraded (None), and a judge-check without a judge model refused."""

from __future__ import annotations

import asyncio
import threading

import pytest

from auditpacks.judges.iustitia import judge_items as iustitia_items
from auditpacks.judges.trust.judge_items import GOLD, CalibrationItem
from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.trust import judge_calibration
from auditpacks.runner.trust.judge_calibration import calibration_items, grade
from tests.support.fake_openai import FakeOpenAI
from tests.support.run_config import run_config
from tests.support.scripted_judge import answer, replies_of
from tests.support.tiny_pack import tiny_scenario

SCENARIO = tiny_scenario(0)     # accepted answer: guilty


@pytest.fixture(scope="module")
def prompts():
    return []


#: Judge requests in flight; ``OVERLAP`` is set when two were at once (each waits a moment for another).
FLIGHT, LOCK, OVERLAP = [0], threading.Lock(), threading.Event()


@pytest.fixture(scope="module")
def server(prompts):
    def judge(model, messages):
        prompts.append(messages[-1]["content"])
        if model == "judge-garbage":
            return {"content": "not a checklist"}
        if model == "judge-overlap":
            with LOCK:
                FLIGHT[0] += 1
                if FLIGHT[0] > 1:
                    OVERLAP.set()
            OVERLAP.wait(0.1)
            with LOCK:
                FLIGHT[0] -= 1
        return answer(model.replace("overlap", "pass"), messages)

    with FakeOpenAI(answer=judge) as fake:
        yield fake


def item(id_: str, *replies: str, follow_ups: tuple[str, ...] = (), scenario=SCENARIO) -> CalibrationItem:
    return CalibrationItem(id_, GOLD, "pass", scenario, tuple(replies), follow_ups)


def graded(items, server, judge_model="judge-pass", *, cache=None, embedded=(None, None), **settings):
    config = run_config(judge="checklist", judge_model=judge_model,
                        judge_base_url=server.base_url if server else None, **settings)
    done = []
    result = asyncio.run(grade(items, config, manifest=None, embedded_url=embedded[0], embedded_identity=embedded[1],
                               cache=cache, on_done=done.append))
    return result, done


@pytest.mark.parametrize("judge_model, verdict, severity", [("judge-pass", "pass", "pass"),
                                                            ("judge-fail", "fail", "medium")])
def test_each_item_gets_the_judges_verdict_and_judgment_under_its_id(server, judge_model, verdict, severity):
    items = [item("one", "guilty\nBecause."), item("two", "acquitted\nNo.")]
    result, done = graded(items, server, judge_model, concurrency=2)
    assert result.verdicts == {"one": verdict, "two": verdict}
    assert {key: j["severity"] for key, j in result.judgments.items()} == {"one": severity, "two": severity}
    assert [d["severity"] for d in done] == [severity, severity]
    assert [d["judgment"]["severity"] for d in done] == [severity, severity]
    # the judge's record: its model, called once per item
    assert (result.judge["role"], result.judge["model"], result.judge["requests"]) == ("judge", judge_model, 2)


def test_replies_and_follow_up_turns_are_replayed_in_order(server, prompts):
    prompts.clear()
    replies = [f"guilty\nReply {n}." for n in range(1, 5)]
    items = [item("talk", *replies, follow_ups=("Are you sure?", "Really sure?", "Quite sure?"))]
    result, done = graded(items, server)
    assert result.verdicts == {"talk": "pass"} and len(done) == 1
    (prompt,) = prompts
    assert replies_of(prompt) == replies
    conversation = prompt.split("CONVERSATION:\n", 1)[1]
    order = [conversation.index(text) for text in ("Reply 1.", "Are you sure?", "Reply 2.", "Really sure?", "Reply 3.",
                                                   "Quite sure?", "Reply 4.")]
    assert order == sorted(order)


@pytest.mark.parametrize("concurrency, overlap", [(1, False), (2, True)])
def test_items_are_graded_concurrency_at_a_time_each_with_its_own_replies(server, prompts, concurrency, overlap):
    prompts.clear()
    OVERLAP.clear()
    items = [item(f"i{n}", f"guilty\nReply {n}.") for n in range(3)]
    result, _ = graded(items, server, "judge-overlap", concurrency=concurrency)
    assert OVERLAP.is_set() is overlap
    assert sorted(replies_of(p)[0] for p in prompts) == ["guilty\nReply 0.", "guilty\nReply 1.", "guilty\nReply 2."]
    assert result.verdicts == {"i0": "pass", "i1": "pass", "i2": "pass"}


def test_an_unusable_judge_reply_is_ungraded_and_kept_whole(server):
    result, _ = graded([item("one", "guilty\nOk.")], server, "judge-garbage")
    judgment = result.judgments["one"]
    assert result.verdicts == {"one": None}
    assert (judgment["severity"], judgment["judge_reply"]) == ("ungraded", "not a checklist")


def test_the_run_cache_answers_a_second_grading_and_the_embedded_server_reaches_the_judge(server, tmp_path,
                                                                                          monkeypatch):
    seen = []
    real = judge_calibration.build_roles
    monkeypatch.setattr(judge_calibration, "build_roles", lambda *a, **kw: seen.append(kw) or real(*a, **kw))
    cache = ResponseCache(tmp_path / "cache")
    items = [item("one", "guilty\nOk."), item("two", "guilty\nAlso ok.")]
    first, _ = graded(items, server, cache=cache, embedded=("http://127.0.0.1:9/v1", {"digest": "d"}))
    second, _ = graded(items, server, cache=cache)
    assert (first.judge["cache_hits"], second.judge["cache_hits"]) == (0, 2)
    assert second.verdicts == first.verdicts == {"one": "pass", "two": "pass"}
    assert (seen[0]["embedded_url"], seen[0]["embedded_identity"]) == ("http://127.0.0.1:9/v1", {"digest": "d"})


def test_an_item_that_cannot_be_replayed_is_kept_ungraded(server):
    broken = item("broken", "guilty\nOne.", "guilty\nTwo.")          # two turns, but no follow-up to ask
    nameless = item("nameless", "guilty\nOne.", scenario={k: v for k, v in SCENARIO.items() if k != "name"})
    result, done = graded([broken, nameless, item("fine", "guilty\nOk.")], server)
    assert result.verdicts == {"broken": None, "nameless": None, "fine": "pass"}
    assert result.judgments["broken"]["severity"] == "ERROR" and done[0]["severity"] == "ERROR"
    # a failure before the engine's own turn loop: an ERROR result that names it
    assert result.judgments["nameless"] == {"severity": "ERROR", "error": "KeyError: 'name'"}


def test_without_a_judge_model_judge_check_is_refused():
    with pytest.raises(RunError, match="^judge-check needs --judge-model$"):
        graded([item("one", "guilty")], None, judge_model=None)


def test_calibration_items_come_from_the_benchmarks_own_module(monkeypatch):
    calls = []
    monkeypatch.setattr(iustitia_items, "calibration_items", lambda *args: calls.append(args) or ["made"])
    manifest = {"name": "m"}
    assert calibration_items("iustitia", [SCENARIO], manifest) == ["made"]
    assert calls == [([SCENARIO], manifest)]
