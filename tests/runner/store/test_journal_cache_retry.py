"""The runner's execution core at its edges: journal lines, cache addresses, retry classification and delays."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from pathlib import Path

import httpx
import pytest

from auditpacks.runner.models.cache import KEY_VERSION, CacheMiss, ResponseCache
from auditpacks.runner.store.journal import Journal, JournalError, scenario_key
from auditpacks.runner.models.retry import (
    CallFailed,
    RetryPolicy,
    call_with_retries,
    delay_for,
    describe,
    retry_after,
    status_of,
)

# -- journal ------------------------------------------------------------------------------------


def _done(path: Path, fingerprint: str = "fp") -> dict:
    """What a run resuming from ``path`` finds finished (the journal opened, read and closed again)."""
    with Journal(path, fingerprint).open() as journal:
        return {key: journal.done[key] for key in journal.done}


def test_scenario_key_is_the_sha256_of_compact_sorted_utf8_json():
    assert scenario_key({"b": "é", "a": [1, 2]}) == hashlib.sha256('{"a":[1,2],"b":"é"}'.encode()).hexdigest()


def test_a_new_journal_is_its_header_line_and_entries_are_whole_lines(tmp_path):
    path = tmp_path / "deep" / "m.journal.jsonl"
    with Journal(path, "fp").open() as journal:
        assert path.read_text() == '{"fingerprint": "fp"}\n'
        result = {"severity": "pass", "note": "民法"}
        journal.append("k1", "Ä name", result)
        result["severity"] = "changed"  # the journal keeps its own copy
        assert journal.done == {"k1": {"severity": "pass", "note": "民法"}}
    assert path.read_text(encoding="utf-8").splitlines()[1] == \
        '{"key": "k1", "name": "Ä name", "result": {"severity": "pass", "note": "民法"}}'
    assert sorted(p.name for p in path.parent.iterdir()) == [".auditpacks.lock", "m.journal.jsonl"]  # no temp file


def test_a_later_line_for_the_same_key_wins_and_fresh_forgets(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    with Journal(path, "fp").open() as journal:
        journal.append("k1", "a", {"severity": "ERROR"})
        journal.append("k2", "b", {"severity": "low"})
        journal.append("k1", "a", {"severity": "pass"})
    assert _done(path) == {"k1": {"severity": "pass"}, "k2": {"severity": "low"}}
    fresh = Journal(path, "fp").open(resume=False)
    fresh.close()
    assert fresh.done == {} and path.read_text() == '{"fingerprint": "fp"}\n'


@pytest.mark.parametrize("header", ['{"fingerprint": "other"}\n', '{"fingerprint": "other"}\n{"key": "k"}\n'])
def test_a_header_of_another_run_is_refused(tmp_path, header):
    path = tmp_path / "m.journal.jsonl"
    path.write_text(header)
    with pytest.raises(JournalError) as err:
        Journal(path, "fp").open()
    assert str(err.value) == ("m.journal.jsonl: made by a run with other settings (model, judge or parameters); "
                              "use another --out folder or --fresh")


def test_a_header_cut_short_starts_over_and_a_last_line_gets_its_newline(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    path.write_text('{"fingerpr')
    assert _done(path) == {} and path.read_text() == '{"fingerprint": "fp"}\n'
    for damaged in ('[1]\n', '"fp"\n'):  # a damaged header with no finished work behind it: started afresh
        path.write_text(damaged)
        assert _done(path) == {} and path.read_text() == '{"fingerprint": "fp"}\n'
    path.write_text('{"fingerprint": "fp"}\n{"key": "k1", "name": "a", "result": {}}')  # no final newline
    with Journal(path, "fp").open() as journal:
        journal.append("k2", "b", {})
    assert path.read_text().splitlines()[1:] == ['{"key": "k1", "name": "a", "result": {}}',
                                                 '{"key": "k2", "name": "b", "result": {}}']


def test_a_cut_last_line_is_truncated_exactly(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    kept = '{"fingerprint": "fp"}\n{"key": "k1", "name": "a", "result": {"s": 1}}\n'
    path.write_text(kept + '{"key": "k2", "name": "b", "res')
    assert _done(path) == {"k1": {"s": 1}}
    assert path.read_text() == kept
    path.write_text(kept + "\n\n")  # trailing blank lines are not entries
    assert _done(path) == {"k1": {"s": 1}}


@pytest.mark.parametrize("bad", ['{"key": "k1", "name": "a"}', '["k1"]', "{",
                                 '{"key": "k1", "name": "a", "result": 5}'])  # a result that is not an object
def test_a_bad_line_before_the_last_is_reported_by_number_and_run_again(tmp_path, bad, capsys):
    path = tmp_path / "m.journal.jsonl"
    path.write_text('{"fingerprint": "fp"}\n' + bad + '\n{"key": "k2", "name": "b", "result": {}}\n')
    assert set(Journal(path, "fp").open().done) == {"k2"}  # the rest is kept; the bad line's scenario reruns
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "m.journal.jsonl line 2" in err[0] and err[0].endswith("that scenario runs again")


def test_a_bad_last_entry_without_a_key_is_dropped(tmp_path):
    path = tmp_path / "m.journal.jsonl"
    path.write_text('{"fingerprint": "fp"}\n{"key": "k1", "name": "a", "result": {}}\n{"name": "b"}\n')
    assert _done(path) == {"k1": {}}
    assert path.read_text().count("\n") == 2


# -- cache --------------------------------------------------------------------------------------


def test_entries_live_at_their_content_address(tmp_path):
    cache = ResponseCache(tmp_path)
    address = hashlib.sha256(b'{"model":"m","prompt":"\xc3\xa9","v":1}').hexdigest()
    assert KEY_VERSION == 1
    assert cache.path_for({"prompt": "é", "model": "m"}) == tmp_path / address[:2] / f"{address}.json"
    assert cache.get({"model": "m"}) is None
    cache.put({"model": "m"}, {"content": "hi"})
    stored = json.loads(cache.path_for({"model": "m"}).read_text())
    assert stored == {"key": {"v": 1, "model": "m"}, "reply": {"content": "hi"}}
    assert cache.get({"model": "m"}) == {"content": "hi"}
    assert cache.stats() == {"hits": 1, "misses": 1, "writes": 1}


def test_keys_may_hold_values_json_cannot_and_writes_are_counted(tmp_path):
    cache = ResponseCache(tmp_path)
    address = hashlib.sha256(b'{"path":"a/b","v":1}').hexdigest()
    assert cache.path_for({"path": Path("a/b")}).stem == address  # non-JSON values by their text
    cache.put({"n": 1}, {"content": "x"})
    cache.put({"n": 2}, {"content": "y"})
    assert cache.stats()["writes"] == 2


def test_an_entry_holding_another_key_or_unreadable_is_a_miss(tmp_path, capsys):
    cache = ResponseCache(tmp_path)
    path = cache.path_for({"model": "m"})
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"key": {"v": 1, "model": "other"}, "reply": {"content": "x"}}))
    assert cache.get({"model": "m"}) is None
    path.write_text("{not json")
    assert cache.get({"model": "m"}) is None
    assert capsys.readouterr().err == f"auditpacks: cache entry {path.name} unreadable (JSONDecodeError); asking the model\n"
    assert cache.stats() == {"hits": 0, "misses": 2, "writes": 0}


def test_cache_only_turns_a_miss_into_an_error(tmp_path):
    cache = ResponseCache(tmp_path / "c", only=True)
    with pytest.raises(CacheMiss) as err:
        cache.get({"model": "m"})
    stem = cache.path_for({"model": "m"}).stem
    assert str(err.value) == f"no cached reply for this request in c/ (--cache-only; entry {stem[:12]}…)"


def test_model_facts_are_remembered_per_base_url_and_model(tmp_path):
    cache = ResponseCache(tmp_path)
    assert cache.recall_model("http://h", "m") is None
    cache.remember_model("http://h", "m", {"digest": "d", "context_length": 4096})
    assert cache.recall_model("http://h", "m") == {"base_url": "http://h", "model": "m", "digest": "d",
                                                     "context_length": 4096}
    assert cache.recall_model("http://other", "m") is None
    address = hashlib.sha256(b'{"base_url":"http://h","model":"m"}').hexdigest()[:32]
    path = tmp_path / "models" / f"{address}.json"
    assert path.exists()
    path.write_text("{")
    assert cache.recall_model("http://h", "m") is None


# -- retry --------------------------------------------------------------------------------------


class _Err(Exception):
    def __init__(self, text="boom", *, status=None, response=None, message=None):
        super().__init__(text)
        if status is not None:
            self.status_code = status
        if response is not None:
            self.response = response
        if message is not None:
            self.message = message


@pytest.mark.parametrize("exc, expected", [
    (_Err(status=404), 404),
    (_Err(response=httpx.Response(503)), 503),
    (_Err(), None),
])
def test_status_of(exc, expected):
    assert status_of(exc) == expected
    holder = Exception()
    holder.status = 418
    assert status_of(holder) == 418


@pytest.mark.parametrize("header, seconds", [("7", 7.0), ("0", 0.0), ("-1", None), ("Wed, 21 Oct 2015", None), (None, None)])
def test_retry_after_seconds_only(header, seconds):
    headers = {"retry-after": header} if header is not None else {}
    assert retry_after(_Err(response=httpx.Response(429, headers=headers))) == seconds


@pytest.mark.parametrize("exc, text, retryable", [
    (_Err("Error code: 500 - boom\nmore", status=500), "HTTP 500: boom", True),
    (_Err(status=499, message="Error code: 499 - client went away"), "HTTP 499: client went away", False),
    (_Err(status=408), "HTTP 408: boom", True),
    (_Err(status=409), "HTTP 409: boom", True),
    (_Err(status=429), "HTTP 429: boom", True),
    (_Err(status=400), "HTTP 400: boom", False),
    (json.JSONDecodeError("Expecting value", "{", 1), "malformed response body (JSONDecodeError: Expecting value: "
                                                      "line 1 column 2 (char 1))", True),
    (ConnectionResetError("reset by peer"), "connection failed: reset by peer", True),
    (httpx.ReadError(""), "connection failed: ReadError", True),
    (asyncio.TimeoutError(), "timed out", True),
    (type("ReadTimeout", (Exception,), {})(), "timed out", True),
])
def test_describe_classifies(exc, text, retryable):
    assert describe(exc) == (text, retryable)


def test_odd_statuses_and_sdk_error_names():
    assert status_of(_Err(response=type("R", (), {"status_code": "500"})())) is None
    invalid = type("APIResponseValidationError", (Exception,), {})("bad body")
    assert describe(invalid) == ("malformed response body (APIResponseValidationError: bad body)", True)
    failed = CallFailed(["a", "b"], retryable=True)
    assert failed.attempts == ["a", "b"]


def test_a_connection_error_raised_while_handling_another_names_it():
    try:
        try:
            raise TimeoutError("slow")
        except TimeoutError:
            raise ConnectionError("gone")
    except ConnectionError as exc:
        assert describe(exc) == ("connection failed: gone (TimeoutError)", True)


def test_describe_names_the_cause_of_a_connection_error():
    try:
        try:
            raise OSError("refused")
        except OSError as cause:
            raise ConnectionError("cannot connect") from cause
    except ConnectionError as exc:
        assert describe(exc) == ("connection failed: cannot connect (OSError)", True)
    assert describe(_Err("x" * 400 + "\nsecond", status=500))[0] == "HTTP 500: " + "x" * 300


def test_delays_double_up_to_the_cap_with_jitter_and_retry_after_is_capped():
    policy = RetryPolicy(backoff=1.0, max_delay=5.0, retry_after_cap=10.0)
    plain = _Err()
    rolls = [random.Random(3).random() for _ in range(1)]
    assert delay_for(0, policy, plain, random.Random(3)) == pytest.approx(1.0 * (0.5 + rolls[0] / 2))
    for attempt, base in [(1, 2.0), (2, 4.0), (3, 5.0), (6, 5.0)]:
        rng = random.Random(attempt)
        expected = base * (0.5 + random.Random(attempt).random() / 2)
        assert delay_for(attempt, policy, plain, rng) == pytest.approx(expected)
    hinted = _Err(response=httpx.Response(429, headers={"retry-after": "30"}))
    assert delay_for(0, policy, hinted, random.Random(0)) == 10.0


def test_call_failed_messages():
    assert str(CallFailed(["HTTP 500: a"], retryable=True)) == "gave up after 1 attempt: HTTP 500: a"
    assert str(CallFailed(["a", "b"], retryable=True)) == "gave up after 2 attempts: a; b"
    assert str(CallFailed(["HTTP 401: no"], retryable=False)) == "HTTP 401: no (not retried)"
    assert str(CallFailed(["a", "b", "c"], retryable=False)) == "c (not retried) (after 2 retried failure(s): a; b)"
    assert CallFailed(["a"], retryable=True).retryable is True and CallFailed(["a"], retryable=False).retryable is False


def test_retries_stop_at_the_limit_scrub_the_text_and_use_the_default_policy():
    assert RetryPolicy() == RetryPolicy(max_retries=2, backoff=0.5, max_delay=30.0, retry_after_cap=60.0, timeout=600.0)
    calls, sleeps = [], []

    async def attempt():
        calls.append(1)
        raise _Err("key sk-123 refused", status=503)

    async def sleep(seconds):
        sleeps.append(seconds)

    async def go():
        with pytest.raises(CallFailed) as err:
            await call_with_retries(attempt, RetryPolicy(max_retries=2, backoff=0.0, timeout=None),
                                    scrub=lambda t: t.replace("sk-123", "***"), sleep=sleep)
        return str(err.value)

    text = asyncio.run(go())
    assert len(calls) == 3 and sleeps == [0.0, 0.0]
    assert text == "gave up after 3 attempts: " + "; ".join(["HTTP 503: key *** refused"] * 3)
