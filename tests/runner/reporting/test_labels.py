"""Runs shown together are named by the settings that differ between them (hand-written runs)."""

from __future__ import annotations

from auditpacks.core.runs.record import RunRecord
from auditpacks.runner.reporting.labels import labels, what_differs
from tests.support.six_runs import write_six_runs

#: Per pack: alpha's three runs differ in temperature and seed, beta's in model (run4 and run6 alike in
#: everything, so their folders tell them apart); each label names its pack, as two packs share the page.
EXPECTED = ["alpha.json · temperature 0 · seed 0", "alpha.json · temperature 0.7 · seed 0",
            "alpha.json · temperature 0 · seed 3", "m · beta.json · run4", "n · beta.json", "m · beta.json · run6"]


def test_six_runs_get_six_labels_from_what_differs(tmp_path):
    paths = write_six_runs(tmp_path)
    records = [RunRecord.load(p) for p in paths]
    assert labels(records, [p.parent.name for p in paths]) == EXPECTED
    assert what_differs(records) == ("what differs: model (m, n); pack (alpha.json, beta.json); "
                                     "temperature (0, 0.7); seed (0, 3)")


def test_only_the_differing_setting_names_a_pair_and_one_run_is_model_and_pack(tmp_path):
    paths = write_six_runs(tmp_path)
    pair = [RunRecord.load(p) for p in paths[:2]]
    assert labels(pair, ["a", "b"]) == ["temperature 0", "temperature 0.7"]
    assert what_differs(pair) == "what differs: temperature (0, 0.7)"
    assert labels(pair[:1], ["a"]) == ["m · alpha.json"] and what_differs(pair[:1]) == ""
    twins = [pair[0], pair[0]]
    assert labels(twins, ["x", "y"]) == ["m · alpha.json · x", "m · alpha.json · y"]
    assert what_differs(twins) == "what differs: nothing in their settings (the runs are repeats)"


def test_the_embedded_model_is_named_by_what_serves_it_and_a_decision_run_has_no_prompt_order(tmp_path):
    from auditpacks.core.runs.record import PackRef

    embedded = RunRecord(model="smollm2", provider="openai", judge="grounding", pack=PackRef("j.json", "0" * 64),
                         fingerprint="f", embedded=True)
    hosted = RunRecord(model="smollm2", provider="openai", judge="grounding", pack=PackRef("j.json", "0" * 64),
                       fingerprint="g", base_url="http://h:1/v1")
    assert labels([embedded, hosted], ["a", "b"]) == ["provider embedded (llama.cpp) · endpoint embedded",
                                                      "provider openai · endpoint http://h:1/v1"]
    decision = RunRecord(model="m", provider="openai", judge="choice_match", pack=PackRef("p.json", "1" * 64),
                         fingerprint="d", parameters={"decision": True, "prompt_order": None})
    chat = RunRecord(model="m", provider="openai", judge="choice_match", pack=PackRef("p.json", "1" * 64),
                     fingerprint="c")
    assert labels([decision, chat], ["a", "b"]) == ["decision · prompt order none (decision)", "chat · prompt order auto"]
