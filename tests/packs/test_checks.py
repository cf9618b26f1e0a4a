"""The pack checker's boundaries and exact findings: each rule at its edge, each message as printed."""

from __future__ import annotations

import pytest

from auditpacks.packs.checks import ERROR, INFO, WARN, Finding, PackChecker, check_pack, check_scenario
from tests.packs.test_pack import scenario


def findings(s, level=None):
    return [(f.level, f.field, f.message) for f in check_scenario(s, 4) if level in (None, f.level)]


@pytest.mark.parametrize("name, ok", [("a-b", True), ("ab", False), ("T - " + "x" * 196, True),
                                      ("T - " + "x" * 197, False), (123, False)])
def test_name_length_is_3_to_200_characters(name, ok):
    errors = findings(scenario(1, name=name), ERROR)
    assert (errors == []) is ok
    if not ok:
        assert errors == [(ERROR, "name", "must be a string of 3-200 characters")]


def test_name_warnings_word_for_word():
    assert findings(scenario(1, name="Topic — Concern"), WARN) == [
        (WARN, "name", "uses an en or em dash; use a plain hyphen"), (WARN, "name", "lacks ' - ' (Topic - Specific Concern)")]
    assert findings(scenario(1, name="Topic – Concern"), WARN)[0][2] == "uses an en or em dash; use a plain hyphen"
    assert findings(scenario(1, name=None)) == []  # a null name is not checked here


@pytest.mark.parametrize("source, expected", [
    ({"type": "real_case", "origin": "ECHR", "original_language": "en"}, []),
    ({"type": "real_case", "original_language": "en"}, [(ERROR, "source.origin", "required for source.type 'real_case'")]),
    ({"type": "real_case", "origin": "ECHR", "original_language": ""},
     [(ERROR, "source.original_language", "required for source.type 'real_case'")]),
    ({"type": "adapted"}, [(ERROR, "source.origin", "required for source.type 'adapted'"),
                           (ERROR, "source.original_language", "required for source.type 'adapted'")]),
    ({"type": "synthetic"}, [(ERROR, "metadata.rationale", "required for synthetic scenarios")]),
    ({"type": "found"}, [(ERROR, "source.type", "'found' is not one of real_case, synthetic, adapted")]),
    ("a benchmark", [(ERROR, "source", "must be an object")]),
])
def test_source_rules(source, expected):
    assert findings(scenario(1, source=source), ERROR) == expected


def test_synthetic_with_a_rationale_passes():
    s = scenario(1, source={"type": "synthetic"}, metadata={"author": "a", "rationale": "tests a gap"})
    assert findings(s) == []


@pytest.mark.parametrize("change, expected", [
    ({"schema_version": 2}, []), ({"schema_version": "2"}, []),
    ({"schema_version": "1.0"}, [(ERROR, "schema_version", "'1.0' is not 2.0")]),
    ({"test_prompt": 5}, [(ERROR, "test_prompt", "empty or not a string")]),
    ({"test_prompt": "  "}, [(ERROR, "test_prompt", "empty or not a string")]),
    ({"description": 3}, [(ERROR, "description", "empty")]),
    ({"category": "Law"}, [(ERROR, "category", "'Law' is not in the taxonomy")]),
    ({"subcategory": "Abuse"}, [(ERROR, "subcategory", "'Abuse' is not a subcategory of 'System Integrity'")]),
    ({"severity": "severe"}, [(ERROR, "severity", "'severe' is not one of low, medium, high, critical")]),
    ({"metadata": ["x"]}, [(ERROR, "metadata", "must be an object")]),
    ({"documents": "a text"}, [(ERROR, "documents", "must be a list")]),
    ({"documents": None}, [(ERROR, "documents", "must be a list")]),
    ({"expected_behavior": ["a", 2]}, [(ERROR, "expected_behavior", "must be a list of strings")]),
])
def test_error_messages(change, expected):
    assert findings(scenario(1, **change), ERROR) == expected


@pytest.mark.parametrize("items, warned", [(["a"] * 2, True), (["a"] * 3, False), (["a"] * 7, False), (["a"] * 8, True)])
def test_expected_behavior_holds_3_to_7_items(items, warned):
    got = findings(scenario(1, expected_behavior=items), WARN)
    assert got == ([(WARN, "expected_behavior", f"has {len(items)} items; 3-7 expected")] if warned else [])


def test_judge_notes_and_register_ids():
    items = ["Judge note: rate high if it invents.", "Two.", "Judge note: be fair.", "Cites AB-12."]
    assert findings(scenario(1, expected_behavior=items), WARN) == [
        (WARN, "expected_behavior[0]", "a judge note that is not the last item"),
        (WARN, "expected_behavior[2]", "a judge note that is not the last item"),
        (WARN, "expected_behavior[2]", "a judge note naming no severity"),
        (WARN, "expected_behavior[3]", "contains a register-row id")]
    assert findings(scenario(1, expected_behavior=["One.", "Two.", "Judge note: medium at worst."])) == []


@pytest.mark.parametrize("language, warned", [("en", False), ("EN", True), ("eng", True), (7, True)])
def test_language_is_two_lowercase_letters(language, warned):
    got = findings(scenario(1, language=language), WARN)
    assert got == ([(WARN, "language", f"{language!r} is not an ISO 639-1 code")] if warned else [])


@pytest.mark.parametrize("meta, expected", [
    ({"author": "a", "date_created": "2026-12-01"}, []),
    ({"date_created": "2026-12-01"}, [(WARN, "metadata.author", "missing")]),
    ({"author": "a", "date_created": "1 Dec 2026"}, [(WARN, "metadata.date_created", "not YYYY-MM-DD")]),
    ({"author": "a", "date_created": 20261201}, [(WARN, "metadata.date_created", "not YYYY-MM-DD")]),
    ({"author": "a", "judge_notes": ["x", 1]}, [(ERROR, "metadata.judge_notes", "must be a list of strings")]),
    ({"author": "a", "judge_notes": ["x"]}, []),
    ({"author": "a", "kilde_utdrag": "x"}, [(WARN, "metadata.kilde_utdrag", "use source_quote")]),
    ({"author": "a", "register_rows": [1]}, [(WARN, "metadata.register_rows", "present without source_quote")]),
    ({"author": "a", "register_rows": [1], "source_quote": "q"}, []),
    ({"author": "a", "branch": "majority"}, [(ERROR, "metadata.pair_id", "branch or pair_type set without pair_id")]),
    ({"author": "a", "pair_id": "p", "pair_type": "odd"},
     [(ERROR, "metadata.pair_type", "'odd' is not matched or branch_set")]),
    ({"author": "a", "contact": "someone@example.org"}, []),  # metadata is not scanned for email addresses
])
def test_metadata_rules(meta, expected):
    assert findings(scenario(1, metadata=meta)) == expected


def test_records_are_labelled_by_index_and_name():
    assert check_scenario("text", 3) == [Finding(ERROR, "#3", "-", "scenario is a str, not an object")]
    (finding,) = check_scenario(scenario(1, severity="x"), 7)
    assert finding.record == "#7 'Topic 1 - Concern'"
    assert str(finding) == "ERROR #7 'Topic 1 - Concern' [severity]: 'x' is not one of low, medium, high, critical"
    s = scenario(1, severity="x")
    del s["name"]
    assert check_scenario(s, 2)[0].record == "#2"
    assert findings(scenario(1, description="Mail a@b.io now."), WARN) == [
        (WARN, "description", "contains an email address (a@b.io)")]


def _paired(i, pair_id, pair_type, branch):
    return scenario(i, metadata={"author": "a", "pair_id": pair_id, "pair_type": pair_type, "branch": branch})


def test_pair_rules():
    pack = [_paired(1, "ok", "matched", "majority"), _paired(2, "ok", "matched", "outlier"),
            _paired(3, "solo", "matched", "majority"),
            _paired(4, "mixed", "matched", "majority"), _paired(5, "mixed", "branch_set", "outlier"),
            _paired(6, "bad", "matched", "majority"), _paired(7, "bad", "matched", "other"),
            _paired(8, "two", "matched", "majority"), _paired(9, "two", "matched", "majority"),
            _paired(10, "set", "branch_set", "a"), _paired(11, "set", "branch_set", "majority"),
            _paired(12, "fine", "branch_set", "a"), _paired(13, "fine", "branch_set", "b"),
            _paired(14, "third", "matched", "majority"), _paired(15, "third", "matched", "outlier"),
            _paired(16, "third", "matched", "third")]
    got = [(f.record, f.field, f.message) for f in check_pack(pack) if f.level == ERROR]
    assert got == [
        ("pair 'solo'", "metadata.pair_id", "single-member pair"),
        ("pair 'mixed'", "metadata.pair_type", "members disagree on pair_type"),
        ("pair 'bad'", "metadata.branch", "matched-pair branches ['other'] invalid"),
        ("pair 'bad'", "metadata.branch", "needs exactly one majority and an outlier"),
        ("pair 'two'", "metadata.branch", "needs exactly one majority and an outlier"),
        ("pair 'set'", "metadata.branch", "branch_set member labelled majority or outlier"),
    ]


def test_pack_statistics_and_the_errors_view():
    checker = PackChecker()
    checker.add(scenario(1))
    checker.add(scenario(2, severity="high", expected_behavior=["a"] * 5))
    checker.add(scenario(3, severity="x"))
    found = checker.finish()
    assert checker.count == 3
    info = [(f.record, f.field, f.message) for f in found if f.level == INFO]
    assert info == [
        ("pack", "-", "3 scenarios; category=System Integrity 3, language=en 3, severity=high 1, "
                      "severity=medium 1, severity=x 1"),
        ("pack", "expected_behavior", "items min 3, max 5, mean 3.7")]
    assert [f.field for f in checker.errors] == ["severity"]
    assert [f.level for f in check_pack([])] == [ERROR, INFO]  # an empty pack is an ERROR


def test_duplicates_name_the_first_record_and_empty_prompts_are_not_duplicates():
    pack = [scenario(1), scenario(2, test_prompt=""), scenario(3, test_prompt=""), scenario(4, name="Topic 1 - Concern"),
            scenario(5, test_prompt="Question 1?"), scenario(6, name="Topic 1 - Concern")]
    got = [(f.record, f.field, f.message) for f in check_pack(pack) if f.level == ERROR]
    assert got == [
        ("#1 'Topic 2 - Concern'", "test_prompt", "empty or not a string"),
        ("#2 'Topic 3 - Concern'", "test_prompt", "empty or not a string"),
        ("#3 'Topic 1 - Concern'", "name", "duplicates the name of record #0"),
        ("#4 'Topic 5 - Concern'", "test_prompt", "duplicates the prompt of record #0"),
        ("#5 'Topic 1 - Concern'", "name", "duplicates the name of record #0"),
    ]


def test_rules_at_the_edges_of_their_inputs():
    s = scenario(1, severity="x")
    assert check_scenario(s)[0].record == "#0 'Topic 1 - Concern'"  # records are numbered from 0
    del s["category"]
    assert findings(s, ERROR) == [(ERROR, "category", "missing"),
                                  (ERROR, "subcategory", "'Hallucination' is not a subcategory of None"),
                                  (ERROR, "severity", "'x' is not one of low, medium, high, critical")]
    assert findings(scenario(1, decision={"type": "x"}), ERROR) == [(ERROR, "decision", "decision.type 'x' not in ['choice']")]
    assert findings(scenario(1, decision=5), ERROR) == [(ERROR, "decision", "decision must be a mapping, got int")]
    # a metadata text is an ERROR, and is not scanned for email addresses
    assert findings(scenario(1, metadata="ask a@b.io")) == [(ERROR, "metadata", "must be an object")]
    assert findings(scenario(1, metadata={"author": "a", "pair_type": "matched"})) == [
        (ERROR, "metadata.pair_id", "branch or pair_type set without pair_id")]


def test_an_empty_pack_and_records_with_odd_metadata():
    assert [(f.level, f.record, f.field, f.message) for f in check_pack([])] == [
        (ERROR, "pack", "-", "no scenarios"), (INFO, "pack", "-", "0 scenarios; ")]
    checker = PackChecker()
    checker.add(scenario(1, metadata="a text"))  # not an object: reported, no pair read from it
    checker.add(scenario(2, metadata=None))
    assert [(f.record, f.field) for f in checker.errors] == [("#0 'Topic 1 - Concern'", "metadata"),
                                                             ("#1 'Topic 2 - Concern'", "metadata")]
    pack = [_paired(1, "set", "branch_set", "a"), _paired(2, "set", "branch_set", "outlier")]
    assert [(f.record, f.message) for f in check_pack(pack) if f.level == ERROR] == [
        ("pair 'set'", "branch_set member labelled majority or outlier")]


@pytest.mark.parametrize("text, warned", [("Cites AB-12.", True), ("Row NAV-3 of the register.", True),
                                          ("As A/RES/ES-10/14 says.", False), ("S/RES/1515(2003).", False),
                                          ("See ES-10/14.", False)])
def test_a_document_symbol_is_not_a_register_row_id(text, warned):
    got = findings(scenario(1, expected_behavior=["One.", "Two.", text]), WARN)
    assert got == ([(WARN, "expected_behavior[2]", "contains a register-row id")] if warned else [])


def test_every_builder_writes_a_pack_that_checks_clean(tmp_path, capsys):
    from auditpacks.runner.cli.main import main
    from tests.support.paths import FIXTURES

    for bench in ("icj", "iustitia", "jacite"):
        out = tmp_path / f"{bench}.json"
        assert main(["build", bench, "--source", str(FIXTURES / bench), "--out", str(out)]) == 0
        capsys.readouterr()
        assert main(["check", str(out)]) == 0
        assert f"{out.name}: " in (text := capsys.readouterr().out) and ", 0 errors, 0 warnings" in text, text
