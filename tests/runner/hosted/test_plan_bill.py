"""The quote against the bill of fake providers that count real tokens (tiktoken's o200k_base, the Claude
tokenizer) and cache exact prefixes: within 5% for OpenAI and 10% for Anthropic, on an Iustitia pack (long
Albanian judgments, document-first) and a jacite pack (short Japanese questions), live and in batches."""

import pytest

import auditpacks
from tests.support.fake_hosted import FakeHosted
from tests.support.hosted_pack import benchmark_packs

MODELS = {"openai": ("gpt-4o-mini", 0.05), "anthropic": ("claude-sonnet-4-0", 0.10)}


@pytest.fixture(scope="module")
def packs(tmp_path_factory):
    return benchmark_packs(tmp_path_factory.mktemp("packs"))


def billed_run(pack, provider, out, **options):
    model, _ = MODELS[provider]
    with FakeHosted() as server:
        url = server.url if provider == "anthropic" else server.base_url
        _, record = auditpacks.run(pack, target=model, provider=provider, base_url=url, api_key="sk-test", out=out,
                                   quiet=True, batch_poll=0.05, **options)
    return record, server.bill


@pytest.mark.parametrize("provider", sorted(MODELS))
@pytest.mark.parametrize("name", ["iustitia.json", "jacite.json"])
@pytest.mark.parametrize("batch", [False, True], ids=["live", "batch"])
def test_quote_is_within_its_margin_of_the_bill(packs, tmp_path, provider, name, batch):
    record, bill = billed_run(packs / name, provider, tmp_path / "out", batch_api=batch)
    cost = record.cost
    assert record.summary.errors == 0 and {k: cost["incurred"][k] for k in bill} == bill
    if name == "iustitia.json":   # long judgments, document-first: the cache is used (jacite's prompts are short)
        assert cost["way"] == ("both" if batch else "caching")
    margin = MODELS[provider][1]
    assert cost["quote"]["cost"] == pytest.approx(cost["incurred"]["cost"], rel=margin)
    low, high = cost["quote"]["range"]
    assert low <= cost["incurred"]["cost"] <= high


def test_iustitia_caching_figures_are_the_providers(packs, tmp_path):
    """Document-first: each judgment is written once and read by its other questions, as quoted (OpenAI in
    128-token steps past 1,024; Anthropic to the marked document block)."""
    for provider in MODELS:
        record, bill = billed_run(packs / "iustitia.json", provider, tmp_path / provider)
        quoted = record.cost["quote"]["usage"]
        assert quoted["cached_input"] == pytest.approx(bill["cached_input"], rel=0.10)
        if provider == "openai":
            assert bill["cached_input"] % 128 == 0 and quoted["cached_input"] % 128 == 0
        else:
            assert quoted["cache_write"] == pytest.approx(bill["cache_write"], rel=0.05)
