"""Reading a price table: each field's defaults, and each way a table can be wrong as one line naming the file, the
model and the field; looking a model up with or without its provider prefix."""

from __future__ import annotations

import pytest
import yaml

from auditpacks.runner.hosted import prices

ROW = "{input: 1, cached_input: 0, cache_write: 1, output: 2}"
DEFAULTS = ("{batch_discount: 0.5, cache_min_tokens: 1024, input_tokens_per_s: 1000, output_tokens_per_s: 50, "
            "request_overhead_s: 0.5, expected_output_tokens: 100}")


def write(tmp_path, text: str):
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def table(tmp_path, models: str = f"{{m: {ROW}}}", extra: str = "") -> prices.PriceTable:
    return prices.load(write(tmp_path, f'date: "2026-01-31"\ndefaults: {DEFAULTS}\n{extra}models: {models}\n'))


def test_fields_left_out_take_their_defaults(tmp_path):
    t = table(tmp_path)
    price = t.lookup("m")
    assert (t.currency, t.batch_turnaround_hours, t.source) == ("USD", 24.0, str(tmp_path / "p.yaml"))
    assert t.defaults["batch_discount"] == 0.5 and t.defaults["cache_min_tokens"] == 1024
    assert (price.model, price.provider, price.cached_input) == ("m", "openai", 0.0)   # a price of 0 is a price
    assert (price.cache_step_tokens, price.source, price.checked) == (128, "", "")  # OpenAI caches in 128s


def test_fields_given_are_kept(tmp_path):
    t = table(tmp_path, f"{{m: {{provider: anthropic, input: 1, cached_input: 0.1, cache_write: 1.25, output: 5, "
                        f"cache_step_tokens: 64, source: 'https://example.com/pricing', checked: '2026-01-30'}}, "
                        f"z: {{provider: anthropic, input: 1, cached_input: 0, cache_write: 1, output: 2, "
                        f"cache_step_tokens: 0}}}}",
              "currency: EUR\nbatch_turnaround_hours: 2\n")
    m = t.lookup("m")
    assert (t.currency, t.batch_turnaround_hours, m.provider) == ("EUR", 2.0, "anthropic")
    assert (m.cache_step_tokens, m.source, m.checked) == (64, "https://example.com/pricing", "2026-01-30")
    assert t.lookup("z").cache_step_tokens == 1   # a step of 0 is read as caching to the token


def test_a_model_is_found_by_its_full_name_or_its_last_part(tmp_path):
    t = table(tmp_path, f"{{m: {ROW}, org/special: {ROW}}}")
    assert t.lookup("org/special").model == "org/special"   # listed with its prefix: found as it is
    assert t.lookup("openai/m").model == "m" and t.lookup("a/b/m").model == "m"
    assert t.lookup("special") is None and t.lookup("other/special") is None


@pytest.mark.parametrize("models, message", [
    ("{m: [1, 2]}", "p.yaml: models.m: not a mapping"),
    (f"{{m: {{input: 1, cached_input: 0, cache_write: 1}}}}", "p.yaml: models.m: field output is missing"),
    (f"{{m: {{input: true, cached_input: 0, cache_write: 1, output: 2}}}}",
     "p.yaml: models.m: field input is True, not a non-negative number"),
    (f"{{m: {{input: '3', cached_input: 0, cache_write: 1, output: 2}}}}",
     "p.yaml: models.m: field input is '3', not a non-negative number"),
    (f"{{m: {{input: -0.5, cached_input: 0, cache_write: 1, output: 2}}}}",
     "p.yaml: models.m: field input is -0.5, not a non-negative number"),
    (f"{{m: {{input: 1, cached_input: 0, cache_write: 1, output: 2, cache_step_tokens: -128}}}}",
     "p.yaml: models.m: field cache_step_tokens is -128, not a non-negative number"),
])
def test_a_bad_row_is_one_line_naming_file_model_and_field(tmp_path, models, message):
    with pytest.raises(prices.PriceError) as caught:
        table(tmp_path, models)
    assert str(caught.value) == message


def test_a_bad_table_is_one_line_naming_the_file_and_field(tmp_path):
    path = tmp_path / "p.yaml"
    cases = {
        "- a list\n": f"{path}: field models is missing (a mapping of model name to prices)",
        'date: "x"\n': f"{path}: field models is missing (a mapping of model name to prices)",
        f"models: {{m: {ROW}}}\n": f"{path}: field date is missing (when were these prices read?)",
        f'date: "x"\ndefaults: [1]\nmodels: {{}}\n': f"{path}: field defaults is not a mapping",
        f'date: "x"\nbatch_turnaround_hours: soon\nmodels: {{}}\n':
            "p.yaml: field batch_turnaround_hours is 'soon', not a non-negative number",
    }
    for text, message in cases.items():
        with pytest.raises(prices.PriceError) as caught:
            prices.load(write(tmp_path, text))
        assert str(caught.value) == message, text


def test_unreadable_and_not_yaml(tmp_path):
    with pytest.raises(prices.PriceError) as caught:
        prices.load(tmp_path / "absent.yaml")
    assert str(caught.value) == f"{tmp_path / 'absent.yaml'}: cannot read the price table (No such file or directory)"
    text = "date: [unclosed\nmodels: {}\n"
    try:
        yaml.safe_load(text)
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0]
    with pytest.raises(prices.PriceError) as caught:
        prices.load(write(tmp_path, text))
    assert str(caught.value) == f"{tmp_path / 'p.yaml'}: not YAML ({first})"
