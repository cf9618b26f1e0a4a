"""What the embedded model reads of its host, in process: AVX2 in ``/proc/cpuinfo``, the cores free for its
threads, the runnable count, its defaults, and the daemon thread that waits for the child's READY line."""

from __future__ import annotations

import codecs
import io
import os
from types import SimpleNamespace as NS

import pytest

from auditpacks.runner.serving import embedded
from auditpacks.runner.serving.embedded import EmbeddedModel
from tests.runner.serving.test_embedded_lifecycle import Child, Clock


def cpuinfo(flags: str):
    """``open`` that serves ``/proc/cpuinfo`` (its encoding looked up as ``open`` would) and nothing else."""
    def fake_open(path, encoding=None):
        if encoding is not None:
            codecs.lookup(encoding)
        if path != "/proc/cpuinfo":
            raise FileNotFoundError(path)
        return io.StringIO("processor : 0\n" + flags)
    return fake_open


@pytest.mark.parametrize("machine, flags, lacks", [
    ("x86_64", "flags : fpu sse avx\n", True), ("amd64", "flags : fpu avx2\n", False), ("arm64", "flags : fpu\n", False),
])
def test_an_x86_cpu_without_avx2_is_told_apart(monkeypatch, machine, flags, lacks):
    monkeypatch.setattr(embedded.platform, "machine", lambda: machine)
    monkeypatch.setattr(embedded, "open", cpuinfo(flags), raising=False)
    assert embedded._cpu_lacks_avx2() is lacks


@pytest.mark.parametrize("count, threads", [(8, 2), (1, 1), (None, 1)])
def test_without_an_affinity_mask_the_cpu_count_is_the_cores(monkeypatch, count, threads):
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: count)
    monkeypatch.setattr(embedded, "others_running", lambda: 0.0)
    assert embedded.fair_threads() == threads


def loadavg(readings: list[str]):
    def fake_open(path, encoding=None):
        assert path == "/proc/loadavg"
        return io.StringIO(readings.pop(0))
    return fake_open


def test_the_runnable_count_is_the_median_of_five_readings_a_moment_apart(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(embedded, "time", clock)
    runnable = [5, 1, 4, 2, 3]
    monkeypatch.setattr(embedded, "open", loadavg([f"0.1 0.1 0.1 {n}/300 42\n" for n in runnable]), raising=False)
    assert embedded.others_running() == 3.0 - 1   # sorted 1..5: the middle, less the reader
    assert clock.slept == [0.01] * 5


def test_without_a_runnable_count_or_a_load_nothing_else_runs(monkeypatch):
    monkeypatch.setattr(embedded, "open", lambda path, encoding=None: (_ for _ in ()).throw(OSError("no /proc")),
                        raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (_ for _ in ()).throw(OSError("no load")))
    assert embedded.others_running() == 0.0


def test_a_model_defaults_to_its_full_context_a_free_port_one_slot_and_fair_threads(monkeypatch):
    monkeypatch.setattr(embedded, "fair_threads", lambda: 2)
    model = EmbeddedModel()
    assert (model.ctx, model.threads, model.port, model.parallel, model.model_path) == (8192, 2, 0, 1, None)
    assert (model.startup_timeout, model.stop_timeout) == (60.0, 30.0) and EmbeddedModel(threads=3).threads == 3


def test_the_ready_line_is_awaited_on_a_daemon_thread(monkeypatch):
    started = []

    class Thread:
        def __init__(self, target, daemon=False):
            self.target, self.daemon = target, daemon

        def start(self):
            started.append(self.daemon)
            self.target()

    monkeypatch.setattr(embedded, "threading", NS(Thread=Thread))
    model = EmbeddedModel(threads=1)
    model._proc = Child()
    assert model._read_ready() == "http://127.0.0.1:5555" and started == [True]
