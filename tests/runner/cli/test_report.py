"""``auditpacks report``'s command: its options, the format taken from ``--format`` or ``--out``'s suffix, HTML only
to a file, Markdown printed without one, packs found through ``--pack``, the drill-down cut at ``--max-scenarios``
and the line saying what was written."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from auditpacks.core.errors import PackError
from auditpacks.runner.cli import report
from tests.support.hand_runs import tiny_choice_run


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="auditpacks report")
    report.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_options_and_their_defaults():
    args = parse("a.run.json", "b")
    assert (args.runs, args.out, args.format, args.pack, args.max_scenarios) == (["a.run.json", "b"], None, None, [],
                                                                                 2000)
    args = parse("r", "--out", "x.html", "--format", "md", "--pack", "p1.json", "--pack", "p2.json",
                 "--max-scenarios", "5")
    assert (args.out, args.format, args.pack, args.max_scenarios) == (Path("x.html"), "md",
                                                                     [Path("p1.json"), Path("p2.json")], 5)
    with pytest.raises(SystemExit):
        parse("r", "--format", "pdf")
    with pytest.raises(SystemExit):
        parse()


def test_help_says_what_each_option_does(capsys):
    with pytest.raises(SystemExit):
        parse("--help")
    text = " ".join(capsys.readouterr().out.split())
    for line in ("[--pack PACK.json] [--max-scenarios N] RUN [RUN ...]",
                 "RUN a run record (<model>.run.json), its results file, or a folder of runs",
                 "--out OUT file to write (required for HTML; Markdown is printed without it)",
                 "--format {html,md} html (default, or from --out's suffix) or md (Markdown, for CI logs)",
                 "--pack PACK.json the pack a run ran, when it is not beside the run (repeatable; matched by sha256)",
                 "--max-scenarios N scenarios per run in the drill-down (default 2000)"):
        assert line in text


@pytest.mark.parametrize("argv, fmt", [
    ((), "html"), (("--out", "r.html"), "html"), (("--out", "r.md"), "md"), (("--out", "R.MD"), "md"),
    (("--out", "r.markdown"), "md"), (("--out", "r.txt"), "html"), (("--out", "r.md", "--format", "html"), "html"),
    (("--format", "md"), "md"),
])
def test_the_format_is_the_option_else_the_outputs_suffix_else_html(argv, fmt):
    assert report.output_format(parse("r", *argv)) == fmt


def test_an_html_report_needs_a_file(tmp_path):
    with pytest.raises(ValueError, match=r"^report: --out FILE is required for an HTML report \(or use --format md\)$"):
        report.main(parse(str(tiny_choice_run(tmp_path))))


def test_markdown_without_a_file_is_printed(tmp_path, capsys):
    assert report.main(parse(str(tiny_choice_run(tmp_path)), "--format", "md")) == 0
    out = capsys.readouterr().out
    assert out.startswith("# auditpacks report\n") and "| m · tiny.json |" in out and "<svg" not in out
    assert "wrote" not in out


def test_an_html_file_is_written_with_its_plots_and_the_run_count_said(tmp_path, capsys):
    run = tiny_choice_run(tmp_path)
    out = tmp_path / "report.html"
    assert report.main(parse(str(run), "--out", str(out))) == 0
    assert capsys.readouterr().out == f"wrote {out} (1 run)\n"
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and "<svg" in html
    assert "more scenarios are not shown" not in html


def test_a_markdown_file_from_its_suffix_covers_every_run_given(tmp_path, capsys):
    first = tiny_choice_run(tmp_path / "a")
    second = tiny_choice_run(tmp_path / "b")
    out = tmp_path / "report.md"
    assert report.main(parse(str(first), str(second), "--out", str(out))) == 0
    assert capsys.readouterr().out == f"wrote {out} (2 runs)\n"
    assert out.read_text(encoding="utf-8").startswith("# auditpacks report\n")


def test_the_drill_down_is_cut_at_max_scenarios(tmp_path):
    out = tmp_path / "report.html"
    assert report.main(parse(str(tiny_choice_run(tmp_path)), "--out", str(out), "--max-scenarios", "1")) == 0
    assert "3 more scenarios are not shown (the report lists the first 1)." in out.read_text(encoding="utf-8")


def test_a_pack_that_is_not_beside_the_run_is_found_through_pack(tmp_path, capsys):
    run = tiny_choice_run(tmp_path / "made")
    moved = tmp_path / "elsewhere"
    shutil.copytree(run.parent, moved)
    pack = tmp_path / "made" / "tiny.json"
    shutil.move(pack, tmp_path / "kept.json")
    with pytest.raises(PackError, match="not found; pass --pack PACK.json"):
        report.main(parse(str(moved / run.name), "--format", "md"))
    assert report.main(parse(str(moved / run.name), "--format", "md", "--pack", str(tmp_path / "kept.json"))) == 0
    assert capsys.readouterr().out.startswith("# auditpacks report\n")
