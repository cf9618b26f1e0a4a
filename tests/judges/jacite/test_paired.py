"""jacite's paired comparison keeps its languages apart: one row per language, so differences of opposite
sign in Japanese and English are both shown instead of cancelling in a pooled row (figures by hand)."""

from __future__ import annotations

import pytest

from auditpacks.judges.jacite.paired import cluster, compare


def triple(question: str, language: str, a: tuple[int, int], b: tuple[int, int], *, where: str = "metadata"):
    scenario = {"name": f"{question} - s", "metadata": {"question_id": question}}
    ja, jb = {"n_invented": a[0], "n_cited": a[1]}, {"n_invented": b[0], "n_cited": b[1]}
    if where == "metadata":
        scenario["metadata"]["language"] = language
    else:
        ja["language"] = jb["language"] = language
    return scenario, {"judgment": ja}, {"judgment": jb}


def opposite(where: str) -> list:
    """Japanese: A invents 1 or 3 of 4 citations per question, B none; English: the other way round."""
    rows = []
    for i in range(10):
        invented = 1 if i % 2 else 3
        rows.append(triple(f"ja{i}", "ja", (invented, 4), (0, 4), where=where))
        rows.append(triple(f"en{i}", "en", (0, 4), (invented, 4), where=where))
    return rows


@pytest.mark.parametrize("where", ["metadata", "judgment"])
def test_opposite_differences_per_language_are_two_rows_that_do_not_cancel(where):
    rows = {row["figure"]: row for row in compare(opposite(where))}
    assert list(rows) == ["invented rate (en)", "invented rate (ja)"]
    en, ja = rows["invented rate (en)"], rows["invented rate (ja)"]
    # Japanese: A 20 of 40 = 0.5, B 0 of 40; English the reverse; pooled both would be 20 of 80 = 0.25
    assert (ja["a"], ja["b"], ja["diff"]) == (0.5, 0.0, 0.5)
    assert (en["a"], en["b"], en["diff"]) == (0.0, 0.5, -0.5)
    assert (ja["clusters"], en["clusters"]) == (10, 10)   # each language resamples its own ten questions
    # each replicate's rate of the inventing run lies between 1/4 and 3/4, the other's is 0
    assert 0.25 <= ja["ci"][0] < 0.5 < ja["ci"][1] <= 0.75
    assert -0.75 <= en["ci"][0] < -0.5 < en["ci"][1] <= -0.25


def test_a_question_is_one_cluster_and_pairs_without_citations_are_left_out():
    paired = [triple("q1", "ja", (1, 2), (0, 2)), triple("q1", "ja", (1, 2), (1, 2)),
              triple("q2", "ja", (0, 4), (2, 4))]
    paired.insert(1, ({"name": "q3 - s", "metadata": {"language": "ja"}}, {"judgment": {"n_cited": 3, "n_invented": 3}},
                      {"judgment": {"verdict": "ERROR"}}))   # left out, and the pairs after it still count
    (row,) = compare(paired)
    # q1 sums to A 2/4, B 1/4; q2 A 0/4, B 2/4: A 2/8 = 0.25, B 3/8 = 0.375
    assert (row["figure"], row["a"], row["b"], row["clusters"]) == ("invented rate (ja)", 0.25, 0.375, 2)
    assert row["diff"] == pytest.approx(-0.125)
    assert cluster(paired[0][0]) == "q1" and cluster({"name": "n"}) == "n"


def test_a_scenario_without_a_language_is_its_own_row():
    paired = [triple("q1", "ja", (1, 2), (0, 2)), ({"name": "x"}, {"judgment": {"n_invented": 0, "n_cited": 1}},
                                                   {"judgment": {"n_invented": 1, "n_cited": 1}})]
    assert [row["figure"] for row in compare(paired)] == ["invented rate (?)", "invented rate (ja)"]
