"""Finding and loading finished runs for ``report`` and ``compare``: which run records a RUN argument names,
where a run's pack is found (by its sha256, never by name alone), and what a loaded run says (its pairs,
unanswered scenarios, headline and label)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from auditpacks.core.errors import PackError
from auditpacks.core.io import sha256_file
from auditpacks.core.runs.record import RunRecord
from auditpacks.runner.reporting.runs import PackFinder, load_runs, record_paths
from tests.support.hand_runs import choice_result, write_run
from tests.support.tiny_pack import write_pack


@pytest.fixture()
def pack(tmp_path):
    return write_pack(tmp_path / "tiny.json", 4)


def scenarios(pack: Path) -> list[dict]:
    return json.loads(pack.read_text(encoding="utf-8"))


def right(s):
    return choice_result(s, s["decision"]["accepted"][0])


def wrong(s):
    return choice_result(s, next(k for k in s["decision"]["criteria"] if k not in s["decision"]["accepted"]))


def edit_record(path: Path, **fields) -> Path:
    record = json.loads(path.read_text(encoding="utf-8"))
    for key, value in fields.items():
        if isinstance(value, dict) and isinstance(record.get(key), dict):
            record[key].update(value)
        else:
            record[key] = value
    path.write_text(json.dumps(record), encoding="utf-8")
    return path


# -- which run records the arguments name ------------------------------------------------------------------------

def test_a_folder_names_every_record_under_it_sorted_and_each_record_once(tmp_path, pack):
    items = [right(s) for s in scenarios(pack)]
    b = write_run(tmp_path / "runs" / "x" / "deep", "b", pack, "choice_match", items)
    a = write_run(tmp_path / "runs" / "y", "a", pack, "choice_match", items)
    assert record_paths([tmp_path / "runs"]) == [b, a]          # sorted by path: x/deep/b before y/a
    # the results file names its record; the same record again (by another spelling) is not repeated
    assert record_paths([str(a.with_name("a.json")), a, tmp_path / "runs" / "y" / ".." / "y" / "a.run.json",
                         str(tmp_path / "runs")]) == [a, b]


def test_arguments_that_name_no_run_are_refused_with_the_path(tmp_path, pack):
    (tmp_path / "empty").mkdir()
    with pytest.raises(PackError, match=r"empty: no run records \(\*\.run\.json\) in this folder"):
        record_paths([tmp_path / "empty"])
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(PackError, match="notes.txt: not a run record, results file or folder"):
        record_paths([tmp_path / "notes.txt"])
    with pytest.raises(PackError, match=r"gone\.run\.json: run record not found"):
        record_paths([tmp_path / "gone.json"])          # a results file whose record is missing
    with pytest.raises(PackError, match=r"gone\.run\.json: run record not found"):
        record_paths([tmp_path / "gone.run.json"])
    with pytest.raises(PackError, match="^no runs given$"):
        load_runs([])


# -- where the pack is found ----------------------------------------------------------------------------------------

def test_the_pack_is_found_beside_the_run_in_a_packs_folder_or_up_to_three_folders_up(tmp_path, pack):
    items = [right(s) for s in scenarios(pack)]
    for depth in range(4):   # tmp/tiny.json is 1..4 folders above the run's folder
        run = write_run(tmp_path.joinpath(*["d"] * (depth + 1)), f"m{depth}", pack, "choice_match", items)
        if depth < 3:
            assert load_runs([run])[0].pack.path == pack
        else:
            with pytest.raises(PackError, match=r"m3\.run\.json: pack tiny\.json \(sha256 [0-9a-f]{12}…\) not found; "
                                                r"pass --pack PACK\.json"):
                load_runs([run])
    beside = write_run(tmp_path / "e" / "f" / "g" / "h" / "i", "n", pack, "choice_match", items)
    (beside.parent.parent / "packs").mkdir()
    shutil.copy(pack, beside.parent.parent / "packs" / "tiny.json")
    assert load_runs([beside])[0].pack.path == beside.parent.parent / "packs" / "tiny.json"
    shutil.copy(pack, beside.parent / "tiny.json")
    assert load_runs([beside])[0].pack.path == beside.parent / "tiny.json"   # the run's own folder first


def test_the_working_folder_and_pack_options_are_looked_in_and_a_same_named_other_pack_is_not_taken(
        tmp_path, pack, monkeypatch):
    items = [right(s) for s in scenarios(pack)]
    run = write_run(tmp_path / "a" / "b" / "c" / "d" / "e", "m", pack, "choice_match", items)
    write_pack(run.parent / "tiny.json", 3)                       # the same name, other contents
    here = tmp_path / "here"
    here.mkdir()
    shutil.copy(pack, here / "tiny.json")
    monkeypatch.chdir(here)
    assert load_runs([run])[0].pack.path.resolve() == (here / "tiny.json").resolve()
    elsewhere = tmp_path / "elsewhere.json"
    shutil.copy(pack, elsewhere)
    monkeypatch.chdir(tmp_path / "a")
    assert load_runs([run], packs=[elsewhere])[0].pack.path == elsewhere
    with pytest.raises(PackError, match="not found"):
        load_runs([run])


def test_a_pack_name_that_is_a_path_is_never_looked_for(tmp_path, pack):
    run = write_run(tmp_path / "run", "m", pack, "choice_match", [right(s) for s in scenarios(pack)])
    edit_record(run, pack={"name": "../tiny.json"})              # would resolve to the real pack
    with pytest.raises(PackError, match=r"pack \.\./tiny\.json .* not found"):
        load_runs([run])


def test_a_found_pack_is_kept_for_the_next_run_of_it(tmp_path, pack):
    items = [right(s) for s in scenarios(pack)]
    first = write_run(tmp_path / "r1", "a", pack, "choice_match", items)
    second = write_run(tmp_path / "r2", "b", pack, "choice_match", items)
    finder = PackFinder()
    found = finder.find(first, RunRecord.load(first))
    pack.unlink()                                                   # the second run needs no file now
    assert finder.find(second, RunRecord.load(second)) is found


# -- a loaded run ---------------------------------------------------------------------------------------------------

def test_a_run_pairs_its_results_with_scenarios_and_takes_its_model_from_the_record_or_file(tmp_path, pack):
    items = scenarios(pack)
    run_path = write_run(tmp_path / "run", "m", pack, "choice_match", [right(items[2]), wrong(items[0])])
    (run,) = load_runs([run_path])
    assert (run.model, run.judge, run.label) == ("m", "choice_match", "m · tiny.json")
    assert run.sha256 == sha256_file(pack)
    assert [(s["name"], r["judgment"]["correct"]) for s, r in run.pairs()] == [
        (items[2]["name"], True), (items[0]["name"], False)]
    assert run.benchmark.title.startswith("closed questions") and run.report.__name__.endswith("iustitia.report")
    run.record.model = ""
    run.name = ""
    assert (run.model, run.label) == ("m", "m · tiny.json")        # the record's file name, less .run.json


def test_a_result_for_a_scenario_the_pack_lacks_is_refused(tmp_path, pack):
    stray = {**right(scenarios(pack)[0]), "scenario_name": "Not in the pack"}
    (run,) = load_runs([write_run(tmp_path / "run", "m", pack, "choice_match", [right(scenarios(pack)[1]), stray])])
    with pytest.raises(PackError, match=r"m\.run\.json: result #1 field scenario_name 'Not in the pack' is not a "
                                        r"scenario of tiny\.json"):
        run.pairs()


def test_the_headline_counts_unanswered_scenarios_and_keeps_values_attached_after_grading(tmp_path, pack):
    items = scenarios(pack)
    path = write_run(tmp_path / "run", "m", pack, "choice_match", [right(items[0]), right(items[1]), wrong(items[2])])
    edit_record(path, summary={"unanswered": [items[3]["name"]], "headline": {"micro": 0.9, "panel": {"k": 1}}})
    (run,) = load_runs([path])
    assert [s["name"] for s in run.unanswered()] == [items[3]["name"]]
    headline = run.headline()
    # 2 right of 4 tasks (the unanswered one counts against), not 2 of 3; the recorded micro is not taken
    assert (headline.values["tasks"], headline.values["micro"]) == (4, 0.5)
    assert headline.values["panel"] == {"k": 1}                    # attached after grading: added
    assert run.headline() is headline


def test_an_unanswered_name_the_pack_lacks_is_refused(tmp_path, pack):
    path = write_run(tmp_path / "run", "m", pack, "choice_match", [right(scenarios(pack)[0])])
    edit_record(path, summary={"unanswered": ["Ghost"]})
    (run,) = load_runs([path])
    with pytest.raises(PackError, match=r"m\.run\.json: field unanswered names 'Ghost', which is not a scenario "
                                        r"of tiny\.json"):
        run.unanswered()


def test_each_round_of_a_repeated_run_has_its_own_unanswered_and_no_attached_values(tmp_path, pack):
    items = scenarios(pack)
    path = write_run(tmp_path / "run", "m", pack, "choice_match", [right(s) for s in items[:3]],
                     [right(items[0]), wrong(items[1])])
    record = json.loads(path.read_text(encoding="utf-8"))
    base = {"scenarios": 4, "completed": 3, "errors": 0}
    record["rounds"][0]["summary"] = {**base, "unanswered": [items[3]["name"]]}
    record["rounds"][1]["summary"] = {**base, "unanswered": [items[2]["name"], items[3]["name"]]}
    record["summary"]["headline"] = {"panel": {"k": 1}}
    path.write_text(json.dumps(record), encoding="utf-8")
    (run,) = load_runs([path])
    assert [s["name"] for s in run.unanswered()] == [items[3]["name"]]     # round 1 unless asked
    assert len(run.rounds) == 2 and [s["name"] for s in run.unanswered(1)] == [items[2]["name"], items[3]["name"]]
    first, second = run.headline(0), run.headline(1)
    assert (first.values["tasks"], first.values["micro"]) == (4, 0.75)
    assert (second.values["tasks"], second.values["micro"]) == (4, 0.25)
    assert "panel" not in first.values and "panel" not in second.values


def test_a_single_round_run_reads_the_runs_summary_not_its_rounds(tmp_path, pack):
    items = scenarios(pack)
    path = write_run(tmp_path / "run", "m", pack, "choice_match", [right(items[0])])
    record = json.loads(path.read_text(encoding="utf-8"))
    record["summary"]["unanswered"] = [items[1]["name"]]
    record["rounds"][0]["summary"] = {"scenarios": 4, "completed": 1, "errors": 0, "unanswered": [items[2]["name"]]}
    path.write_text(json.dumps(record), encoding="utf-8")
    (run,) = load_runs([path])
    assert [s["name"] for s in run.unanswered()] == [items[1]["name"]]


def test_split_results_read_as_one_round_with_stored_documents_left_where_they_are(tmp_path, pack):
    items = scenarios(pack)
    path = write_run(tmp_path / "run", "m", pack, "choice_match", [])
    first, second = right(items[0]), right(items[1])
    first["conversation"][0]["documents_ref"] = second["conversation"][0]["documents_ref"] = "k1"
    (path.parent / "m.documents.jsonl").write_text(json.dumps({"key": "k1", "documents": ["J"]}) + "\n",
                                                   encoding="utf-8")
    for name, result, extra in (("m.json", first, {"parts": ["m.part2.json"]}), ("m.part2.json", second, {})):
        (path.parent / name).write_text(json.dumps({"timestamp": "t", "summary": {}, "documents": "m.documents.jsonl",
                                                    **extra, "results": [result]}, indent=2), encoding="utf-8")
    (run,) = load_runs([path])
    assert [r["scenario_name"] for r in run.rounds[0]] == [items[0]["name"], items[1]["name"]]
    assert [r["conversation"][0].get("documents_ref") for r in run.rounds[0]] == ["k1", "k1"]
    assert all("documents" not in r["conversation"][0] for r in run.rounds[0])


def test_a_round_without_its_own_summary_reads_the_runs_unanswered(tmp_path, pack):
    items = scenarios(pack)
    path = write_run(tmp_path / "run", "m", pack, "choice_match", [right(items[0])], [right(items[0])])
    edit_record(path, summary={"unanswered": [items[1]["name"]]})
    (run,) = load_runs([path])
    assert [s["name"] for s in run.unanswered(1)] == [items[1]["name"]]


def test_runs_loaded_together_are_labelled_by_what_differs(tmp_path, pack):
    items = [right(s) for s in scenarios(pack)]
    runs = load_runs([write_run(tmp_path / "a", "alpha", pack, "choice_match", items),
                      write_run(tmp_path / "b", "beta", pack, "choice_match", items)])
    assert [r.name for r in runs] == ["alpha", "beta"] and [r.label for r in runs] == ["alpha", "beta"]
    assert [len(r.rounds[0]) for r in runs] == [4, 4]
