"""``auditpacks export eee`` in process: its arguments, defaults and help, the records written (model id, developer,
organization, relationship) with the line that sums them up and the note for a model id with no owner, and a
``--pack`` without a manifest refused. The schemas are a folder of permissive ones (the package's own are checked in
``tests/runner/reporting/exports/test_eee.py``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from auditpacks.runner.cli.export.eee_records import add_arguments, main
from auditpacks.runner.reporting.exports.source import ExportError
from tests.support.hand_runs import tiny_choice_run

NOTE = ("note: the model id has no OWNER/ prefix; filed under developer 'unknown' (pass --model-id OWNER/NAME "
        "or --developer ORG)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="auditpacks export eee")
    add_arguments(parser)
    return parser


def test_the_paths_and_the_defaults():
    args = _parser().parse_args(["results/tiny/latest", "--out", "eee", "--schemas", "w.whl", "--pack", "p.json"])
    assert (args.run, args.out, args.schemas, args.pack) == (Path("results/tiny/latest"), Path("eee"),
                                                             Path("w.whl"), Path("p.json"))
    assert (args.model_id, args.developer, args.organization, args.relationship) == (
        None, None, "unspecified", "third_party")


def test_the_records_folder_must_be_named(capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args(["results/tiny/latest"])
    assert "the following arguments are required: --out" in capsys.readouterr().err


@pytest.mark.parametrize("shown", [
    "usage: auditpacks export eee [-h] --out OUT [--schemas WHEEL_OR_DIR] [--pack PACK] [--model-id MODEL_ID] "
    "[--developer DEVELOPER] [--organization ORGANIZATION] [--relationship RELATIONSHIP] RUN",
    "RUN the run: its folder (holding one run record), its run record or its results file",
    "--out OUT folder for the records (written under data/<benchmark>/<developer>/<model>/)",
    "--schemas WHEEL_OR_DIR the every-eval-ever wheel, or a folder with its schemas (default: the installed package)",
    "--pack PACK the pack the run ran, for its manifest (default: found beside the run by name and sha256)",
    "--model-id MODEL_ID the model's id as OWNER/NAME (default: the run record's model)",
    "--developer DEVELOPER the model's developer, for a model id with no OWNER/ prefix",
    "--organization ORGANIZATION who ran the evaluation (source_organization_name; default unspecified)",
    "--relationship RELATIONSHIP the evaluator's relationship to the model: third_party (default), first_party, "
    "collaborative or other",
])
def test_the_help_names_each_argument_and_what_it_is(shown):
    assert shown in " ".join(_parser().format_help().split())


def permissive_schemas(tmp_path: Path) -> Path:
    """A schema folder (Every Eval Ever 0.3.0) whose schemas take any record."""
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    (schemas / "eval.schema.json").write_text('{"version": "0.3.0"}', encoding="utf-8")
    (schemas / "instance_level_eval.schema.json").write_text("{}", encoding="utf-8")
    return schemas


def export(tmp_path: Path, capsys, *flags: str) -> tuple[list[str], Path, dict]:
    """Export the tiny run (four results; a headline of three numbers) with permissive schemas: the lines printed,
    the aggregate record's path and content."""
    run = tiny_choice_run(tmp_path)
    record = json.loads(run.read_text(encoding="utf-8"))
    record["summary"]["headline"] = {"correct": 2, "graded": 3, "accuracy": 2 / 3}
    run.write_text(json.dumps(record), encoding="utf-8")
    schemas = permissive_schemas(tmp_path)
    out = tmp_path / "eee"
    assert main(_parser().parse_args([str(run), "--out", str(out), "--schemas", str(schemas), *flags])) == 0
    [aggregate] = [p for p in out.glob("data/*/*/*/*.json")]
    return capsys.readouterr().out.splitlines(), aggregate, json.loads(aggregate.read_text(encoding="utf-8"))


def test_the_records_carry_the_model_id_organization_and_relationship(tmp_path, capsys):
    lines, path, aggregate = export(tmp_path, capsys, "--model-id", "acme/m-1", "--organization", "Lab",
                                    "--relationship", "first_party")
    assert (aggregate["model_info"]["id"], path.parent.parent.name, path.parent.name) == ("acme/m-1", "acme", "m-1")
    source = aggregate["source_metadata"]
    assert (source["source_organization_name"], source["evaluator_relationship"]) == ("Lab", "first_party")
    assert lines == [f"wrote 3 evaluation results to {path} and 4 instance rows to {path.stem}_samples.jsonl "
                     "(Every Eval Ever 0.3.0, schemas from schemas)"]


@pytest.mark.parametrize("flags, developer, note", [((), "unknown", [NOTE]), (("--developer", "Org"), "Org", [])])
def test_a_model_id_with_no_owner_is_filed_under_the_developer_or_unknown_with_a_note(tmp_path, capsys, flags,
                                                                                       developer, note):
    lines, path, aggregate = export(tmp_path, capsys, *flags)
    assert (aggregate["model_info"]["id"], aggregate["model_info"]["developer"]) == ("m", developer)
    assert path.parent.parent.name == developer and lines[1:] == note


def test_a_pack_given_without_a_manifest_beside_it_is_refused(tmp_path):
    run = tiny_choice_run(tmp_path)
    (tmp_path / "other.json").write_text("[]", encoding="utf-8")
    schemas = permissive_schemas(tmp_path)
    with pytest.raises(ExportError, match=r"^other\.json: no manifest other\.manifest\.json beside it$"):
        main(_parser().parse_args([str(run), "--out", str(tmp_path / "eee"), "--schemas", str(schemas),
                                   "--pack", str(tmp_path / "other.json")]))
    assert not (tmp_path / "eee").exists()
