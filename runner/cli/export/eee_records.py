"""Write a run as Every Eval Ever records (an aggregate and its instance-level rows), checked against the package's
own schemas before anything is written.

``auditpacks export eee RUN --out DIR [--schemas WHEEL_OR_DIR] [--model-id OWNER/NAME] [--developer ORG]``

The schemas come from ``--schemas`` (the every-eval-ever wheel, or a folder holding them), else from the installed
every_eval_ever package. See docs/results.md for what is carried over.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from auditpacks.runner.cli.export.inspect_eval import PACK_HELP, RUN_HELP


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", type=Path, metavar="RUN", help=RUN_HELP)
    parser.add_argument("--out", type=Path, required=True,
                        help="folder for the records (written under data/<benchmark>/<developer>/<model>/)")
    parser.add_argument("--schemas", type=Path, metavar="WHEEL_OR_DIR",
                        help="the every-eval-ever wheel, or a folder with its schemas (default: the installed package)")
    parser.add_argument("--pack", type=Path, help=PACK_HELP)
    parser.add_argument("--model-id", help="the model's id as OWNER/NAME (default: the run record's model)")
    parser.add_argument("--developer", help="the model's developer, for a model id with no OWNER/ prefix")
    parser.add_argument("--organization", default="unspecified",
                        help="who ran the evaluation (source_organization_name; default %(default)s)")
    parser.add_argument("--relationship", default="third_party",
                        help="the evaluator's relationship to the model: third_party (default), first_party, "
                             "collaborative or other")


def main(args: argparse.Namespace) -> int:
    from auditpacks.runner.reporting.exports.eee import build, check_relationship, write
    from auditpacks.runner.reporting.exports.eee_schemas import load_schemas
    from auditpacks.runner.reporting.exports.source import load_source

    relationship = check_relationship(args.relationship)
    schemas = load_schemas(args.schemas)  # before the run is read: no schema, one line saying how to get one
    records = build(load_source(args.run, args.pack), schemas, model_id=args.model_id, developer=args.developer,
                    organization=args.organization, relationship=relationship)
    aggregate, samples = write(records, args.out, schemas)
    print(f"wrote {len(records.aggregate['evaluation_results'])} evaluation results to {aggregate} and "
          f"{len(records.rows)} instance rows to {samples.name} (Every Eval Ever {schemas.version}, schemas from "
          f"{schemas.origin})")
    if "/" not in records.aggregate["model_info"]["id"] and not args.developer:
        print("note: the model id has no OWNER/ prefix; filed under developer 'unknown' (pass --model-id OWNER/NAME "
              "or --developer ORG)")
    return 0
