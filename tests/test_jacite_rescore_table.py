"""The rescore tables line for line on a tiny hand-worked case, and the row checks' edges."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.judges.jacite.rescore import aggregate, format_tables, load_benchmark


def _row(model, language, n, inv, n_v1, inv_v1, gold, cited, cited_v1):
    return {"model": model, "language": language, "n_cited": n, "n_invented": inv, "n_cited_v1": n_v1,
            "n_invented_v1": inv_v1, "gold_article": gold, "cited": cited, "cited_v1": cited_v1}


def test_tables_by_hand():
    rows = [
        _row("org/m", "de", 2, 0, 2, 0, "5", ["5", "6"], ["5", "6"]),
        _row("org/m", "en", 0, 0, 1, 0, "1", [], ["1"]),
        _row("r", "en", 4, 1, 4, 1, "9", ["1", "2", "3", "4"], []),
        _row("org/m", "ja", 4, 1, 5, 2, "1", ["1", "2", "3", "x"], ["2"]),
        _row("r", "ja", 4, 2, 4, 2, "1", ["1", "2", "3", "4"], ["1"]),
    ]
    groups = aggregate(rows)
    assert list(groups) == [("m", "ja"), ("m", "en"), ("m", "de"), ("r", "ja"), ("r", "en")]
    assert groups[("m", "ja")]["per_question"] == [(1, 4)]
    # Wilson 95%: 1/4 [4.6%, 69.9%]; 0/2 [0.0%, 65.8%] (centre = half = 0.9604 / 2.9208); 2/4 [15.0%, 85.0%]
    # one question per group, so every question bootstrap replicate is the point itself
    rows_out = [
        "model lang | first release | corrected   | rate    Wilson 95%       | question bootstrap 95% | gold hit",
        "m     ja   |    2/5       |    1/4      | 25.00% [4.6%, 69.9%]    | [25.0%, 25.0%]         | 1/1 (100.0%; first release 0)",
        "m     en   |    0/1       |    0/0      |    n/a                  | n/a                    | 0/1 (0.0%; first release 1)",
        "m     de   |    0/2       |    0/2      |  0.00% [0.0%, 65.8%]    | [0.0%, 0.0%]           | 1/1 (100.0%; first release 1)",
        "r     ja   |    2/4       |    2/4      | 50.00% [15.0%, 85.0%]   | [50.0%, 50.0%]         | 1/1 (100.0%; first release 1)",
        "r     en   |    1/4       |    1/4      | 25.00% [4.6%, 69.9%]    | [25.0%, 25.0%]         | 0/1 (0.0%; first release 0)",
        "",
        "Fisher exact, Japanese vs English (per mention):",
        "  m     JA 1/4 vs EN 0/0  ratio n/a  p = 1",
        "  r     JA 2/4 vs EN 1/4  ratio 2.00  p = 1",  # hypergeometric 5, 30, 30, 5 (/70): every table as likely or less
    ]
    assert format_tables(groups).splitlines() == rows_out


def test_fisher_line_without_citations_in_either_language():
    groups = aggregate([_row("m", "ja", 3, 0, 3, 0, "1", [], []), _row("m", "en", 2, 0, 2, 0, "1", [], [])])
    assert format_tables(groups).splitlines()[-1] == "  m     JA 0/3 vs EN 0/2  ratio n/a  p = n/a"


def _write(tmp_path, rows):
    path = tmp_path / "b.json"
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return path


ROW = {"id": "q1", "model": "m", "language": "ja", "law_id": "L", "gold_article": "1", "response": None,
       "cited_v1": ["1"], "invented_v1": [], "cited": [], "invented": [], "n_cited": 0, "n_invented": 0}


@pytest.mark.parametrize("change, message", [
    ({"n_cited_v1": True}, "b.json: row 0 (id q1): field 'n_cited_v1' is not a count"),
    ({"n_invented_v1": -1}, "b.json: row 0 (id q1): field 'n_invented_v1' is not a count"),
    ({"id": 5}, "b.json: row 0 (id 5): field 'id' is missing or not a string"),
    ({"invented_v1": "[1]"}, "b.json: row 0 (id q1): field 'invented_v1' is missing or not a list of article ids"),
])
def test_row_checks(tmp_path, change, message):
    with pytest.raises(PackError) as err:
        load_benchmark(_write(tmp_path, [{**ROW, **change}]))
    assert str(err.value) == message


def test_missing_counts_come_from_the_lists(tmp_path):
    (row,) = load_benchmark(_write(tmp_path, [ROW]))
    assert (row["response"], row["n_cited_v1"], row["n_invented_v1"]) == ("", 1, 0)
    no_id = {k: v for k, v in ROW.items() if k != "id"}
    with pytest.raises(PackError) as err:
        load_benchmark(_write(tmp_path, [no_id]))
    assert str(err.value) == "b.json: row 0 (id ?): field 'id' is missing or not a string"
    with pytest.raises(PackError) as err:
        load_benchmark(_write(tmp_path, {"rows": []}))
    assert str(err.value) == "b.json: a benchmark file is a JSON list of rows, found a dict"
    with pytest.raises(PackError) as err:
        load_benchmark(_write(tmp_path, [ROW, "x"]))
    assert str(err.value) == "b.json: row 1 is a str, not an object"
