"""How the report writes its values (percentages, signed differences, intervals, numbers, Markdown-safe cells, table
lines) and renders its templates: HTML autoescaped, Markdown left as written, an undefined name an error."""

from __future__ import annotations

import math

import pytest
from jinja2 import DictLoader, UndefinedError

from auditpacks.judges.figures import Cell
from auditpacks.runner.reporting import render as r
from auditpacks.runner.reporting.report import build_context
from auditpacks.runner.reporting.runs import load_runs
from tests.support.hand_runs import tiny_choice_run


@pytest.mark.parametrize("value, digits, text", [
    (0.1234, 1, "12.3%"), (0.1234, 2, "12.34%"), (1, 1, "100.0%"), (0, 0, "0%"), (-0.05, 1, "-5.0%"),
    (None, 1, "n/a"), (math.nan, 1, "n/a"), (math.inf, 1, "n/a"), (True, 1, "n/a"), ("0.5", 1, "n/a"),
])
def test_pct(value, digits, text):
    assert r.pct(value, digits) == text


def test_pct_defaults_to_one_decimal_and_signed_pct_marks_gains():
    assert r.pct(0.5) == "50.0%"
    assert [r.signed_pct(v) for v in (0.05, 0, -0.05, None)] == ["+5.0%", "+0.0%", "-5.0%", "n/a"]


def test_intervals():
    assert r.interval([0.1, 0.25]) == "[10.0%, 25.0%]"
    assert r.interval((-0.1, 0.2), True) == "[-10.0%, +20.0%]"
    assert r.interval([-0.1, 0.2]) == "[-10.0%, 20.0%]"
    assert r.interval(None) == r.interval([]) == "n/a"
    assert r.shown_interval({"ci": [-0.1, 0.2]}) == "[-10.0%, +20.0%]"
    assert r.shown_interval({"ci": [-0.1, 0.2], "ci_withheld": "3 clusters"}) == "withheld"
    assert r.shown_interval({}) == "n/a"


def test_numbers_have_three_significant_digits_and_undefined_ones_are_na():
    assert [r.number(v) for v in (0.012345, 1234.5, 7, "x", None, math.nan, -math.inf)] == [
        "0.0123", "1.23e+03", "7", "x", "n/a", "n/a", "n/a"]


def test_a_figure_is_a_percentage_when_a_share_else_a_number():
    assert r.figure_value({"value": 0.25, "unit": "%"}) == "25.0%"
    assert r.figure_value({"value": 0.25, "unit": "p"}) == "0.25"
    assert r.figure_value({"value": 12, "unit": "count"}) == "12"


def test_a_compared_rows_decision_names_what_decided_it():
    assert r.decision({"decision": "significant", "decided_by": "interval and McNemar agree"}) \
        == "significant (interval and McNemar agree)"
    assert r.decision({"decision": "", "decided_by": "x"}) == r.decision({}) == "–"


def test_markdown_cells_carry_no_html_no_pipes_and_one_line():
    assert r.md_cell("<b>a</b> & b | c\r\nd") == "&lt;b&gt;a&lt;/b&gt; &amp; b \\| c  d"
    assert r.md_cell(3) == "3"
    assert r.md_line(["a", "b"]) == "| a | b |"
    assert r.md_rule(["a", "b", "c"]) == "|---|---|---|"


def test_table_cells_by_unit():
    assert r.cell(Cell(0.5, "%")) == "50.0%"
    assert r.cell(Cell(0.5, "%", digits=0)) == "50%"
    assert r.cell(Cell(0.5, "rate", interval=[0.25, 0.75])) == "50.0% [25.0%, 75.0%]"
    assert r.cell(Cell(0.5, "rate", digits=0)) == "50% n/a"
    assert r.cell(Cell([0.1, 0.2], "interval")) == "[10.0%, 20.0%]"
    assert r.cell(Cell(4, "count")) == r.cell(Cell(4)) == "4"
    assert r.cell_md(Cell("a|b")) == "a\\|b"
    assert r.cell_md(Cell(0.5, "%")) == "50.0%" and r.cell_md(Cell("<i>", "count")) == "<i>"


@pytest.fixture()
def templates():
    """The report's environment with templates of each kind of name."""
    env = r.environment()
    body = "  {% if x %}\n{{ x }}|{{ x | pct }}|{{ x | md }}\n  {% endif %}\nend"
    env.loader = DictLoader({"t.html.j2": body, "t.md.j2": body, "t.txt": body, "u.html.j2": "{{ missing }}"})
    return env


def test_html_is_autoescaped_markdown_is_not_and_any_other_template_is(templates):
    # block lines leave neither their indent nor their line end
    assert templates.get_template("t.html.j2").render(x="<b>") == "&lt;b&gt;|n/a|&amp;lt;b&amp;gt;\nend"
    assert templates.get_template("t.md.j2").render(x="<b>") == "<b>|n/a|&lt;b&gt;\nend"
    assert templates.get_template("t.txt").render(x="<b>").startswith("&lt;b&gt;|")
    with pytest.raises(UndefinedError):
        templates.get_template("u.html.j2").render()


def test_every_filter_is_registered():
    filters = r.environment().filters
    assert {name: filters[name] for name in ("pct", "signed_pct", "interval", "number", "figure_value", "md", "cell",
                                             "cell_md", "md_line", "md_rule", "shown_interval", "decision")} == {
        "pct": r.pct, "signed_pct": r.signed_pct, "interval": r.interval, "number": r.number,
        "figure_value": r.figure_value, "md": r.md_cell, "cell": r.cell, "cell_md": r.cell_md, "md_line": r.md_line,
        "md_rule": r.md_rule, "shown_interval": r.shown_interval, "decision": r.decision}


def test_a_report_renders_as_html_or_markdown(tmp_path):
    context = build_context(load_runs([tiny_choice_run(tmp_path)]), plots_on=False)
    html = r.render(context)
    assert html.startswith("<!doctype html>") and r.render(context, "html") == html
    assert r.render(context, "md").startswith("# auditpacks report\n")
    with pytest.raises(KeyError):
        r.render({}, "pdf")
