"""The two batch clients over fake SDK clients, in process: what a submit uploads, how a poll counts, which
results files are read, each provider's result lines, and the caps a read works under."""

from __future__ import annotations

import json
from contextlib import contextmanager
from types import SimpleNamespace as NS

import httpx
import pytest

from auditpacks.core.bounded import http as bounded_http
from auditpacks.runner.hosted import batch_clients
from auditpacks.runner.hosted.batch_clients import (
    MAX_RESULTS_BYTES, AnthropicBatches, BatchState, OpenAIBatches, max_results_bytes, read_results, reply_of)
from auditpacks.runner.models.reply import Reply
from auditpacks.runner.models.usage import Usage


class Recorder:
    """An SDK namespace whose methods note their calls in ``calls`` and answer from ``answers``."""

    def __init__(self, calls: list, **answers) -> None:
        self._calls, self._answers = calls, answers

    def __getattr__(self, name):
        def method(*args, **kwargs):
            self._calls.append((name, args, kwargs))
            answer = self._answers[name]
            return answer(*args) if callable(answer) else answer
        return method


def openai_client(calls: list, batch=None, files: dict[str, bytes] | None = None) -> NS:
    @contextmanager
    def content(file_id):
        calls.append(("content", (file_id,), {}))
        data = files[file_id]
        yield NS(iter_bytes=lambda: iter([data[i:i + 5] for i in range(0, len(data), 5)]))

    return NS(files=NS(create=Recorder(calls, create=NS(id="file-1")).create,
                       with_streaming_response=NS(content=content)),
              batches=Recorder(calls, create=NS(id="batch-1"), retrieve=batch))


def over(kind, base_url: str, client):
    """A ``kind`` batches client whose SDK client is ``client``."""
    batches = kind(base_url=base_url, api_key="k")
    batches.client = client
    return batches


def openai_batches(client) -> OpenAIBatches:
    return over(OpenAIBatches, "http://h/v1", client)


def test_a_submit_uploads_one_jsonl_line_per_request_and_opens_a_24h_batch():
    calls = []
    batch_id = openai_batches(openai_client(calls)).submit([("r1", {"model": "m", "q": "é"}), ("r2", {})])
    (_, _, upload), (name, _, opened) = calls
    filename, data = upload["file"]
    assert (batch_id, filename, upload["purpose"], name) == ("batch-1", "batch.jsonl", "batch", "create")
    assert data.read().decode("utf-8").split("\n") == [
        '{"custom_id": "r1", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "m", "q": "é"}}',
        '{"custom_id": "r2", "method": "POST", "url": "/v1/chat/completions", "body": {}}', ""]
    assert opened == {"input_file_id": "file-1", "endpoint": "/v1/chat/completions", "completion_window": "24h"}


@pytest.mark.parametrize("status, ended", [("completed", True), ("failed", True), ("expired", True),
                                           ("cancelled", True), ("in_progress", False), ("finalizing", False)])
def test_an_openai_poll_counts_finished_and_failed_requests(status, ended):
    counts, calls = NS(completed=3, failed=2, total=9), []
    state = openai_batches(openai_client(calls, NS(status=status, request_counts=counts))).poll("b1")
    assert state == BatchState(ended=ended, done=5, total=9, status=status) and calls == [("retrieve", ("b1",), {})]


def test_an_openai_poll_without_counts_yet_counts_none():
    state = openai_batches(openai_client([], NS(status="validating", request_counts=None))).poll("b1")
    assert state == BatchState(ended=False, done=0, total=0, status="validating")


def openai_line(cid: str, content="guilty", status=200, error=None, body=None) -> bytes:
    body = body if body is not None else {"choices": [{"message": {"content": content}, "finish_reason": "length"}],
                                          "usage": {"prompt_tokens": 10, "completion_tokens": 2,
                                                    "prompt_tokens_details": {"cached_tokens": 4}}}
    return json.dumps({"custom_id": cid, "response": {"status_code": status, "body": body}, "error": error}).encode()


def test_openai_results_read_the_output_and_error_files_and_mark_the_rest():
    calls = []
    batch = NS(status="expired", output_file_id="out-1", error_file_id="err-1")
    files = {"out-1": openai_line("r1") + b"\n", "err-1": openai_line("r2", status=500, body={}) + b"\n"}
    out = openai_batches(openai_client(calls, batch, files)).results("b1", ["r1", "r2", "r3"])
    assert [c[:2] for c in calls] == [("retrieve", ("b1",)), ("content", ("out-1",)), ("content", ("err-1",))]
    assert (out["r1"].content, out["r1"].finish_reason, out["r1"].input_tokens, out["r1"].cached_input_tokens) == \
        ("guilty", "length", 10, 4)
    assert out["r2"] == "batch request failed: HTTP 500" and out["r3"] == "no result: the batch expired"


def test_openai_results_skip_a_file_the_batch_does_not_have():
    calls = []
    batch = NS(status="completed", output_file_id="out-1", error_file_id=None)
    out = openai_batches(openai_client(calls, batch, {"out-1": openai_line("r1")})).results("b1", ["r1"])
    assert isinstance(out["r1"], Reply) and [c[1] for c in calls if c[0] == "content"] == [("out-1",)]


@pytest.mark.parametrize("line, why", [
    (openai_line("r", error={"message": "bad model"}), "batch request failed: bad model"),
    (openai_line("r", status=400, body={"error": {"message": "too long"}}), "batch request failed: too long"),
    (openai_line("r", status=400, body={"error": {"code": 1}}), "batch request failed: HTTP 400"),
    (openai_line("r", error={"message": "x" * 600}), "batch request failed: " + "x" * 500),
    (json.dumps({"custom_id": "r", "response": None, "error": None}).encode(), "batch request failed: HTTP None"),
])
def test_a_failed_openai_request_says_why(line, why):
    assert OpenAIBatches._line(json.loads(line)) == ("r", why)


def anthropic_client(calls: list, batch=None, lines: bytes = b"") -> NS:
    stream = NS(http_response=NS(iter_bytes=lambda: iter([lines])), close=lambda: calls.append(("close", (), {})))
    return NS(messages=NS(batches=Recorder(calls, create=NS(id="msgbatch-1"), retrieve=batch, results=stream)))


def anthropic_batches(client) -> AnthropicBatches:
    return over(AnthropicBatches, "http://h", client)


def test_an_anthropic_submit_sends_each_request_with_its_id():
    calls = []
    assert anthropic_batches(anthropic_client(calls)).submit([("a1", {"max_tokens": 5}), ("a2", {})]) == "msgbatch-1"
    assert calls == [("create", (), {"requests": [{"custom_id": "a1", "params": {"max_tokens": 5}},
                                                  {"custom_id": "a2", "params": {}}]})]


@pytest.mark.parametrize("status, ended", [("ended", True), ("in_progress", False), ("canceling", False)])
def test_an_anthropic_poll_counts_every_finished_request(status, ended):
    counts = NS(succeeded=4, errored=3, canceled=2, expired=1, processing=10)
    calls = []
    state = anthropic_batches(anthropic_client(calls, NS(processing_status=status, request_counts=counts))).poll("b")
    assert state == BatchState(ended=ended, done=10, total=20, status=status) and calls == [("retrieve", ("b",), {})]


def anthropic_line(cid: str, result: dict) -> bytes:
    return json.dumps({"custom_id": cid, "result": result}).encode()


def test_anthropic_results_are_read_from_the_stream_which_is_closed_after():
    calls = []
    good = {"type": "succeeded", "message": {"content": [{"type": "thinking", "thinking": "hm"},
                                                         {"type": "text", "text": "guilty "},
                                                         {"type": "text", "text": "as charged"}],
                                             "stop_reason": "end_turn", "usage": {"input_tokens": 5,
                                                                                  "output_tokens": 3}}}
    out = anthropic_batches(anthropic_client(calls, lines=anthropic_line("a1", good))).results("b", ["a1", "a2"])
    assert (out["a1"].content, out["a1"].finish_reason, out["a1"].output_tokens) == ("guilty as charged", "stop", 3)
    assert out["a2"] == "no result: the batch ended without it" and calls[-1][0] == "close"
    assert calls[0] == ("results", ("b",), {})


def test_the_anthropic_stream_is_closed_when_the_read_fails():
    calls = []
    client = anthropic_client(calls)
    client.messages.batches.results(None).http_response.iter_bytes = lambda: (_ for _ in ()).throw(OSError("reset"))
    with pytest.raises(OSError, match="reset"):
        anthropic_batches(client).results("b", ["a1"])
    assert calls[-1][0] == "close"


@pytest.mark.parametrize("result, why", [
    ({"type": "errored", "error": {"error": {"message": "y" * 600}}}, "batch request errored: " + "y" * 500),
    ({"type": "expired"}, "batch request expired"),
    ({"type": "canceled", "error": {"error": {}}}, "batch request canceled"),
])
def test_an_anthropic_request_without_a_message_says_why(result, why):
    assert AnthropicBatches._line(json.loads(anthropic_line("a", result))) == ("a", why)


def test_a_reply_keeps_cache_counts_only_when_there_are_some():
    reply = reply_of({"content": None, "finish_reason": "stop"}, Usage(input=9, output=2))
    assert (reply.content, reply.input_tokens, reply.output_tokens, reply.finish_reason) == ("", 9, 2, "stop")
    assert (reply.cached_input_tokens, reply.cache_write_tokens) == (None, None)
    counted = reply_of({"content": "x"}, Usage(input=9, cached_input=4, cache_write=3, output=2))
    assert (counted.cached_input_tokens, counted.cache_write_tokens, counted.finish_reason) == (4, 3, None)


@pytest.mark.parametrize("value, cap", [(None, 256 * 2**20), ("5000", 5000), ("1", 1), ("0", 256 * 2**20),
                                        ("-5", 256 * 2**20), ("1e6", 256 * 2**20)])
def test_the_results_file_cap_is_256_mib_unless_set_to_a_positive_integer(monkeypatch, value, cap):
    if value is None:
        monkeypatch.delenv("AUDITPACKS_MAX_BATCH_BYTES", raising=False)
    else:
        monkeypatch.setenv("AUDITPACKS_MAX_BATCH_BYTES", value)
    assert max_results_bytes() == cap and MAX_RESULTS_BYTES == 256 * 2**20


def test_the_sdks_download_a_little_over_the_results_cap(monkeypatch):
    seen = []
    monkeypatch.setattr(bounded_http, "streamed_client", lambda origin, **kw: seen.append((origin, kw)) or None)
    monkeypatch.setenv("AUDITPACKS_MAX_BATCH_BYTES", "1000")
    batch_clients.http_client("http://h/v1", 30.0)
    assert seen == [("http://h/v1", {"timeout": 30.0, "download_bytes": 1000 + 2**20})]


def read(lines: list[bytes], ids: list[str]):
    return read_results([b"\n".join(lines)], source="f", custom_ids=ids, parse=OpenAIBatches._line)


def test_blank_lines_are_skipped_and_an_unreadable_line_finds_its_id_in_the_raw_text(capsys):
    odd = b'{"custom_id": 7, "note": "r2", "x": {"custom_id": "r2"}}'
    found, note = read([b"", openai_line("r1"), b"   ", odd, b'{"custom_id": "r3", oops'], ["r1", "r2", "r3"])
    assert isinstance(found["r1"], Reply) and note == ""
    assert found["r2"].startswith("batch result unreadable: f line 4 is not a result line (")
    assert found["r3"].startswith("batch result unreadable: f line 5 is not a result line (")
    assert capsys.readouterr().err == ""


def test_a_parse_that_names_no_string_id_is_unreadable(capsys):
    found, note = read_results([b'{"a": 1}'], source="f", custom_ids=["r"], parse=lambda entry: (5, "x"))
    assert found == {} and note == ("f: 1 line(s) not read as results (line 1 is not a result line "
                                    "(TypeError: custom_id is not a string))")
    assert capsys.readouterr().err == f"auditpacks: warning: {note}\n"


def test_a_stream_over_its_deadline_ends_the_read_with_a_note_naming_the_file():
    def chunks():
        yield openai_line("r1") + b"\n"
        raise bounded_http.DeadlineExceeded("no complete response within 5 s")

    found, note = read_results(chunks(), source="f", custom_ids=["r1", "r2"], parse=OpenAIBatches._line)
    assert list(found) == ["r1"] and note == "f: no complete response within 5 s"


def test_a_reply_without_text_is_empty():
    body = {"choices": [{"message": {"content": None}, "finish_reason": "tool_calls"}], "usage": {}}
    assert OpenAIBatches._line(json.loads(openai_line("r", body=body)))[1].content == ""


def test_unreadable_lines_and_a_cut_read_name_the_results_file(monkeypatch):
    calls = []
    batch = NS(status="completed", output_file_id="out-1", error_file_id=None)
    files = {"out-1": b"[" * 20_000 + b"]" * 20_000 + b"\n" + openai_line("r2") + b"\n" * 40 + openai_line("r3")}
    monkeypatch.setenv("AUDITPACKS_MAX_BATCH_BYTES", str(len(files["out-1"]) - 100))
    out = openai_batches(openai_client(calls, batch, files)).results("b1", ["r2", "r3"])
    note = "batch b1 results file out-1: over the"
    assert out["r3"].startswith(f"no result: the batch completed; {note} ") and isinstance(out["r2"], Reply)
    assert out["r3"].endswith("; batch b1 results file out-1: 1 line(s) not read as results (line 1 is not a result "
                              "line (FormatError: batch b1 results file out-1 line 1: JSON nested too deeply to read))")


def test_an_unreadable_anthropic_line_names_the_batchs_results_file():
    out = anthropic_batches(anthropic_client([], lines=b'{"custom_id": "a1", "result": 5}')).results("b", ["a1"])
    assert out["a1"].startswith("batch result unreadable: batch b results file line 1 is not a result line (TypeError")


def test_a_parse_failure_keeps_120_characters_of_its_reason():
    def parse(entry):
        raise TypeError("y" * 300)

    found, note = read_results([b'{"custom_id": "r1"}'], source="f", custom_ids=["r1"], parse=parse)
    assert found == {"r1": f"batch result unreadable: f line 1 is not a result line (TypeError: {'y' * 120})"}


def test_an_unreadable_line_is_found_by_its_id_anywhere_in_its_json():
    line = json.dumps({"pad": "x" * 9000, "custom_id": "r2", "response": "oops"}).encode()
    found, _ = read([line], ["r2"])
    assert found["r2"].startswith("batch result unreadable: f line 1 is not a result line")


@pytest.mark.parametrize("end, found", [(8192, True), (8193, False)])
def test_in_a_line_that_is_not_json_the_id_is_looked_for_in_its_first_8_kib(end, found):
    tail = b'"custom_id": "r2"'
    line = b"{" + b"x" * (end - len(tail) - 1) + tail + b" oops"
    assert line.index(tail) + len(tail) == end
    got, _ = read([line], ["r2"])
    assert ("r2" in got) is found


def test_each_client_is_its_sdks_with_the_key_the_time_out_and_a_streamed_http_client(monkeypatch):
    made = []

    def http(base_url, timeout):
        made.append((base_url, timeout))
        return httpx.Client()

    monkeypatch.setattr(batch_clients, "http_client", http)
    openai_side = OpenAIBatches(base_url="http://o/v1", api_key="sk-o", timeout=12.0).client
    anthropic_side = AnthropicBatches(base_url="http://a", api_key="sk-a", timeout=13.0).client
    assert (str(openai_side.base_url), openai_side.api_key, openai_side.timeout) == ("http://o/v1/", "sk-o", 12.0)
    assert (str(anthropic_side.base_url), anthropic_side.api_key, anthropic_side.timeout) == ("http://a", "sk-a", 13.0)
    assert made == [("http://o/v1", 12.0), ("http://a", 13.0)]
    assert type(openai_side._client) is type(anthropic_side._client) is httpx.Client
