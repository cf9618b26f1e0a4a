"""What a run leaves behind and says: exit codes, the summary on stdout only, --json, the results layout,
rounds of a repeated run, and results files that simpleaudit (and so SimpleAudit Studio) loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from simpleaudit import AuditResults

from auditpacks.core.runs.record import RunRecord
from auditpacks.core.runs.run_files import LATEST_NAME, RECORD_SUFFIX, record_name
from auditpacks.judges.icj.score import score_files
from auditpacks.runner.cli.main import main
from auditpacks.runner.settings.config import model_stem
from auditpacks.runner.store.layout import runs_index
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import ROOT, results, run_args, run_here
from tests.support.tiny_pack import write_pack

FAST = ("--retry-backoff", "0.01", "--timeout", "2")


def cli(*argv: str, cwd=ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "auditpacks.runner.cli.main", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_server_that_always_fails_exits_3_and_stdout_holds_only_the_summary(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 3)
    with FakeOpenAI(fault_rate=1.0, faults=("500",)) as server:
        done = cli(*run_args(pack, tmp_path / "out", server.base_url, "--max-retries", "1", *FAST))
    assert done.returncode == 3, done.stderr
    assert "✓ Results saved" in done.stderr and "✓ Results saved" not in done.stdout
    assert "auditpacks: incomplete: 3 of 3 scenarios ended in ERROR (exit 3)" in done.stderr
    assert "verdicts: correct 0, wrong 0, invented 0, ungraded 0, error 3 · headline n/a" in done.stdout
    assert "figures: none: every scenario ended in ERROR" in done.stdout and "%" not in done.stdout
    assert "commonest error (3×): CallFailed: gave up after 2 attempts: HTTP 500: injected failure" in done.stdout
    assert "None" not in done.stdout  # undefined figures read n/a


def test_exit_codes_for_a_clean_run_for_nothing_selected_and_for_bad_input(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 3)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "ok", server.base_url) == 0
        assert run_here(pack, tmp_path / "none", server.base_url, "--limit", "0") == 2  # refused, nothing written
        assert capsys.readouterr().err.strip().endswith("--limit must be at least 1, got 0")
        assert not (tmp_path / "none").exists()
        assert run_here(tmp_path / "missing.json", tmp_path / "bad", server.base_url) == 2
        assert run_here(pack, tmp_path / "bad", server.base_url, "--repeats", "0") == 2
    assert capsys.readouterr().err.strip().endswith("--repeats must be at least 1, got 0")


def test_json_summary_carries_the_figures_of_the_table(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 6)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "out", server.base_url, "--json") == 0
    data = json.loads(capsys.readouterr().out)
    got = results(tmp_path / "out")
    correct = sum(r["severity"] == "pass" for r in got)
    assert data["outcomes"] == {"correct": correct, "wrong": 6 - correct, "invented": 0, "ungraded": 0, "error": 0}
    micro = next(f for f in data["figures"] if f["name"] == "agreement (micro)")
    assert micro["value"] == correct / 6 and micro["interval_name"] == "95% CI, bootstrap over judgments"
    assert data["simpleaudit_score"] == RunRecord.load(tmp_path / "out" / "m.run.json").summary.simpleaudit_score


def test_check_and_score_print_json(tmp_path, capsys):
    pack = write_pack(tmp_path / "tiny.json", 2)
    assert main(["check", str(pack), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["scenarios"], data["errors"], data["manifest_verified"]) == (2, 0, True)
    fixtures = ROOT / "tests" / "fixtures" / "icj"
    pred, test = fixtures / "results" / "predictions.jsonl", fixtures / "data" / "test.jsonl"
    assert main(["score", "icj", "--pred", str(pred), "--test", str(test), "--json", "--out",
                 str(tmp_path / "s.json")]) == 0
    printed = capsys.readouterr()
    assert json.loads(printed.out) == score_files(pred, test) == json.loads((tmp_path / "s.json").read_text())
    assert "records" in printed.err  # the scorer's table and counts went to stderr


def test_default_layout_and_names_that_slug_alike_never_share_files(tmp_path, monkeypatch):
    assert model_stem("smollm2") == "smollm2"
    assert model_stem("a/b:c") != model_stem("a_b:c") and model_stem("a/b:c").startswith("a_b_c-")
    monkeypatch.chdir(tmp_path)
    full, le26 = write_pack(tmp_path / "full.json", 3), write_pack(tmp_path / "le26.json", 2)
    with FakeOpenAI() as server:
        for pack in (full, le26):
            for model in ("a/b:c", "a_b:c"):
                assert main(["run", "--pack", str(pack), "--target", model, "--base-url", server.base_url,
                             "--quiet"]) == 0
    for pack, n in (("full", 3), ("le26", 2)):
        root = tmp_path / "results" / pack
        entries = runs_index(root)
        assert len(entries) == 2 and len({e["id"] for e in entries}) == 2
        records = {RunRecord.load(p).model: p for p in root.glob("*/*" + RECORD_SUFFIX)
                   if p.parent.name != "latest"}  # the link to the newest run, not a run of its own
        assert set(records) == {"a/b:c", "a_b:c"}
        for model, path in records.items():
            assert path.parent.name.startswith(model_stem(model) + "-")
            assert len(results(path.parent, model_stem(model))) == n


def test_same_settings_resume_their_run_and_other_settings_start_a_new_one(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    pack = write_pack(tmp_path / "tiny.json", 3)
    with FakeOpenAI() as server:
        base = ["run", "--pack", str(pack), "--target", "m", "--base-url", server.base_url, "--quiet"]
        assert main(base) == 0
        assert main(base) == 0                              # the same settings: resumed, nothing sent again
        calls_after_resume = sum(server.calls.values())
        assert main([*base, "--temperature", "0.7"]) == 0  # other settings: a run of its own, no refusal
        assert sum(server.calls.values()) == calls_after_resume + 3
        assert main([*base, "--temperature", "0.7", "--fresh"]) == 0  # --fresh: a new run, the old one kept
    assert calls_after_resume == 3
    root = tmp_path / "results" / "tiny"
    ids = [e["id"] for e in runs_index(root)]
    assert len(ids) == 3 and ids[0].startswith("m-choice_match-") and ids[1].startswith("m-choice_match-t0.7-")
    assert all((root / i / record_name("m")).is_file() for i in ids)
    assert (root / LATEST_NAME).resolve() == (root / ids[-1]).resolve()
    assert f"run files in {Path('results') / 'tiny' / ids[0]}" in capsys.readouterr().err


def test_a_rerun_of_another_pack_into_the_same_folder_is_refused(tmp_path, capsys):
    with FakeOpenAI() as server:
        assert run_here(write_pack(tmp_path / "full.json", 3), tmp_path / "out", server.base_url) == 0
        assert run_here(write_pack(tmp_path / "le26.json", 2), tmp_path / "out", server.base_url) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("auditpacks: error: m.run.json: holds a run of another pack (full.json, sha256")
        assert len(results(tmp_path / "out")) == 3  # the first run's results are untouched
        assert run_here(tmp_path / "le26.json", tmp_path / "out", server.base_url, "--fresh") == 0


def test_repeats_run_numbered_rounds_with_their_own_seed_journal_key_and_cache_key(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 4)
    cache = tmp_path / "cache"
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "out", server.base_url, "--repeats", "2", "--seed", "5",
                        "--cache", str(cache)) == 0
        assert set(server.calls.values()) == {2}  # every prompt asked once per round, no round served from another
    record = RunRecord.load(tmp_path / "out" / "m.run.json")
    assert record.repeats == 2 and [(r.round, r.seed, r.results) for r in record.rounds] == \
        [(1, 5, "m.json"), (2, 6, "m.round2.json")]
    assert record.summary.scenarios == 8 and all(r.summary.scenarios == 4 for r in record.rounds)
    for r in record.rounds:  # each round's file is a plain simpleaudit results file
        assert len(AuditResults.load(str(tmp_path / "out" / r.results)).results) == 4
    keys = [json.loads(line)["key"] for line in (tmp_path / "out" / "m.journal.jsonl").read_text().splitlines()[1:]]
    assert sum(k.endswith("#round2") for k in keys) == 4 and len(set(keys)) == 8
    entries = [json.loads(p.read_text())["key"] for p in cache.rglob("*.json") if len(p.parent.name) == 2]
    assert sorted({(e["params"]["seed"], e["repeat"]) for e in entries}) == [(5, 0), (6, 1)]


def test_results_files_load_in_simpleaudit_and_have_the_shape_studio_lists(tmp_path):
    """Studio lists a .json file with a non-empty ``results`` list of entries holding ``scenario_name`` and
    ``severity`` (docs/results.md); the run record must not look like one, the results files must."""
    pack = write_pack(tmp_path / "tiny.json", 3)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "out", server.base_url, "--repeats", "2") == 0
    record = RunRecord.load(tmp_path / "out" / "m.run.json")
    for path in record.results_files(tmp_path / "out"):
        assert len(AuditResults.load(str(path))) == 3
        data = json.loads(path.read_text())
        assert data["results"] and all("scenario_name" in r and "severity" in r for r in data["results"])
    raw = json.loads((tmp_path / "out" / "m.run.json").read_text())
    assert "results" not in raw and "runs" not in raw


def test_every_json_file_a_run_leaves_is_a_results_file_or_the_run_record(tmp_path, monkeypatch):
    """A listing that offers a folder's *.json files offers only files that open as results (the record aside)."""
    monkeypatch.chdir(tmp_path)
    pack = write_pack(tmp_path / "tiny.json", 3)
    with FakeOpenAI() as server:
        assert main(["run", "--pack", str(pack), "--target", "m", "--base-url", server.base_url, "--quiet"]) == 0
    root = tmp_path / "results" / "tiny"
    names = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.json") if "latest" not in p.parts)
    (folder,) = {n.split("/")[0] for n in names}
    assert names == [f"{folder}/m.json", f"{folder}/m.run.json"]
    assert len(AuditResults.load(str(root / folder / "m.json"))) == 3
    assert {p.name for p in (root / folder).iterdir()} >= {"m.progress.jsonl", "m.journal.jsonl"}
    index = json.loads((root / "runs.jsonl").read_text(encoding="utf-8"))
    assert isinstance(index["runs"], list)      # not an experiment's {"runs": {model: [...]}} either
    raw = json.loads((root / folder / "m.run.json").read_text(encoding="utf-8"))
    assert "results" not in raw and "runs" not in raw
