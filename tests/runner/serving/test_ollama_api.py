"""The Ollama-API endpoint: request translation, routes against a canned upstream, and the real
``ollama`` client against the embedded model (shape only, never the model's correctness)."""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler

import pytest

from auditpacks.core.io import sha256_file
from auditpacks.runner.serving.embedded import find_model_path
from auditpacks.runner.serving.loopback import LoopbackServer
from tests.support.ollama_api import OllamaAPI, final_fields, ollama_logprobs, ollama_messages, openai_request

SCHEMA = {"type": "object", "properties": {"choice": {"type": "string", "enum": ["contract", "poem", "recipe"]}},
          "required": ["choice"]}
LOGPROBS = {"content": [{"token": "A", "logprob": -0.1, "bytes": [65],
                         "top_logprobs": [{"token": "A", "logprob": -0.1, "bytes": [65]},
                                          {"token": "B", "logprob": -2.3, "bytes": [66]}]}]}


# -- translation (pure functions) ----------------------------------------------------------------

def test_options_map_to_openai_keys():
    body = {"model": "m", "stream": False, "options": {"num_predict": 7, "num_ctx": 2048, "temperature": 0,
                                                       "seed": 1, "stop": ["\n"], "top_k": 5, "mirostat": 2}}
    out = openai_request(body, [{"role": "user", "content": "hi"}])
    assert out == {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": False, "max_tokens": 7,
                   "temperature": 0, "seed": 1, "stop": ["\n"], "top_k": 5}


def test_streaming_is_the_default_and_asks_for_usage():
    out = openai_request({}, [])
    assert out["stream"] is True and out["stream_options"] == {"include_usage": True}


def test_format_and_logprobs_translate():
    assert openai_request({"format": "json"}, [])["response_format"] == {"type": "json_object"}
    out = openai_request({"format": SCHEMA, "logprobs": True, "top_logprobs": 3}, [])
    assert out["response_format"] == {"type": "json_schema", "json_schema": {"name": "out", "schema": SCHEMA}}
    assert (out["logprobs"], out["top_logprobs"]) == (True, 3)


def test_openai_logprobs_become_ollama_logprobs():
    converted = ollama_logprobs({"logprobs": LOGPROBS})
    assert converted == [{"token": "A", "logprob": -0.1, "bytes": [65],
                          "top_logprobs": [{"token": "A", "logprob": -0.1, "bytes": [65]},
                                           {"token": "B", "logprob": -2.3, "bytes": [66]}]}]
    assert ollama_logprobs({}) == []


def test_generate_builds_system_and_user_messages():
    assert ollama_messages({"system": "S", "prompt": "P"}, chat=False) == [
        {"role": "system", "content": "S"}, {"role": "user", "content": "P"}]
    assert ollama_messages({"messages": [{"role": "user", "content": "x", "images": []}]}, chat=True) == [
        {"role": "user", "content": "x"}]


def test_final_fields_default_to_stop_and_zero_counts():
    fields = final_fields(None, None, None, started=0.0)
    assert fields["done"] is True and fields["done_reason"] == "stop"
    assert fields["prompt_eval_count"] == 0 and fields["eval_count"] == 0 and fields["total_duration"] > 0


# -- routes against a canned upstream -----------------------------------------------------------

class _CannedUpstream(BaseHTTPRequestHandler):
    """Just enough of llama-server: /props, /v1/models and chat completions ("Hi!" or an error)."""

    def log_message(self, *args):
        pass

    def _json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/props":
            return self._json(200, {"default_generation_settings": {"n_ctx": 4096}, "chat_template": "{{ x }}"})
        self._json(200, {"data": [{"id": "m", "meta": {"n_params": 134515008, "size": 1000, "ftype": "Q4_1"}}]})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if body["messages"][-1]["content"] == "fail":
            return self._json(503, {"error": {"code": 503, "message": "Loading model"}})
        usage = {"prompt_tokens": 3, "completion_tokens": 2}
        if not body["stream"]:
            return self._json(200, {"choices": [{"message": {"content": "Hi!"}, "finish_reason": "stop",
                                                 "logprobs": LOGPROBS}], "usage": usage})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for chunk in ({"choices": [{"delta": {"content": "Hi"}, "logprobs": LOGPROBS}]},
                      {"choices": [{"delta": {"content": "!"}, "finish_reason": "length"}]},
                      {"choices": [], "usage": usage}):
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")


@pytest.fixture(scope="module")
def canned_api():
    with LoopbackServer(_CannedUpstream) as upstream, \
            OllamaAPI(upstream.url, model_name="m", digest_text="canned") as api:
        yield api


def _call(api, path, body=None, method=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(api.url + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read().decode()


def test_root_version_and_unknown_routes(canned_api):
    assert _call(canned_api, "/")[::2] == (200, "Ollama is running")
    assert _call(canned_api, "/", method="HEAD")[::2] == (200, "")
    assert json.loads(_call(canned_api, "/api/version")[2])["version"]
    assert _call(canned_api, "/api/pull", {"model": "m"})[::2] == (404, '{"error": "not found"}')
    assert _call(canned_api, "/api/nope")[0] == 404


def test_tags_ps_and_show_describe_the_model(canned_api):
    digest = hashlib.sha256(b"canned").hexdigest()
    (tag,) = json.loads(_call(canned_api, "/api/tags")[2])["models"]
    assert (tag["name"], tag["digest"], tag["size"]) == ("m", digest, 1000)
    assert tag["details"]["parameter_size"] == "135M" and tag["details"]["quantization_level"] == "Q4_1"
    assert json.loads(_call(canned_api, "/api/ps")[2])["models"][0]["context_length"] == 4096
    show = json.loads(_call(canned_api, "/api/show", {"model": "m"})[2])
    assert show["model_info"]["llama.context_length"] == 4096 and show["template"] == "{{ x }}"
    assert digest in show["modelfile"]


def test_chat_non_streaming_reply_shape(canned_api):
    status, _, text = _call(canned_api, "/api/chat", {"model": "m", "stream": False, "logprobs": True,
                                                      "messages": [{"role": "user", "content": "hello"}]})
    reply = json.loads(text)
    assert status == 200 and reply["message"] == {"role": "assistant", "content": "Hi!"}
    assert (reply["done"], reply["done_reason"], reply["prompt_eval_count"], reply["eval_count"]) == (True, "stop", 3, 2)
    assert reply["logprobs"][0]["top_logprobs"][1]["token"] == "B"


def test_generate_streams_ndjson_lines(canned_api):
    status, ctype, text = _call(canned_api, "/api/generate", {"model": "m", "prompt": "hello"})
    lines = [json.loads(line) for line in text.splitlines()]
    assert status == 200 and ctype == "application/x-ndjson"
    assert [line["response"] for line in lines] == ["Hi", "!", ""]
    assert [line["done"] for line in lines] == [False, False, True]
    assert lines[-1]["done_reason"] == "length" and lines[-1]["eval_count"] == 2


def test_num_ctx_is_recorded_and_checked(canned_api):
    canned_api.requested_num_ctx.clear()
    ok = _call(canned_api, "/api/chat", {"stream": False, "options": {"num_ctx": 1024},
                                         "messages": [{"role": "user", "content": "x"}]})
    too_big = _call(canned_api, "/api/chat", {"stream": False, "options": {"num_ctx": 8192},
                                              "messages": [{"role": "user", "content": "x"}]})
    assert ok[0] == 200 and too_big[0] == 400 and "4096" in json.loads(too_big[2])["error"]
    assert canned_api.requested_num_ctx == [1024, 8192]
    assert canned_api.requests[-1]["options"] == {"num_ctx": 8192}


def test_upstream_errors_keep_their_status(canned_api):
    status, _, text = _call(canned_api, "/api/chat", {"stream": False, "messages": [{"role": "user", "content": "fail"}]})
    assert status == 503 and "Loading model" in json.loads(text)["error"]


def test_bad_bodies_and_empty_requests(canned_api):
    req = urllib.request.Request(canned_api.url + "/api/chat", data=b"{not json", method="POST")
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(req, timeout=30)
    assert exc.value.code == 400
    reply = json.loads(_call(canned_api, "/api/generate", {"model": "m"})[2])  # Ollama's "load the model" call
    assert reply["done"] is True and reply["response"] == ""


def test_unreachable_upstream_is_a_502():
    with OllamaAPI("http://127.0.0.1:9", upstream_timeout=5) as api:
        assert _call(api, "/api/tags")[0] == 502


# -- the real ollama client against the embedded model ------------------------------------------

@pytest.fixture(scope="module")
def ollama_client(ollama_endpoint):
    import ollama

    return ollama.Client(host=ollama_endpoint.url, timeout=120)


def test_list_and_show_report_context_length_and_digest(ollama_client):
    digest = sha256_file(find_model_path())
    (model,) = ollama_client.list().models
    assert model.model == "smollm2" and model.digest == digest and model.details.format == "gguf"
    shown = ollama_client.show("smollm2")
    assert shown.modelinfo["llama.context_length"] == 8192
    assert digest in shown.modelfile and shown.template


def test_chat_through_the_adapter_records_num_ctx(ollama_client, ollama_endpoint):
    reply = ollama_client.chat(model="smollm2", messages=[{"role": "user", "content": "What is a contract?"}],
                               options={"temperature": 0, "num_predict": 12, "num_ctx": 2048})
    assert reply.message.role == "assistant" and reply.message.content.strip()
    assert reply.done and 0 < reply.eval_count <= 12
    assert ollama_endpoint.requested_num_ctx[-1] == 2048


def test_streamed_chat_ends_with_a_done_line(ollama_client):
    parts = list(ollama_client.chat(model="smollm2", messages=[{"role": "user", "content": "Say hello."}],
                                    stream=True, options={"temperature": 0, "num_predict": 8}))
    assert len(parts) >= 2 and not parts[0].done and parts[-1].done
    assert "".join(p.message.content for p in parts).strip()


def test_schema_format_and_logprobs_through_the_adapter(ollama_client):
    reply = ollama_client.chat(model="smollm2", format=SCHEMA, options={"temperature": 0, "num_predict": 30},
                               messages=[{"role": "user", "content": "Which is a legal document? contract, poem, recipe"}])
    assert json.loads(reply.message.content)["choice"] in {"contract", "poem", "recipe"}
    reply = ollama_client.chat(model="smollm2", messages=[{"role": "user", "content": "Hi"}], logprobs=True,
                               top_logprobs=3, options={"temperature": 0, "num_predict": 2})
    assert len(reply.logprobs) == reply.eval_count and len(reply.logprobs[0].top_logprobs) == 3


def test_context_limits_are_enforced(ollama_client):
    import ollama

    with pytest.raises(ollama.ResponseError) as asked_too_much:
        ollama_client.chat(model="smollm2", messages=[{"role": "user", "content": "x"}], options={"num_ctx": 9000})
    with pytest.raises(ollama.ResponseError) as prompt_too_long:  # rejected upstream before any prefill
        ollama_client.chat(model="smollm2", messages=[{"role": "user", "content": "word " * 9000}])
    assert asked_too_much.value.status_code == 400 and prompt_too_long.value.status_code == 400
    assert "context" in str(prompt_too_long.value)
