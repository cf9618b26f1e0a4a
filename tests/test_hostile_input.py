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
from auditpacks.runner.execution.stored import MAX_STORED_CHARS
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
    assert run_file(tmp_path / "out")["parameters"]["base_url"].startswith("http://[credentials]@127.0.0.1:")
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


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "unexpected" not in err, err
    return err


def test_a_pack_that_check_rejects_is_not_run_unless_asked(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 2)
    scenarios = json.loads(pack.read_text())
    scenarios[1]["severity"] = "apocalyptic"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(scenarios))
    with FakeOpenAI() as server:
        assert run_here(bad, tmp_path / "out", server.base_url) == 2
        assert "ERROR finding" in one_line_error(capsys) and server.chat_requests == 0
        assert not (tmp_path / "out").exists()
        assert run_here(bad, tmp_path / "out", server.base_url, "--no-check") == 0
        assert server.chat_requests == 2


@pytest.mark.parametrize("edit, expected", [
    (lambda s: s.__setitem__("metadata", [1]), "metadata"),
    (lambda s: s.__setitem__("documents", "text"), "documents"),
])
def test_a_malformed_scenario_is_one_line_even_with_no_check(tmp_path, capsys, edit, expected):
    pack = write_pack(tmp_path / "tiny.json", 2)
    scenarios = json.loads(pack.read_text())
    edit(scenarios[0])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(scenarios))
    assert run_here(bad, tmp_path / "out", "http://127.0.0.1:9/v1", "--no-check") == 2
    assert expected in one_line_error(capsys)
    assert not (tmp_path / "out").exists()  # no header-only journal


def test_a_registry_with_a_null_law_is_one_line(tmp_path, capsys):
    fixtures = Path(__file__).parent / "fixtures" / "jacite"
    for name in ("questions.json", "registry.json"):
        (tmp_path / name).write_bytes((fixtures / name).read_bytes())
    registry = json.loads((tmp_path / "registry.json").read_text())
    (tmp_path / "registry.json").write_text(json.dumps({**registry, "laws": [None, *registry["laws"]]}))
    assert main(["build", "jacite", "--source", str(tmp_path), "--out", str(tmp_path / "p.json")]) == 2
    assert "law #0 is null" in one_line_error(capsys)
    (tmp_path / "bare.json").write_text('{"laws": [null]}')
    assert main(["rescore", "jacite", str(fixtures / "benchmark.json"), "--registry", str(tmp_path / "bare.json")]) == 2
    assert "laws[0]" in one_line_error(capsys)


@pytest.mark.parametrize("every_row", [False, True])
def test_iustitia_options_given_as_a_string_is_one_line(tmp_path, capsys, every_row):
    import shutil

    source = tmp_path / "src"
    shutil.copytree(Path(__file__).parent / "fixtures" / "iustitia", source)
    tasks = next((source / "tasks").glob("*.jsonl"))
    rows = [json.loads(line) for line in tasks.read_text(encoding="utf-8").splitlines()]
    for row in rows if every_row else rows[:1]:
        row["options"] = "guilty, acquitted"
    tasks.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert main(["build", "iustitia", "--source", str(source), "--out", str(tmp_path / "p.json")]) == 2
    assert "options" in one_line_error(capsys) and not (tmp_path / "p.json").exists()


def test_a_null_line_in_an_iustitia_file_is_one_line_not_a_crash(tmp_path, capsys):
    import shutil

    source = tmp_path / "src"
    shutil.copytree(Path(__file__).parent / "fixtures" / "iustitia", source)
    units = next((source / "units").glob("*.jsonl"))
    units.write_text("null\n" + units.read_text(encoding="utf-8"), encoding="utf-8")  # crashed the Arrow reader
    assert main(["build", "iustitia", "--source", str(source), "--out", str(tmp_path / "p.json")]) == 2
    assert "line 1: a NoneType, not a JSON object" in one_line_error(capsys)


@pytest.mark.parametrize("manifest", ["[1]", "null", '"x"', '{"sha256": 5}'])
def test_a_manifest_that_is_not_an_object_is_one_line(tmp_path, capsys, manifest):
    pack = write_pack(tmp_path / "tiny.json", 2)
    (tmp_path / "tiny.manifest.json").write_text(manifest)
    assert main(["check", str(pack)]) == 2
    assert "tiny.manifest.json" in one_line_error(capsys)


def test_empty_packs_and_prediction_files_are_refused(tmp_path, capsys):
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    assert main(["check", str(empty)]) == 1
    capsys.readouterr()
    assert run_here(empty, tmp_path / "out", "http://127.0.0.1:9/v1") == 2
    assert "no scenario" in one_line_error(capsys)
    fixtures = Path(__file__).parent / "fixtures" / "icj"
    (tmp_path / "pred.jsonl").write_text("")
    assert main(["score", "icj", "--pred", str(tmp_path / "pred.jsonl"), "--test",
                 str(fixtures / "data" / "test.jsonl"), "--allow-partial", "--out", str(tmp_path / "s.json")]) == 2
    assert "no prediction" in one_line_error(capsys)
    assert not (tmp_path / "s.json").exists()


def test_an_icj_validation_that_is_not_a_status_is_refused(tmp_path, capsys):
    fixtures = Path(__file__).parent / "fixtures" / "icj"
    lines = (fixtures / "results" / "predictions.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record["validation"] = "oops"
    (tmp_path / "pred.jsonl").write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    assert main(["score", "icj", "--pred", str(tmp_path / "pred.jsonl"), "--test",
                 str(fixtures / "data" / "test.jsonl"), "--out", str(tmp_path / "s.json")]) == 2
    assert "validation" in one_line_error(capsys)


def test_a_200_reply_of_the_wrong_shape_is_that_scenario_error(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 2)

    def wrong(method, path, headers, body):
        return (200, {"object": "list", "data": []}) if method == "GET" else (200, {"choices": None, "id": 3})

    with StubHTTP(wrong) as server:
        assert run_here(pack, tmp_path / "out", server.url + "/v1", "--max-retries", "0") == 3
    assert [r["severity"] for r in results(tmp_path / "out")] == ["ERROR", "ERROR"]
    capsys.readouterr()
    for reply in ([1], {"answers": [1]}, {"answers": {"answer": "x"}}):
        with StubHTTP(lambda *a, r=reply: (200, r)) as server:
            code = main(["run", "--pack", str(pack), "--decision-url", f"{server.url}/v1/systemone", "--target", "d",
                         "--out", str(tmp_path / f"d{len(str(reply))}"), "--quiet"])
        assert code == 3, capsys.readouterr().err  # finished, every scenario an ERROR
        assert all(r["severity"] == "ERROR" for r in results(tmp_path / f"d{len(str(reply))}", "d"))


def test_an_interrupted_build_leaves_no_temporary_file(tmp_path, monkeypatch, capsys):
    from auditpacks.packs.pack import PackWriter

    def interrupt(self, scenario, **count_by):
        raise KeyboardInterrupt

    monkeypatch.setattr(PackWriter, "add", interrupt)
    assert main(["build", "jacite", "--out", str(tmp_path / "p.json")]) == 130
    assert list(tmp_path.iterdir()) == []
