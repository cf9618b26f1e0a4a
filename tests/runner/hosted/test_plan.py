"""The quote through ``auditpacks run --dry-run``: four ways to run, sending nothing; a model without a price."""

import pytest

from auditpacks.runner.cli.main import main
from tests.support.fake_hosted import FakeHosted
from tests.support.hosted_pack import write_hosted_pack
from tests.support.iustitia import FIXTURE, SMOKE_FILE

WAYS = ("plain", "prompt caching", "batch API", "batch + caching")


@pytest.mark.parametrize("pack", ["iustitia", "jacite"])
def test_dry_run_sends_nothing_and_prints_four_costs(tmp_path, capsys, pack):
    if pack == "iustitia":
        path = FIXTURE / SMOKE_FILE
    else:
        assert main(["build", "jacite", "--out", str(tmp_path / "jacite.json"), "--limit", "6"]) == 0
        path = tmp_path / "jacite.json"
    capsys.readouterr()
    with FakeHosted() as server:
        code = main(["run", "--pack", str(path), "--dry-run", "--target", "gpt-4o-mini", "--base-url",
                     server.base_url, "--out", str(tmp_path / "out")])
        assert server.chat_requests == [] and server.submitted == []
    captured = capsys.readouterr()
    out = captured.out
    assert code == 0 and "nothing was sent" in out, captured.err
    for way in WAYS:
        assert way in out
    assert out.count("$") >= 4
    assert not (tmp_path / "out").exists()


def test_json_quote_and_an_unpriced_model(tmp_path, capsys):
    import json

    pack = write_hosted_pack(tmp_path / "long.json", documents=1)
    assert main(["run", "--pack", str(pack), "--dry-run", "--target", "my-local-model", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    model = data["models"][0]
    assert model["priced"] is False and model["cost"]["plain"] is None and model["prompt_tokens"] > 3000
