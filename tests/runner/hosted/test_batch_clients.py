"""A batch's results file read line by line: unreadable lines are recorded against their requests, never the batch."""

from __future__ import annotations

import json

from auditpacks.runner.models.reply import Reply
from auditpacks.runner.hosted.batch_clients import AnthropicBatches, OpenAIBatches, completed, read_results


def openai_line(cid: str, content="guilty") -> bytes:
    body = {"choices": [{"message": {"content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2}}
    return json.dumps({"custom_id": cid, "response": {"status_code": 200, "body": body}, "error": None}).encode()


def read(raw: bytes, ids, parse=OpenAIBatches._line):
    found, note = read_results([raw[i:i + 7] for i in range(0, len(raw), 7)], source="batch b1 results file",
                               custom_ids=ids, parse=parse)
    return completed(found, ids, "the batch completed", [note])


def test_good_lines_become_replies_and_other_requests_ids_are_ignored():
    out = read(openai_line("r1") + b"\n" + openai_line("stranger") + b"\n", ["r1", "r2"])
    assert isinstance(out["r1"], Reply) and out["r1"].content == "guilty" and out["r1"].input_tokens == 10
    assert out["r2"] == "no result: the batch completed" and "stranger" not in out


def test_a_line_that_is_not_a_result_is_recorded_against_the_request_it_names():
    bad = json.dumps({"custom_id": "r2", "response": "oops"}).encode()
    out = read(openai_line("r1") + b"\n" + bad + b"\n" + b"{not json\n", ["r1", "r2", "r3"])
    assert isinstance(out["r1"], Reply)
    assert out["r2"].startswith("batch result unreadable: batch b1 results file line 2 is not a result line")
    assert out["r3"].startswith("no result: the batch completed; batch b1 results file: 1 line(s) not read")
    assert "line 3 is not a result line" in out["r3"]


def test_a_reply_whose_content_is_not_text_is_unreadable_not_stored():
    out = read(openai_line("r1", content={"x": 1}) + b"\n", ["r1"])
    assert out["r1"].startswith("batch result unreadable") and "content is dict" in out["r1"]


def test_a_line_over_the_cap_is_found_by_the_id_at_its_start(monkeypatch):
    monkeypatch.setenv("AUDITPACKS_MAX_REPLY_BYTES", "1000")
    out = read(openai_line("r1", content="x" * 5000) + b"\n" + openai_line("r2") + b"\n", ["r1", "r2"])
    assert out["r1"] == "batch result unreadable: batch b1 results file line 1 is over the 1000 bytes cap on a line"
    assert isinstance(out["r2"], Reply)


def test_the_file_cap_ends_the_read_and_names_itself_for_every_request_left(monkeypatch):
    monkeypatch.setenv("AUDITPACKS_MAX_BATCH_BYTES", "2000")
    line = openai_line("r1") + b"\n"
    out = read(line * 100, ["r1", "r2"])
    assert isinstance(out["r1"], Reply)
    assert out["r2"] == ("no result: the batch completed; batch b1 results file: over the 2000 bytes cap "
                         "(AUDITPACKS_MAX_BATCH_BYTES); the rest was not read")


def test_anthropic_lines_are_read_as_plain_json():
    good = {"custom_id": "a1", "result": {"type": "succeeded", "message": {
        "content": [{"type": "text", "text": "acquitted"}], "stop_reason": "max_tokens",
        "usage": {"input_tokens": 5, "cache_read_input_tokens": 100, "output_tokens": 1}}}}
    failed = {"custom_id": "a2", "result": {"type": "errored", "error": {"error": {"message": "overloaded"}}}}
    out = read(b"\n".join(json.dumps(x).encode() for x in (good, failed)), ["a1", "a2"], AnthropicBatches._line)
    assert out["a1"].content == "acquitted" and out["a1"].finish_reason == "length"
    assert (out["a1"].input_tokens, out["a1"].cached_input_tokens) == (105, 100)
    assert out["a2"] == "batch request errored: overloaded"
