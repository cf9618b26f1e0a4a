"""``--batch-api`` with garbage: bad result lines are errors of their requests, resubmitted by the next run, and no
reply already received is ever thrown away (a damaged batch log line is skipped, its batch downloaded again)."""

import json

import pytest

from auditpacks.core.runs.run_files import batches_name
from auditpacks.runner.settings.config import model_stem
from tests.runner.hosted.test_batch_run import batch_run
from tests.support.fake_hosted import FakeHosted
from tests.support.hosted_pack import write_hosted_pack, write_prices


@pytest.fixture
def setup(tmp_path):
    return write_hosted_pack(tmp_path / "long.json"), write_prices(tmp_path / "prices.yaml")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_garbage_lines_are_errors_of_their_requests_and_a_rerun_resubmits_only_those(tmp_path, setup, provider):
    pack, table = setup
    out = tmp_path / "out"
    with FakeHosted() as server:
        server.results_mode = "garbage"   # line 1 not JSON, line 2 JSON naming its request but not a result
        record = batch_run(server, pack, table, out, provider=provider)
        assert record.summary.completed == 7 and record.summary.errors == 2
        server.results_mode = None
        again = batch_run(server, pack, table, out, provider=provider)
    first, second = server.submitted
    assert len(server.batches[second]["requests"]) == 2   # the seven replies received are not asked for again
    assert again.summary.errors == 0 and again.summary.completed == 9


def test_a_damaged_batch_log_line_is_skipped_and_its_batch_downloaded_again_without_resubmitting(tmp_path, setup,
                                                                                                  capsys):
    pack, table = setup
    out = tmp_path / "out"
    log = out / batches_name(model_stem("gpt-4o-mini"))
    with FakeHosted() as server:
        batch_run(server, pack, table, out)
        lines = log.read_text(encoding="utf-8").splitlines()
        assert json.loads(lines[-1]) == {"collected": "batch_1", "status": "completed", "count": 9}
        lines[3] = lines[3][:40]   # a reply line cut short (a disk error, an editor)
        log.write_text("\n".join(lines) + "\n", encoding="utf-8")
        capsys.readouterr()
        again = batch_run(server, pack, table, out, fresh=True)
    assert "line 4 is damaged and skipped (the results of batch_1 are downloaded again)" in capsys.readouterr().err
    assert server.submitted == ["batch_1"] and again.summary.errors == 0 and again.summary.completed == 9
