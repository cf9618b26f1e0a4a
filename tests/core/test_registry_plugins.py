"""The registry filled from entry points: the bundled three declared in the installed metadata, a broken plugin
left out with one line naming it and its distribution, two benchmarks of one name refused, nothing loaded at import."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

from auditpacks.core import registry
from auditpacks.core.benchmark import Benchmark
from auditpacks.core.registry import GROUP, PluginError, discover

TOY = Benchmark(title="toy sums", builder="toysums.builder")


class Entry:
    """An entry point as importlib.metadata gives it: a name, a value, its distribution and ``load()``."""

    def __init__(self, name: str, loads, dist: str = "toysums", version: str = "0.1") -> None:
        self.name, self.value, self._loads = name, f"{dist}.plugin:BENCHMARK", loads
        self.dist = SimpleNamespace(name=dist, version=version)

    def load(self):
        if isinstance(self._loads, Exception):
            raise self._loads
        return self._loads


def test_the_installed_metadata_declares_the_three_bundled_benchmarks():
    declared = {e.name: e.value for e in importlib.metadata.entry_points(group=GROUP)}
    assert declared == {"jacite": "auditpacks.judges.jacite.plugin:BENCHMARK",
                        "iustitia": "auditpacks.judges.iustitia.plugin:BENCHMARK",
                        "icj": "auditpacks.judges.icj.plugin:BENCHMARK"}
    assert list(registry.BENCHMARKS) == ["icj", "iustitia", "jacite"]  # by name
    assert registry.skipped() == []


def test_a_plugin_that_fails_to_load_is_left_out_with_one_line_naming_it():
    found, left_out = discover([Entry("broken", ModuleNotFoundError("No module named 'gone'"), "brokenbench", "2.0"),
                                Entry("toy", TOY), Entry("odd", {"title": "a dict"}, "oddbench", "1.0")])
    assert found == {"toy": TOY}
    assert left_out == [
        "benchmark plugin 'broken' (brokenbench.plugin:BENCHMARK, distribution brokenbench 2.0) not loaded: "
        "ModuleNotFoundError: No module named 'gone'",
        "benchmark plugin 'odd' (oddbench.plugin:BENCHMARK, distribution oddbench 1.0) not loaded: "
        "it names a dict, not an auditpacks Benchmark"]


def test_entries_after_one_that_is_not_a_benchmark_still_load_and_one_without_a_distribution_is_named_so():
    nameless = Entry("nameless", ValueError("bad"))
    del nameless.dist
    found, left_out = discover([Entry("odd", "text", "oddbench", "1.0"), nameless, Entry("toy", TOY)])
    assert found == {"toy": TOY}
    assert left_out[1] == ("benchmark plugin 'nameless' (toysums.plugin:BENCHMARK, an unnamed distribution) not "
                           "loaded: ValueError: bad")


def test_two_benchmarks_of_one_name_are_refused_naming_both_distributions():
    with pytest.raises(PluginError, match=r"two benchmarks named 'toy': distribution toysums 0\.1 and "
                                          r"distribution othersums 3\.1; uninstall one of them"):
        discover([Entry("toy", TOY), Entry("toy", TOY, "othersums", "3.1")])


def test_two_benchmarks_of_one_name_stop_a_command_with_one_line(monkeypatch, capsys):
    from auditpacks.runner.cli.main import main

    clash = registry._Installed(lambda: discover([Entry("toy", TOY), Entry("toy", TOY, "othersums", "3.1")])[0])
    monkeypatch.setattr(registry, "BENCHMARKS", clash)
    assert main(["list", "."]) == 2
    assert capsys.readouterr().err == ("auditpacks: error: two benchmarks named 'toy': distribution toysums 0.1 and "
                                       "distribution othersums 3.1; uninstall one of them\n")


def test_the_left_out_lines_are_said_on_stderr_and_kept(monkeypatch, capsys):
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group: [Entry("toy", TOY), Entry("broken", ImportError("boom"), "brokenbench")])
    monkeypatch.setattr(registry, "_skipped", [])
    fresh = registry._Installed(registry._installed_benchmarks)
    assert dict(fresh) == {"toy": TOY}
    line = "benchmark plugin 'broken' (brokenbench.plugin:BENCHMARK, distribution brokenbench 0.1) not loaded: " \
           "ImportError: boom"
    assert capsys.readouterr().err == f"auditpacks: warning: {line}\n"
    assert registry.skipped() == [line]


def test_a_plugin_reading_the_registry_while_it_loads_gets_a_clear_error(monkeypatch):
    reentrant = registry._Installed(lambda: None)
    monkeypatch.setattr(registry, "_filling", True)
    reentrant._fill = registry._installed_benchmarks
    with pytest.raises(PluginError, match="read the registry while it was loading"):
        len(reentrant)


def test_the_installed_group_is_read_once_at_a_time_and_a_plugin_reading_it_is_left_out(monkeypatch, capsys):
    groups = []

    def reads_the_registry():
        return len(fresh)

    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group: groups.append(group) or [Entry("reader", None), Entry("toy", TOY)])
    monkeypatch.setattr(registry, "_skipped", [])
    fresh = registry._Installed(registry._installed_benchmarks)
    loads = Entry.load
    monkeypatch.setattr(Entry, "load", lambda self: reads_the_registry() if self.name == "reader" else loads(self))
    assert dict(fresh) == {"toy": TOY} and groups == ["auditpacks.benchmarks"]
    assert registry.skipped() == [
        "benchmark plugin 'reader' (toysums.plugin:BENCHMARK, distribution toysums 0.1) not loaded: PluginError: a "
        "benchmark plugin read the registry while it was loading: its entry point must name a module that only "
        "declares its Benchmark"]
    assert dict(registry._Installed(registry._installed_benchmarks)) == {"toy": TOY}   # the next read loads again
    assert repr(fresh) == repr({"toy": TOY})
    capsys.readouterr()


PROBE = """
import json, sys
import auditpacks.core.registry
imported = sorted(m for m in sys.modules if m.startswith(("auditpacks.judges.", "auditpacks.packs.")))
from auditpacks.runner.cli.main import main
try:
    main(["--help"])
except SystemExit:
    pass
helped = sorted(m for m in sys.modules if m.startswith(("auditpacks.judges.", "auditpacks.packs.")))
print(json.dumps({"import": imported, "help": helped}))
"""


def test_importing_loads_no_plugin_and_help_only_their_declarations():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True)
    probe = json.loads(out.stdout.strip().splitlines()[-1])
    assert probe["import"] == []
    benchmark_modules = [m for m in probe["help"] if m.split(".")[2] in ("jacite", "iustitia", "icj")]
    assert benchmark_modules == [  # the declarations, and the builders' packages found (their modules are not run)
        "auditpacks.judges.icj", "auditpacks.judges.icj.plugin", "auditpacks.judges.iustitia",
        "auditpacks.judges.iustitia.plugin", "auditpacks.judges.jacite", "auditpacks.judges.jacite.plugin",
        "auditpacks.packs.icj", "auditpacks.packs.iustitia", "auditpacks.packs.jacite"]
