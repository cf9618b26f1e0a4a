"""Faults and hostile input: nothing leaked, no unbounded work, no made-up answers, no traceback.

One test (or a few) per kind of failure: secrets echoed back, damaged journals, quadratic
patterns, oversize replies and bodies, degenerate model output, nonsense flags and files.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from auditpacks.core import redact
from auditpacks.runner.cli.main import main
from auditpacks.runner.store.stored import MAX_STORED_CHARS
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import journal_entries, results, run_file, run_here
from tests.support.stub_http import StubHTTP
from tests.support.tiny_pack import write_pack

SECRET = "sk-test-Zq81xY2secretKEY"
FAST = ("--retry-backoff", "0.01", "--timeout", "5")


def everything_written(folder: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in folder.rglob("*") if p.is_file())


def within(seconds: float, work) -> None:
    """Run ``work`` in a thread and fail if it is still busy after a generous ``seconds``."""
    done = threading.Event()
    errors: list[BaseException] = []

    def go():
        try:
            work()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            done.set()

    threading.Thread(target=go, daemon=True).start()
    assert done.wait(seconds), f"still running after {seconds} s"
    if errors:
        raise errors[0]


# -- 1. secrets --------------------------------------------------------------------------------

def test_a_key_echoed_by_a_decision_endpoint_reaches_no_file_and_no_console(tmp_path, capsys):
    redact.forget_all()
    pack = write_pack(tmp_path / "tiny.json", 4)

    def echo(method, path, headers, body):
        return 500, {"error": f"upstream refused: you sent Authorization: {headers.get('Authorization')}"}

    with StubHTTP(echo) as server:
        code = main(["run", "--pack", str(pack), "--decision-url", f"{server.url}/v1/systemone", "--target", "clef",
                     "--api-key", SECRET, "--out", str(tmp_path / "out"), "--quiet", "--batch-questions", "1"])
    assert any(h.get("Authorization") == f"Bearer {SECRET}" for _, _, h, _ in server.requests)  # it was sent
    console = capsys.readouterr()
    assert code == 3 and len(results(tmp_path / "out", "clef")) == 4  # 3: finished, with ERROR scenarios
    assert all(r["severity"] == "ERROR" for r in results(tmp_path / "out", "clef"))
    assert "[api key]" in everything_written(tmp_path / "out")
    assert SECRET not in everything_written(tmp_path / "out") + console.out + console.err


def test_credentials_in_a_base_url_are_kept_out_of_the_run_file_and_errors(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 2)
    with FakeOpenAI() as server:
        url = server.base_url.replace("http://", "http://alice:pw-Hunter2x@")
        assert run_here(pack, tmp_path / "out", url, *FAST) == 0
    console = capsys.readouterr()
    written = everything_written(tmp_path / "out") + console.out + console.err
    assert "pw-Hunter2x" not in written and "alice" not in written
    assert run_file(tmp_path / "out")["parameters"]["base_url"] == server.base_url  # stripped, not marked
    assert run_here(pack, tmp_path / "gone", "http://alice:pw-Hunter2x@127.0.0.1:9/v1", *FAST) == 2
    err = capsys.readouterr().err
    assert "cannot reach" in err and "pw-Hunter2x" not in err and len(err.strip().splitlines()) == 1


def test_keys_from_the_environment_are_blanked_out(monkeypatch):
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", "env-key-998877")
    assert redact.redact("HTTP 401: bad key env-key-998877") == "HTTP 401: bad key [api key]"
    assert redact.redact("x-api-key: abc123 and ?key=abc123&q=1") == "x-api-key: [api key] and ?key=[api key]&q=1"
    assert redact.redact("prior authorization: required; bearer bonds") == "prior authorization: required; bearer bonds"


# -- 3. a damaged journal is never discarded ---------------------------------------------------

def test_a_damaged_header_stops_the_run_and_keeps_the_journal(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 3)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "out", server.base_url) == 0
        journal = tmp_path / "out" / "m.journal.jsonl"
        damaged = b'{"fingerpr' + journal.read_bytes()[journal.read_bytes().index(b"\n"):]
        journal.write_bytes(damaged)
        server.reset_counts()
        capsys.readouterr()
        assert run_here(pack, tmp_path / "out", server.base_url) == 2
        err = capsys.readouterr().err.strip()
        assert server.chat_requests == 0 and journal.read_bytes() == damaged
        assert len(err.splitlines()) == 1 and "line 1 (the header) is damaged" in err and "--fresh" in err
        assert run_here(pack, tmp_path / "out", server.base_url, "--fresh") == 0
    assert len(journal_entries(tmp_path / "out")) == 3


# -- 4. linear time on long strings ------------------------------------------------------------

def test_a_one_megabyte_single_word_field_is_checked_and_graded_quickly():
    from auditpacks.packs.checks import check_scenario
    from auditpacks.packs.jacite.citations import find_citations

    word = "a" * 1_000_000
    for field in (word, word + "@", "a.@" * 300_000, "x@" + word):
        # the former pattern took 23 s on 100,000 characters (quadratic): 1 MB would take about 40 minutes
        within(20, lambda f=field: check_scenario({"name": "A - b", "description": f}))
    within(20, lambda: find_citations("第" + "1" * 1_000_000 + "条 Article " + "9" * 1_000_000, "full"))


# -- 5. limits ---------------------------------------------------------------------------------

def test_a_runaway_reply_is_stored_cut_and_marked(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 2)
    huge = "guilty\n" + "word " * 300_000  # 1.5 MB
    with FakeOpenAI(answer=lambda model, messages: {"content": huge}) as server:
        assert run_here(pack, tmp_path / "out", server.base_url) == 0
    for stored in (results(tmp_path / "out"), [e["result"] for e in journal_entries(tmp_path / "out")]):
        for result in stored:
            reply = [e for e in result["conversation"] if e["role"] == "assistant"][0]
            assert len(reply["content"]) < MAX_STORED_CHARS + 200
            assert reply["cut_chars"] == len(huge.strip()) - MAX_STORED_CHARS  # simpleaudit strips the reply
            assert reply["content"].endswith(f"replies are kept up to {MAX_STORED_CHARS} characters]")
    assert (tmp_path / "out" / "m.json").stat().st_size < 3 * MAX_STORED_CHARS + 100_000


# -- 6. degenerate output ----------------------------------------------------------------------

def test_an_absurd_article_number_is_an_invented_citation_and_rescore_goes_on(tmp_path, capsys):
    from auditpacks.judges.jacite.grounding import ground_reply
    from auditpacks.packs.jacite.registry import load_registry

    law = next(iter(load_registry(None).values()))
    for mode in ("full", "upstream"):
        for text in ("民法第" + "1" * 5000 + "条", "第" + "九" * 5000 + "条"):
            found = ground_reply(text, law, "1", mode=mode)
            assert found["n_cited"] == found["n_invented"] == 1, (mode, text[:5])
    row = {"id": "q1", "model": "m", "language": "ja", "law_id": law.law_id, "gold_article": "1",
           "response": "民法第" + "1" * 5000 + "条", "cited": [], "invented": [], "n_cited": 0, "n_invented": 0}
    bench = tmp_path / "benchmark.json"
    bench.write_text(json.dumps([row]), encoding="utf-8")
    assert main(["rescore", "jacite", str(bench), "--mode", "full", "--out", str(tmp_path / "r.json")]) == 0
    assert json.loads((tmp_path / "r.json").read_text())[0]["n_invented"] == 1


# -- 7. nonsense flags and files: one line, exit 2 ---------------------------------------------

@pytest.mark.parametrize("flag, value, message", [
    ("--limit", "-1", "must be at least 0"), ("--timeout", "-5", "must be above 0"),
    ("--concurrency", "0", "must be at least 1"), ("--target", "", "must not be empty"),
    ("--max-retries", "x", "must be a whole number"), ("--temperature", "nan", "finite"),
])
def test_bad_flags_are_refused_at_parse_time(tmp_path, capsys, flag, value, message):
    with pytest.raises(SystemExit) as exit_:
        main(["run", "--pack", str(tmp_path / "p.json"), flag, value, "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_serve_decision_port_out_of_range_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["serve-decision", "--port", "70000", "--upstream", "http://127.0.0.1:9/v1"])
    assert exit_.value.code == 2 and "must be at most 65535" in capsys.readouterr().err
