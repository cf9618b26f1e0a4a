"""One run, start to finish: set up (:mod:`~auditpacks.runner.run.prepare`), execute
(:mod:`~auditpacks.runner.run.execution`), record (:mod:`~auditpacks.runner.run.recording`).

Writes ``DIR/<model>.json`` (simpleaudit ``AuditResults``, loadable with
``AuditResults.load``; one file per round with ``--repeats``), ``DIR/<model>.run.json``
(the run record: what was run, how, on which pack hash; never a key) and
``DIR/<model>.journal.jsonl`` (finished scenarios, for resuming); DIR and the model's
file name are chosen in :mod:`~auditpacks.runner.store.layout`.
"""

from __future__ import annotations

from pathlib import Path

from auditpacks.core.runs.record import RunRecord
from auditpacks.runner.readiness.early import Admitted, refuse_early
from auditpacks.runner.run.execution import execute
from auditpacks.runner.run.prepare import set_up
from auditpacks.runner.run.recording import record
from auditpacks.runner.settings.config import RunConfig
from auditpacks.runner.store.layout import located


def run(config: RunConfig, admitted: Admitted | None = None) -> RunRecord:
    """Run the pack and return the run record (also written to the run file). ``admitted``: the pack, its
    selection and judge from :func:`~auditpacks.runner.readiness.early.refuse_early`, when the caller has them."""
    admitted = admitted if admitted is not None else refuse_early(config)
    with set_up(config, admitted) as prepared:   # the embedded model, when needed, runs until execute ends
        executed = execute(prepared)
    return record(prepared, executed)


def results_path(config: RunConfig, finished: RunRecord) -> Path:
    """Where the run's (first round's) AuditResults file is."""
    return finished.results_files(located(config, finished))[0]
