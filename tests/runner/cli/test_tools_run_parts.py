"""``auditpacks tools BENCHMARK run`` in process: its arguments, its refusals and what it hands the tool loop,
the progress printer and the run record, on fakes of each."""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.core.errors import UserError
from auditpacks.runner.cli import tools_run

BASE = ["--pack", "p.json", "--condition", "Parametric", "--base-url", "http://h/v1", "--target", "scripted"]


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="auditpacks tools icj run")
    tools_run.add_run_arguments(made)
    return made


def test_the_arguments_default_to_eight_steps_resuming_and_caching():
    assert vars(parser().parse_args([*BASE, "--out", "o"])) == {
        "pack": Path("p.json"), "condition": "Parametric", "base_url": "http://h/v1", "embedded": False,
        "target": "scripted", "api_key_env": None, "max_steps": 8, "max_tokens": None, "limit": None,
        "out": Path("o"), "fresh": False, "embeddings_url": None, "embeddings_model": None,
        "no_response_cache": False}
    args = parser().parse_args(["--pack", "p.json", "--condition", "c", "--embedded", "--out", "o", "--max-steps", "3",
                                "--max-tokens", "50", "--limit", "2", "--fresh", "--no-response-cache"])
    assert (args.embedded, args.max_steps, args.max_tokens, args.limit, args.fresh, args.no_response_cache) == \
        (True, 3, 50, 2, True, True)


@pytest.mark.parametrize("argv", [
    ["--condition", "c", "--embedded", "--out", "o"], ["--pack", "p", "--embedded", "--out", "o"],
    ["--pack", "p", "--condition", "c", "--out", "o"], ["--pack", "p", "--condition", "c", "--embedded"],
    ["--pack", "p", "--condition", "c", "--embedded", "--base-url", "u", "--out", "o"],
])
def test_pack_condition_out_and_one_endpoint_are_required(argv, capsys):
    with pytest.raises(SystemExit):
        parser().parse_args(argv)


@pytest.mark.parametrize("shown", [
    "--pack PACK a pack of this benchmark (auditpacks build)",
    "--condition CONDITION the tool condition (the plugin's names; see its docs)",
    "--base-url BASE_URL OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1",
    "--embedded the embedded model (plumbing checks only)",
    "--target TARGET model name (with --base-url)",
    "--api-key-env API_KEY_ENV environment variable holding the API key",
    "--max-steps MAX_STEPS model calls that may ask for tools (default 8)",
    "--max-tokens MAX_TOKENS output-token cap per model call (default: the pack's run settings, else 1024)",
    "--limit LIMIT first N scenarios only",
    "--out OUT folder for results, traces, run record and cache",
    "--fresh start over instead of resuming the folder's journal",
    "--embeddings-url EMBEDDINGS_URL OpenAI-compatible embeddings endpoint for tools that search by vector "
    "(the model that made the copy's vectors)",
    "--embeddings-model EMBEDDINGS_MODEL embedding model name (with --embeddings-url)",
    "--no-response-cache ask the model every step again instead of replaying responses/ in --out",
])
def test_the_help_explains_each_argument(shown):
    assert shown in " ".join(parser().format_help().split())


class Fakes:
    """Each part ``run`` calls, recording what it was given."""

    def __init__(self, monkeypatch):
        self.seen: dict = {"events": []}
        self.pack = SimpleNamespace(scenarios=["s1", "s2", "s3"], manifest={"run": {"max_tokens": 300}},
                                    path=Path("/packs/icj.json"), sha256="abc")
        self.counts = {"scenarios": 2, "resumed": 1, "tool_calls": 4, "leaks_refused": 1, "errors": 0}
        self.setup = SimpleNamespace(final_nudge="answer now", info={"search": "bm25"}, judge="citations",
                                     condition=SimpleNamespace(name="Parametric"))
        self.plugin = SimpleNamespace(setup=lambda args, pack: self.note("setup", args, pack) or self.setup)
        fakes = self
        ticks = iter([100.0, 102.5])

        class Loop:
            def __init__(self, model, **kwargs):
                self.model = model
                fakes.seen["loop"] = kwargs

            def close(self):
                fakes.seen["events"].append("closed")

        class Progress:
            def __init__(self, total, *, label):
                fakes.seen["progress"] = (total, label)
                self.update = "progress.update"

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                fakes.seen["events"].append("progress done")

            def start(self, plan):
                fakes.seen["events"].append(("started", plan))

        class Embedded:
            model = "embedded-model"

            def __enter__(self):
                self.base_url = "http://127.0.0.1:9/v1"
                return self

            def __exit__(self, *exc):
                fakes.seen["events"].append("server stopped")

        class Record:
            def save(self, path):
                fakes.seen["saved"] = path

        def record(pack, scenarios, results, **kwargs):
            self.seen["record"] = (pack, scenarios, results, kwargs)
            return Record()

        def run_with_tools(scenarios, loop, setup, **kwargs):
            self.seen["run"] = (scenarios, loop, setup, kwargs)
            return self.counts, ["result"]

        parts = {"auditpacks.packs.pack.load_pack": lambda path: self.note("pack", path) or self.pack,
                 "auditpacks.runner.display.progress.ProgressPrinter": Progress,
                 "auditpacks.runner.tools.tool_record.tool_run_record": record,
                 "auditpacks.runner.tools.tool_run.run_with_tools": run_with_tools,
                 "auditpacks.runner.tools.embeddings.endpoint_encoder":
                     lambda url, model, *, api_key: ("encoder", url, model, api_key),
                 "auditpacks.runner.tools.tool_loop.ToolLoop": Loop,
                 "auditpacks.runner.tools.tool_loop.endpoint_model":
                     lambda url, model, *, api_key, cache: SimpleNamespace(
                         endpoint=(url, model, api_key, cache), counts={"requests": 7, "cache_hits": 2}),
                 "auditpacks.runner.serving.embedded.EmbeddedModel": Embedded}
        for target, fake in parts.items():
            monkeypatch.setattr(target, fake)
        monkeypatch.setattr(tools_run, "time", SimpleNamespace(monotonic=lambda: next(ticks)))

    def note(self, key, *value):
        self.seen[key] = value


@pytest.fixture
def fakes(monkeypatch):
    return Fakes(monkeypatch)


def run(fakes, tmp_path, *argv):
    args = parser().parse_args([*argv, "--out", str(tmp_path)])
    return tools_run.run(args, fakes.plugin), args


@pytest.mark.parametrize("argv, message", [
    ([*BASE, "--max-steps", "-1"], "--max-steps -1: must be 0 or more"),
    (BASE[:-2], "--target MODEL is needed with --base-url"),
    ([*BASE, "--embeddings-url", "http://e/v1"], "--embeddings-url and --embeddings-model go together"),
    ([*BASE, "--embeddings-model", "words"], "--embeddings-url and --embeddings-model go together"),
])
def test_bad_arguments_are_refused_before_the_pack_is_read(fakes, tmp_path, argv, message):
    with pytest.raises(UserError) as refused:
        run(fakes, tmp_path, *argv)
    assert str(refused.value) == message and "pack" not in fakes.seen


def test_a_run_hands_each_part_its_settings_and_prints_what_it_did(fakes, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TOOLS_KEY", "sekrit")
    code, args = run(fakes, tmp_path, *BASE, "--api-key-env", "TOOLS_KEY", "--embeddings-url", "http://e/v1",
                     "--embeddings-model", "words", "--limit", "2", "--fresh", "--max-steps", "0")
    assert code == 0
    assert args.encode == ("encoder", "http://e/v1", "words", "sekrit")
    assert fakes.seen["pack"] == (Path("p.json"),) and fakes.seen["setup"] == (args, fakes.pack)
    loop = fakes.seen["run"][1]
    assert loop.model.endpoint == ("http://h/v1", "scripted", "sekrit", tmp_path / "responses")
    assert fakes.seen["loop"] == {"max_steps": 0, "max_tokens": 300, "final_nudge": "answer now"}
    assert fakes.seen["progress"] == (2, "Parametric")
    assert fakes.seen["events"] == [("started", []), "progress done", "closed"]
    assert fakes.seen["run"] == (["s1", "s2"], loop, fakes.setup, {"out": tmp_path, "stem": "scripted", "fresh": True,
                                                                   "on_done": "progress.update"})
    assert fakes.setup.info == {"search": "bm25", "pack": "icj.json", "pack_sha256": "abc", "max_steps": 0,
                                "max_tokens": 300, "model": "scripted", "base_url": "http://h/v1"}
    pack, scenarios, results, kwargs = fakes.seen["record"]
    assert (pack, scenarios, results) == (fakes.pack, ["s1", "s2"], ["result"])
    started = kwargs.pop("started")
    assert started.tzinfo is dt.timezone.utc
    assert kwargs == {"stem": "scripted", "judge": "citations", "condition": fakes.setup.condition,
                      "model": "scripted", "base_url": "http://h/v1", "embedded": False,
                      "parameters": {"condition": "Parametric", "max_steps": 0, "max_tokens": 300, "temperature": 0.0,
                                     "limit": 2},
                      "seconds": 2.5, "resumed": 1, "model_counts": {"requests": 7, "cache_hits": 2}}
    assert fakes.seen["saved"] == tmp_path / "scripted.run.json"
    assert capsys.readouterr().out == ("Parametric: 2 scenarios (1 resumed), 4 tool calls, 1 results withheld by the "
                                       f"guard, 0 errors; 7 model requests, 2 replayed -> {tmp_path}\n")


def test_the_embedded_model_serves_a_run_without_a_key_cache_or_encoder(fakes, tmp_path, monkeypatch):
    monkeypatch.delenv("TOOLS_KEY", raising=False)
    fakes.counts["errors"] = 1
    code, args = run(fakes, tmp_path, "--pack", "p.json", "--condition", "c", "--embedded", "--no-response-cache",
                     "--api-key-env", "TOOLS_KEY")
    assert code == 3
    assert args.encode is None and fakes.seen["events"][-1] == "server stopped"
    assert fakes.seen["run"][1].model.endpoint == ("http://127.0.0.1:9/v1", "embedded-model", None, None)
    assert fakes.seen["run"][0] == ["s1", "s2", "s3"] and fakes.seen["record"][3]["embedded"] is True
    assert fakes.seen["saved"] == tmp_path / "embedded-model.run.json"


@pytest.mark.parametrize("limit, ran", [("0", []), ("2", ["s1", "s2"]), ("5", ["s1", "s2", "s3"])])
def test_limit_runs_the_first_n_scenarios_none_for_zero_as_run_does(fakes, tmp_path, limit, ran):
    assert run(fakes, tmp_path, *BASE, "--limit", limit)[0] == 0
    assert fakes.seen["run"][0] == fakes.seen["record"][1] == ran
    assert fakes.seen["progress"][0] == len(ran)


@pytest.mark.parametrize("manifest, argv, cap", [
    ({"run": {"max_tokens": 300}}, ["--max-tokens", "99"], 99),
    ({"run": {"max_tokens": "300"}}, [], 300),
    (None, [], 1024), ({}, [], 1024), ({"run": None}, [], 1024), ({"run": {"max_tokens": None}}, [], 1024),
])
def test_the_token_cap_is_the_flag_else_the_packs_run_settings_else_the_default(fakes, tmp_path, manifest, argv, cap):
    fakes.pack.manifest = manifest
    assert run(fakes, tmp_path, *BASE, *argv)[0] == 0
    assert fakes.seen["loop"]["max_tokens"] == cap == fakes.setup.info["max_tokens"]
