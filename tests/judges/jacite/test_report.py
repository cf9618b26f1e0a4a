"""jacite's report section: per language the cited mentions, the invented and real-but-not-gold ones and their rates
with intervals that resample whole questions, in a table and a bar plot; the headline's figures; a reply's cited
and invented articles; scenarios grouped by question."""

from __future__ import annotations

from auditpacks.judges.figures import Cell
from auditpacks.judges.jacite.report import NOTE, answer, group, headline, per_language, section
from tests.judges.jacite.test_export import graded, grounding
from tests.support.hand_runs import RunView


def asked(question, language=None):
    meta = {"question_id": question, "gold_article": "709", "law_id": "129AC0000000089"}
    return {"name": f"{question} ({language})", "metadata": {**meta, **({"language": language} if language else {})}}


def pair(question, language, cited, invented, *, in_metadata=True, severity=None, judged=None):
    judgment = grounding(question, judged or language, cited, invented)
    if severity:
        judgment["severity"] = severity
    return asked(question, language if in_metadata else None), graded(f"{question} ({language})", judgment, "…")


PAIRS = [
    pair("q4", "ja", ["9999"], ["9999"], severity="ERROR"),                          # left out
    (asked("q5", "ja"), graded("q5 (ja)", {"severity": "pass", "choice": "A"}, "A")),  # another judge's: left out
    pair("q1", "ja", ["709", "9999"], ["9999"]),    # 1 invented, the gold article, of 2
    pair("q2", "ja", ["1", "9999"], ["9999"]),      # q2 is asked twice: 1 invented and 3 real but not gold of 4
    pair("q2", "ja", ["1", "2"], [], judged="en"),  # the scenario's language comes before the judgment's
    pair("q1", "en", ["709"], [], in_metadata=False),   # the language read from the judgment
    pair("q3", None, [], [], in_metadata=False),        # no language anywhere, nothing cited
]


def run(*rounds):
    return RunView([list(pairs) for pairs in rounds], "grounding", {"name": "jacite"})


def test_rates_per_mention_per_language_with_question_bootstrap_intervals():
    rows = per_language(run(PAIRS))
    assert rows == [
        {"language": "?", "questions": 1, "cited": 0, "invented": 0, "invented_rate": None, "invented_ci": None,
         "real_not_gold": 0, "real_not_gold_rate": None, "real_not_gold_ci": None},
        {"language": "en", "questions": 1, "cited": 1, "invented": 0, "invented_rate": 0.0, "invented_ci": [0.0, 0.0],
         "real_not_gold": 0, "real_not_gold_rate": 0.0, "real_not_gold_ci": [0.0, 0.0]},
        # ja: q1 1/2 invented and 0/2 real but not gold, q2 1/4 and 3/4; a quarter of the replicates draw q1 twice,
        # a quarter q2 twice: the intervals run from q2's rate to q1's (invented) and from q1's to q2's
        {"language": "ja", "questions": 2, "cited": 6, "invented": 2, "invented_rate": 2 / 6,
         "invented_ci": [0.25, 0.5], "real_not_gold": 3, "real_not_gold_rate": 0.5, "real_not_gold_ci": [0.0, 0.75]}]


def test_each_round_is_read_on_its_own():
    later = run(PAIRS, [pair("q1", "ja", ["9999"], ["9999"])])
    assert [(r["language"], r["invented_rate"]) for r in per_language(later, 1)] == [("ja", 1.0)]
    assert {f.group for f in headline(later, 1) if f.name == "invented rate"} == {"ja"}
    assert [row[0].value for row in section(later, 1).tables[0].rows] == ["ja"]
    assert {f.group for f in headline(later) if f.name == "invented rate"} == {"?", "en", "ja"}


def test_the_headline_is_the_pooled_figures():
    figures = headline(run([pair("q1", "ja", ["709", "9999"], ["9999"])]))
    assert [(f.name, f.group, f.value) for f in figures[:2]] == [
        ("invented rate", "ja", 0.5), ("real but not gold rate", "ja", 0.0)]


def test_the_section_is_a_table_per_language_and_bars_of_both_rates():
    part = section(run(PAIRS))
    (table,) = part.tables
    assert (table.title, table.note) == ("Per language", NOTE)
    assert [c.title for c in table.columns] == ["Language", "Questions", "Cited mentions", "Invented",
                                                "Invented rate", "Real but not gold", "Real-not-gold rate"]
    assert table.md_columns == ["Language", "Cited mentions", "Invented rate (question bootstrap 95%)",
                                "Real-not-gold rate (question bootstrap 95%)"]
    assert table.rows[2] == [Cell("ja"), Cell(2, "count"), Cell(6, "count"), Cell(2, "count"),
                             Cell(2 / 6, "rate", [0.25, 0.5], 2), Cell(3, "count"), Cell(0.5, "rate", [0.0, 0.75], 2)]
    (plot,) = part.plots
    assert (plot.kind, plot.labels, plot.axis, plot.limit) == ("bars", ["?", "EN", "JA"], "share of cited mentions",
                                                               None)
    assert plot.series == {"invented": ([None, 0.0, 2 / 6], [None, [0.0, 0.0], [0.25, 0.5]]),
                           "real but not the gold article": ([None, 0.0, 0.5], [None, [0.0, 0.0], [0.0, 0.75]])}
    assert part.per_round is True and part.warnings == []


def test_a_run_with_nothing_graded_has_an_empty_table_and_no_plot():
    part = section(run(PAIRS[:2]))
    assert part.tables[0].rows == [] and part.plots == []


def test_the_answer_lists_cited_and_invented_articles():
    assert answer({"cited": ["709", "9999", "9998"], "invented": ["9999", "9998"]}) == \
        "cited 709, 9999, 9998; invented 9999, 9998"
    assert answer({"cited": ["709"], "invented": []}) == "cited 709"
    assert answer({"cited": None}) == "cited none"
    assert answer({"choice": "A"}) is None


def test_scenarios_group_by_question():
    assert group(asked("q7", "ja")) == "q7"
    assert group({"name": "x", "metadata": {}, "category": "Hallucination"}) == "Hallucination"
