"""``auditpacks serve-decision`` in process, on a fake server and a fake embedded model: its options and
defaults, the upstream and model it serves, the embedded model started and always stopped, and exit 2."""

from __future__ import annotations

import argparse
import io
import sys

import pytest

from auditpacks.core.defaults import MAX_QUESTIONS
from auditpacks.runner.serving import embedded
from auditpacks.runner.systemone import serve_decision
from auditpacks.runner.systemone.decision_upstream import UPSTREAM_TIMEOUT_S


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    serve_decision.add_arguments(parser)
    return parser.parse_args(list(argv))


HELP = {
    "--upstream": ("URL", "OpenAI-compatible base URL (http://HOST:PORT/v1); default: start the embedded model"),
    "--model": ("NAME", "model name sent upstream and reported (default: smollm2 embedded, else 'local')"),
    "--port": (None, "port on 127.0.0.1 (default 11435; 0 picks a free one)"),
    "--max-questions": (None, "questions accepted per call (default 64)"),
    "--max-body-bytes": (None, "largest request body accepted; larger ones get 413 (default 8388608)"),
    "--upstream-timeout": (None, "seconds per upstream call (default 300)"),
    "--parallel": (None, "requests asking the upstream at once (default 4; 1 with the embedded model, which has one "
                         "slot)"),
}


def test_each_option_has_its_placeholder_and_help():
    parser = argparse.ArgumentParser()
    serve_decision.add_arguments(parser)
    assert {a.option_strings[0]: (a.metavar, a.help) for a in parser._actions if a.option_strings[0] in HELP} == HELP


def test_the_options_default_to_the_documented_values():
    assert vars(parse()) == {"upstream": None, "model": None, "port": 11435, "max_questions": MAX_QUESTIONS,
                             "max_body_bytes": 8 * 2**20, "upstream_timeout": UPSTREAM_TIMEOUT_S, "parallel": None}
    given = parse("--upstream", "http://h/v1", "--model", "m", "--port", "0", "--max-questions", "3",
                  "--max-body-bytes", "100", "--upstream-timeout", "2.5", "--parallel", "2")
    assert vars(given) == {"upstream": "http://h/v1", "model": "m", "port": 0, "max_questions": 3,
                           "max_body_bytes": 100, "upstream_timeout": 2.5, "parallel": 2}


def test_the_smallest_limits_are_accepted():
    given = parse("--max-questions", "1", "--max-body-bytes", "1", "--parallel", "1", "--upstream-timeout", "0.5")
    assert (given.max_questions, given.max_body_bytes, given.parallel, given.upstream_timeout) == (1, 1, 1, 0.5)


@pytest.mark.parametrize("argv", [["--max-questions", "0"], ["--parallel", "0"], ["--upstream-timeout", "0"],
                                  ["--max-body-bytes", "0"], ["--port", "70000"]])
def test_options_out_of_range_are_refused(argv, capsys):
    with pytest.raises(SystemExit):
        parse(*argv)


class FakeServer:
    """The decision server: what it was made with, and a URL."""

    made: list = []

    def __init__(self, upstream, **options) -> None:
        FakeServer.made.append((upstream, options))
        self.url = "http://127.0.0.1:4321"
        if upstream == "http://taken/v1":
            raise OSError("address already in use")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


class FakeEmbedded:
    """The embedded model: started, stopped, or failing to start."""

    model, base_url, fail, events = "smollm2", "http://127.0.0.1:5555/v1", False, []

    def start(self):
        FakeEmbedded.events.append("start")
        if FakeEmbedded.fail:
            raise embedded.EmbeddedModelError("the server engine xllamacpp is not installed")

    def stop(self):
        FakeEmbedded.events.append("stop")


@pytest.fixture(autouse=True)
def fakes(monkeypatch):
    FakeServer.made, FakeEmbedded.events, FakeEmbedded.fail = [], [], False
    signals = []
    monkeypatch.setattr(serve_decision, "DecisionServer", FakeServer)
    monkeypatch.setattr(embedded, "EmbeddedModel", FakeEmbedded)
    monkeypatch.setattr(serve_decision.signal, "signal", lambda number, handler: signals.append((number, handler)))
    monkeypatch.setattr(serve_decision.threading, "Event", Stop)
    return signals


class Stop:
    """The stop event: waiting returns at once (as after a signal); each set is noted."""

    sets: list = []

    def wait(self):
        return None

    def set(self):
        Stop.sets.append(self)


def test_an_upstream_is_served_as_given_with_four_requests_at_once(capsys, fakes):
    assert serve_decision.main(parse("--upstream", "http://h/v1", "--port", "0", "--max-questions", "3",
                                     "--max-body-bytes", "100", "--upstream-timeout", "2.5")) == 0
    assert FakeServer.made == [("http://h/v1", {"model": "local", "port": 0, "max_questions": 3, "timeout": 2.5,
                                                "max_body_bytes": 100, "parallel": 4})]
    assert capsys.readouterr().out == ("serving System One at http://127.0.0.1:4321/v1/systemone (upstream "
                                       "http://h/v1, model local)\n")
    assert FakeEmbedded.events == [] and [number for number, _ in fakes] == [serve_decision.signal.SIGINT,
                                                                             serve_decision.signal.SIGTERM]


def test_without_an_upstream_the_embedded_model_is_served_one_request_at_a_time_and_stopped(capsys):
    assert serve_decision.main(parse()) == 0
    (upstream, options), = FakeServer.made
    assert (upstream, options["model"], options["parallel"], options["port"]) == \
        ("http://127.0.0.1:5555/v1", "smollm2", 1, 11435)
    assert FakeEmbedded.events == ["start", "stop"]


def test_a_given_model_and_parallel_are_kept():
    serve_decision.main(parse("--model", "m", "--parallel", "3"))
    assert (FakeServer.made[0][1]["model"], FakeServer.made[0][1]["parallel"]) == ("m", 3)


def test_no_embedded_model_is_exit_2_in_one_line(capsys):
    FakeEmbedded.fail = True
    assert serve_decision.main(parse()) == 2
    assert capsys.readouterr().err == ("auditpacks serve-decision: error: the server engine xllamacpp is not "
                                       "installed\n")
    assert FakeEmbedded.events == ["start", "stop"] and FakeServer.made == []


def test_a_port_in_use_is_exit_2(capsys):
    assert serve_decision.main(parse("--upstream", "http://taken/v1")) == 2
    assert capsys.readouterr().err == "auditpacks serve-decision: error: address already in use\n"


def test_a_signal_stops_the_server(fakes):
    serve_decision.main(parse("--upstream", "http://h/v1"))
    Stop.sets = []
    for _, handler in fakes:
        handler(15, None)
    assert len(Stop.sets) == 2 and Stop.sets[0] is Stop.sets[1]   # either signal sets the one stop event


class Terminal(io.StringIO):
    """Standard output: each flush is counted."""

    flushes = 0

    def flush(self):
        self.flushes += 1
        super().flush()


def test_the_serving_line_is_flushed_at_once_for_a_parent_reading_a_pipe(monkeypatch):
    monkeypatch.setattr(sys, "stdout", out := Terminal())
    serve_decision.main(parse("--upstream", "http://h/v1"))
    assert out.getvalue().startswith("serving System One at ") and out.flushes >= 1
