"""The report's opening, end to end: the runs overview in Markdown too, a CJK-font note only where CJK text is shown,
a run's badge line, and documents named by their source ids."""

from __future__ import annotations

import json

from auditpacks.runner.cli.main import main
from tests.support.six_runs import write_six_runs

NOTE = "it needs a CJK font"


def report_md(tmp_path, monkeypatch, capsys) -> str:
    monkeypatch.chdir(tmp_path)
    assert main(["report", "results", "--format", "md"]) == 0
    return capsys.readouterr().out


def test_overview_rows_and_no_font_note_without_cjk(tmp_path, monkeypatch, capsys):
    write_six_runs(tmp_path)
    text = report_md(tmp_path, monkeypatch, capsys)
    assert text.index("## Runs") < text.index("## Headline figures")
    assert "| n · beta.json | closed questions (Iustitia Marigonae style) | 4 | 0 | " \
           "agreement (micro) | 50.0% |" in text
    assert NOTE not in text


def test_a_japanese_reply_brings_the_font_note(tmp_path, monkeypatch, capsys):
    write_six_runs(tmp_path)
    path = tmp_path / "results" / "run1" / "m.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["results"][0]["conversation"][-1]["content"] = "A\n民法第709条による。"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert NOTE in report_md(tmp_path, monkeypatch, capsys)


def test_a_runs_badge_line_carries_one_set_of_figures(tmp_path, monkeypatch, capsys):
    write_six_runs(tmp_path)
    text = report_md(tmp_path, monkeypatch, capsys)
    # run1: 3 of 4 correct, 1 wrong; simpleaudit's severity score is left to the run record and --json
    assert "closed questions (Iustitia Marigonae style), judge choice_match, 4 scenarios: correct 3, wrong 1." in text
    assert "simpleaudit score" not in text


def test_documents_are_named_by_their_source_ids(tmp_path, monkeypatch, capsys):
    from auditpacks.judges.reader import Reader
    from auditpacks.runner.reporting.outcomes import document_names

    write_six_runs(tmp_path)     # beta's scenarios carry one document each, about judgment V000<i // 3>
    out = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "results" / "run4"), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert '<summary>V0000 (' in html and '<summary>V0001 (' in html and '<summary>doc-' not in html
    icj = Reader.of("citations", {"name": "icj"})   # ICJ's documents: the case
    assert document_names({"metadata": {"case_id": "131"}, "documents": [{"id": "memorial"}, "x"]}, 2, icj) == [
        "memorial", "131 (2)"]
    assert document_names({"documents": ["x"]}, 1, icj) == [None]
    assert document_names({"metadata": {"case_id": "131"}, "documents": ["x"]}, 1, Reader("checklist")) == [None]
