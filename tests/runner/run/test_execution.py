"""A set-up run executed: every round of its runnable scenarios, the journal closed when the rounds end, and
no panel without further judges."""

from __future__ import annotations

from auditpacks.runner.readiness.early import refuse_early
from auditpacks.runner.run.execution import execute
from auditpacks.runner.run.prepare import set_up
from auditpacks.runner.store.journal import Journal
from tests.support.fake_openai import FakeOpenAI
from tests.support.run_config import run_config
from tests.support.runs import journal_entries
from tests.support.tiny_pack import write_pack


def test_every_round_runs_and_the_journal_is_closed_after(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 3)
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        config = run_config(pack=pack, out=out, target="m", base_url=server.base_url, repeats=2, show_progress=False)
        with set_up(config, refuse_early(config)) as prepared:
            executed = execute(prepared)
        assert server.chat_requests == 6   # 3 scenarios, 2 rounds
    assert [len(o.results) for o in executed.outcomes] == [3, 3] and executed.panel is None
    assert len(journal_entries(out)) == 6
    Journal(out / "m.journal.jsonl", prepared.fingerprint).open().close()   # the lock is free again
    assert not (out / "m.run.json").exists()   # recording is the next step
