"""The Python API: one call each to build, run, score and export, with the command line's defaults."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import auditpacks
from auditpacks import api
from auditpacks.core.errors import UserError
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


@pytest.mark.model
def test_build_run_export_score_icj(tmp_path, embedded_model):
    pack = auditpacks.build("icj", out=tmp_path / "icj.json", source=FIXTURES / "icj", limit=2)
    assert pack == tmp_path / "icj.json" and pack.is_file()
    results, record = auditpacks.run(pack, target="smollm2", base_url=embedded_model.base_url, out=tmp_path / "results",
                                     max_tokens=64, quiet=True)
    assert len(results) == 2 == record.summary.scenarios
    assert all(r.severity != "ERROR" for r in results), [r.judgment for r in results]
    assert record.model == "smollm2"
    predictions = auditpacks.export("icj", tmp_path / "results" / "smollm2.json", tmp_path / "pred.jsonl")
    rows = [json.loads(line) for line in predictions.read_text().splitlines()]
    assert len(rows) == 2 and {r["model_id"] for r in rows} == {"smollm2"}
    scores = auditpacks.score("icj", predictions, test=FIXTURES / "icj" / "data" / "test.jsonl", allow_partial=True)
    assert scores["records"] == 2


def test_unknown_option_and_benchmark_are_one_line_errors(tmp_path):
    with pytest.raises(UserError, match="unknown option 'colour'"):
        auditpacks.build("jacite", out=tmp_path / "p.json", colour="red")
    with pytest.raises(UserError, match="no builder for benchmark 'nope'"):
        auditpacks.build("nope", out=tmp_path / "p.json")
    assert not list(tmp_path.iterdir())


@pytest.fixture(scope="module")
def iustitia_run(tmp_path_factory):
    """The Iustitia fixture pack built and run through the API against the fake server (fixed answers)."""
    folder = tmp_path_factory.mktemp("api")
    pack = auditpacks.build("iustitia", out=str(folder / "iustitia.json"), source=FIXTURES / "iustitia")
    with FakeOpenAI() as server:
        results, record = auditpacks.run(pack, target="m", base_url=server.base_url, out=str(folder / "run"),
                                         quiet=True)
    return folder, pack, results, record


def test_build_and_run_give_the_pack_and_round_ones_results_with_the_record(iustitia_run):
    folder, pack, results, record = iustitia_run
    assert pack == folder / "iustitia.json" and pack.is_file() and record.model == "m"
    assert len(results) == record.summary.scenarios == 15       # the fixture's 15 tasks
    assert [r.scenario_name for r in results] == [s["name"] for s in json.loads(pack.read_text(encoding="utf-8"))]


def test_export_and_score_give_the_file_and_the_runs_own_figures_and_print_nothing(iustitia_run, tmp_path, capsys):
    folder, _, _, record = iustitia_run
    predictions = auditpacks.export("iustitia", folder / "run" / "m.json", str(tmp_path / "pred.jsonl"))
    assert predictions == tmp_path / "pred.jsonl" and len(predictions.read_text(encoding="utf-8").splitlines()) == 15
    scores = auditpacks.score("iustitia", predictions, source=FIXTURES / "iustitia", bootstrap=200)
    kept = auditpacks.score("iustitia", str(predictions), source=str(FIXTURES / "iustitia"), out=tmp_path / "s.json")
    assert scores["tasks"] == 15 and scores["micro"] == kept["micro"] == record.summary.headline["micro"]
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8")) == kept
    assert capsys.readouterr().out == ""


def test_an_existing_pack_of_other_content_is_replaced_only_when_forced(iustitia_run, tmp_path):
    out = tmp_path / "iustitia.json"
    out.write_text("[]", encoding="utf-8")
    with pytest.raises(UserError, match="--force"):
        auditpacks.build("iustitia", out=out, source=FIXTURES / "iustitia")
    assert out.read_text(encoding="utf-8") == "[]"
    auditpacks.build("iustitia", out=out, source=FIXTURES / "iustitia", force=True)
    assert out.read_bytes() == iustitia_run[1].read_bytes()


@pytest.mark.parametrize("call, message", [
    (lambda: auditpacks.score("icj", "p.jsonl"), "score icj: the following arguments are required: --test"),
    (lambda: auditpacks.score("jacite", "p.jsonl"), "no score for benchmark 'jacite'; choose one of icj, iustitia"),
    (lambda: auditpacks.export("nope", "r.json", "o"), "no export for benchmark 'nope'; choose one of icj, iustitia, "
                                                       "jacite"),
    (lambda: auditpacks.run("p.json", colour="red"), "run: unknown option 'colour'; choose from "),
])
def test_a_call_the_command_would_refuse_is_one_error_naming_the_command(call, message):
    with pytest.raises(UserError) as caught:
        call()
    assert str(caught.value).startswith(message)


def test_the_unknown_option_error_lists_the_commands_options_in_order(tmp_path):
    with pytest.raises(UserError) as caught:
        auditpacks.build("jacite", out=tmp_path / "p.json", colour="red")
    assert str(caught.value).startswith("build jacite: unknown option 'colour'; choose from ")
    listed = str(caught.value).split("; choose from ")[1].split(", ")
    assert listed == sorted(listed) and "limit" in listed and "out" in listed


def _toy(main, *flags):
    """A benchmark's command module: a results argument, ``--out``, the given flags, and ``main``."""
    def add_arguments(parser):
        parser.add_argument("results", nargs="?")
        parser.add_argument("--out")
        for flag, kwargs in flags:
            parser.add_argument(flag, **kwargs)
    return SimpleNamespace(add_arguments=add_arguments, main=main, build=main)


def test_a_failed_command_is_an_error_with_its_exit_code_and_what_it_printed_is_kept_quiet(monkeypatch, capsys):
    failing = _toy(lambda args: sys.stdout.write(f"wrote {args.out}\n") and 3)
    monkeypatch.setattr(api, "_module", lambda role, benchmark: failing)
    with pytest.raises(UserError, match=r"^export toy: failed with exit code 3$"):
        auditpacks.export("toy", "r.json", "out.json")
    assert capsys.readouterr().out == ""


def test_required_flags_and_options_reach_the_command_as_on_its_command_line(monkeypatch, tmp_path):
    seen = []
    toy = _toy(lambda args: seen.append(vars(args)) or 0, ("--rounds", {"type": int, "required": True}),
               ("--strict", {"action": "store_true"}), ("--cache", {"type": Path, "default": Path("cache")}),
               ("--pred", {"required": True}), ("--source", {"type": int, "required": True}))
    monkeypatch.setattr(api, "_module", lambda role, benchmark: toy)
    (tmp_path / "scores.json").write_text("{}", encoding="utf-8")
    auditpacks.score("toy", "p.jsonl", rounds=3, strict=True, cache="elsewhere", source=5, out=tmp_path / "scores.json")
    assert seen[0] | {"out": None} == {"results": None, "out": None, "rounds": 3, "strict": True,
                                       "cache": Path("elsewhere"), "pred": "p.jsonl", "source": 5}
    with pytest.raises(UserError, match=r"^score toy: argument --rounds: invalid int value: 'three'$"):
        auditpacks.score("toy", "p.jsonl", rounds="three", source=5)
    builder = _toy(lambda args: seen.append(vars(args)) or "built", ("--source", {"type": int, "required": True}))
    monkeypatch.setattr(api, "_module", lambda role, benchmark: builder)
    assert auditpacks.build("toy", tmp_path / "pack.json", source=7) == "built"
    assert seen[-1] == {"results": None, "out": str(tmp_path / "pack.json"), "source": 7}


def test_a_role_no_benchmark_has_says_so(monkeypatch):
    monkeypatch.setattr(api, "modules", lambda role: {})
    with pytest.raises(UserError, match=r"^no export for benchmark 'icj'; choose one of none$"):
        auditpacks.export("icj", "r.json", "o")
