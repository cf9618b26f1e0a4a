"""A hosted run against a fake provider that caches prefixes: the record's tokens are the bill, the quote is
within a few percent of it, and document-first prompts earn more cache hits than stock ones."""

import io

import pytest

import auditpacks
from auditpacks.runner.cli.main import main
from auditpacks.runner.hosted.reconcile import cost_line
from auditpacks.runner.display.summary_view import print_summary
from auditpacks.runner.hosted import prices
from auditpacks.runner.models.usage import Usage
from tests.support.fake_hosted import FakeHosted
from tests.support.hosted_pack import write_hosted_pack, write_prices


def hosted_run(tmp_path, order):
    pack = write_hosted_pack(tmp_path / "long.json")
    table = write_prices(tmp_path / "prices.yaml")
    with FakeHosted() as server:
        _, record = auditpacks.run(pack, target="gpt-4o-mini", provider="openai", base_url=server.base_url,
                                   prices=table, prompt_order=order, out=tmp_path / order, quiet=True)
    return record, server.bill, prices.load(table), tmp_path / order


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return {order: hosted_run(tmp_path_factory.mktemp(order), order) for order in ("document-first", "stock")}


def test_record_tokens_are_the_fake_providers_bill(runs):
    for record, bill, _, _ in runs.values():
        assert record.summary.completed == 9
        incurred = record.cost["incurred"]
        assert {k: incurred[k] for k in bill} == bill


def test_document_first_earns_a_higher_cache_hit_rate_than_stock(runs):
    first = runs["document-first"][0].cost["incurred"]["cache_hit_rate"]
    stock = runs["stock"][0].cost["incurred"]["cache_hit_rate"]
    # three questions per document: the second and third read the document (about 2/3 of their prompt)
    assert first > 0.5 and stock == 0
    assert runs["document-first"][0].cost["way"] == "caching" and runs["stock"][0].cost["way"] == "plain"


def test_quote_is_within_a_few_percent_of_the_bill(runs):
    for record, bill, table, _ in runs.values():
        billed = prices.cost(Usage(**bill), table.lookup("gpt-4o-mini"))
        assert record.cost["incurred"]["cost"] == pytest.approx(billed)
        assert record.cost["quote"]["cost"] == pytest.approx(billed, rel=0.03)
        assert record.cost["price_table_date"] == "2026-12-01"


def test_the_summary_and_the_report_show_quote_bill_and_hit_rate(runs, capsys):
    record, _, _, folder = runs["document-first"]
    line = cost_line(record.cost)
    rate = record.cost["incurred"]["cache_hit_rate"]
    assert "incurred" in line and "quoted" in line and f"cache hit rate {rate:.0%}" in line
    printed = io.StringIO()
    print_summary(record, printed)
    assert line in printed.getvalue()
    assert main(["report", str(folder), "--format", "md"]) == 0
    assert "Quote and bill: cost (caching" in capsys.readouterr().out
