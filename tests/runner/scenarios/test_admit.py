"""What a run checks before it sends anything: an empty pack, ERROR findings, and keys registered for redaction."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.core import redact
from auditpacks.packs.checks import ERROR, WARN, Finding
from auditpacks.runner.scenarios.admit import admit
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.scenarios.scenario_source import open_pack
from tests.support.tiny_pack import write_pack
from tests.support.run_config import run_config


@pytest.fixture(autouse=True)
def no_secrets():
    redact.forget_all()
    yield
    redact.forget_all()


def pack_like(scenarios=1, findings=()):
    return SimpleNamespace(path=Path("some/dir/p.json"), scenarios=[object()] * scenarios, findings=list(findings))


def test_a_checked_pack_is_admitted_and_the_keys_are_registered(tmp_path):
    pack = open_pack(write_pack(tmp_path / "p.json", 3), check=True)
    admit(pack, run_config(pack=tmp_path / "p.json", api_key="sk-target-123456", judge_api_key="sk-judge-654321"))
    assert redact.redact("a sk-target-123456 b sk-judge-654321") == f"a {redact.KEY_MARK} b {redact.KEY_MARK}"


def test_an_empty_pack_is_refused():
    with pytest.raises(RunError) as err:
        admit(pack_like(scenarios=0), run_config())
    assert str(err.value) == "p.json: the pack holds no scenario; nothing to run"


def test_error_findings_are_counted_and_the_first_named():
    findings = [Finding(WARN, "#0", "name", "short"), Finding(ERROR, "#1 'x'", "severity", "not a severity"),
                Finding(ERROR, "#2", "category", "missing")]
    with pytest.raises(RunError) as err:
        admit(pack_like(findings=findings), run_config())
    assert str(err.value) == ("p.json: 2 ERROR finding(s), first: ERROR #1 'x' [severity]: not a severity; "
                              "fix the pack (see auditpacks check) or run with --no-check")


def test_warnings_alone_are_admitted():
    admit(pack_like(findings=[Finding(WARN, "#0", "name", "short")]), run_config())


def test_credentials_in_every_url_of_the_run_are_registered_and_left_out_of_its_public_settings():
    config = run_config(base_url="http://a:pw-target-1@h:1/v1",
                        more_base_urls=("http://a:pw-replica-2@h:2/v1",), judge_base_url="http://j:pw-judge-3@h:3/v1",
                        decision_url="http://d:pw-decide-4@h:4/v1/systemone")
    admit(pack_like(), config)
    text = "pw-target-1 pw-replica-2 pw-judge-3 pw-decide-4"
    assert redact.redact(text) == " ".join([redact.KEY_MARK] * 4)
    public = config.public()
    assert (public["base_url"], public["more_base_urls"], public["judge_base_url"], public["decision_url"]) == (
        "http://h:1/v1", ["http://h:2/v1"], "http://h:3/v1", "http://h:4/v1/systemone")



@pytest.mark.parametrize("provider, variable", [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY"),
                                                ("groq", "GROQ_API_KEY")])
def test_a_key_taken_from_the_providers_variable_stays_registered(monkeypatch, provider, variable):
    """No ``--api-key``: the key read from the provider's variable is registered, so it is blanked out even
    once the variable is gone (not only while the environment still holds it)."""
    monkeypatch.setenv(variable, "sk-from-the-environment-77")
    admit(pack_like(), run_config(provider=provider))
    monkeypatch.delenv(variable)
    assert redact.redact("key sk-from-the-environment-77") == f"key {redact.KEY_MARK}"
