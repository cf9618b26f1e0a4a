"""The probe's steps in process, on a fake client and scripted checks: its budgets, which checks run with
what, how failures and an unreachable endpoint are recorded, and the lines it makes for a run."""

from __future__ import annotations

import pytest

from auditpacks.runner.systemone import decision_probe as dp
from auditpacks.runner.systemone.probe_client import BudgetSpent
from auditpacks.runner.systemone.protocol import SystemOneError

ORDER = ["schema", "option_order", "determinism", "option_limit", "request_size_limit", "state_window"]


class FakeClient:
    """Stands in for ProbeClient: keeps what it was made with, counts nothing but what a test sets."""

    made: list[dict] = []

    def __init__(self, url, **kwargs):
        self.url, self.kwargs, self.requests, self.closed = url, kwargs, 7, False
        FakeClient.made.append({"url": url, **kwargs})

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True


@pytest.fixture
def script(monkeypatch):
    """Patches the client and every check; ``script[name]`` is what that check returns (or raises)."""
    FakeClient.made = []
    found: dict = {name: {"status": "ok"} for name in ORDER}
    calls: list = []
    monkeypatch.setattr(dp, "ProbeClient", FakeClient)

    def fake(name):
        def run(client, model, *args, **kwargs):
            calls.append((name, model, args, kwargs))
            outcome = found[name]
            if isinstance(outcome, Exception):
                raise outcome
            return dict(outcome)
        return run

    for module, names in ((dp.probe_checks, ORDER[:3]), (dp.probe_limits, ORDER[3:])):
        for name in names:
            monkeypatch.setattr(module, name, fake(name))
    found["calls"] = calls
    return found


def test_the_full_probe_runs_every_check_within_its_budget(script):
    result = dp.probe("http://host/v1?key=abcdef1234", model="m", headers={"X": "1"}, timeout=5.0,
                      max_options=9, max_bytes=999, window_chars=5000)
    assert FakeClient.made == [{"url": "http://host/v1?key=abcdef1234", "headers": {"X": "1"}, "timeout": 5.0,
                                "max_requests": 80, "seconds": 300.0}]
    assert result == {"url": "http://host/v1?key=[api key]", "model": "m", "mode": "full", "requests": 7,
                      "checks": {name: {"status": "ok"} for name in ORDER}, "warnings": []}
    assert [c[0] for c in script["calls"]] == ORDER and {c[1] for c in script["calls"]} == {"m"}
    limits = {c[0]: (c[2], c[3]) for c in script["calls"][3:]}
    assert limits == {"option_limit": ((9,), {}), "request_size_limit": ((999,), {}),
                      "state_window": ((), {"noise": 0, "bound": 5000})}


def test_the_defaults_wait_half_a_minute_and_search_up_to_256_options_and_4_mib(script):
    dp.probe("http://host")
    assert FakeClient.made[0]["timeout"] == 30.0 and FakeClient.made[0]["headers"] is None
    limits = {c[0]: (c[2], c[3]) for c in script["calls"][3:]}
    assert limits == {"option_limit": ((256,), {}), "request_size_limit": ((4 * 2**20,), {}),
                      "state_window": ((), {"noise": 0, "bound": 256 * 2**10})}


def test_the_short_probe_leaves_out_the_limit_searches(script):
    script["determinism"] = {"status": "ok", "max_probability_change": 0.03}
    result = dp.probe("http://host", short=True, window_chars=2048)
    assert FakeClient.made[0]["max_requests"] == 20 and FakeClient.made[0]["seconds"] == 60.0
    assert result["mode"] == "short" and result["model"] == "probe" and list(result["checks"]) == [
        "schema", "option_order", "determinism", "state_window"]
    assert script["calls"][-1] == ("state_window", "probe", (),
                                   {"noise": 0.03, "bound": 2048, "sizes": (2048,), "steps": 4})


def test_a_given_budget_replaces_the_default(script):
    dp.probe("http://host", max_requests=3, seconds=1.5)
    assert (FakeClient.made[0]["max_requests"], FakeClient.made[0]["seconds"]) == (3, 1.5)


@pytest.mark.parametrize("size, bound", [
    ({"status": "ok", "refused_bytes": 4000, "accepted_bytes": 3000}, 3000),   # the canary stays within it
    ({"status": "ok", "refused_bytes": 9000, "accepted_bytes": 8000}, 5000),   # never past the given bound
    ({"status": "ok", "refused_bytes": None, "accepted_bytes": 3000}, 5000),   # nothing refused: no new bound
])
def test_a_refused_request_size_bounds_the_state_window(script, size, bound):
    script["request_size_limit"] = size
    dp.probe("http://host", window_chars=5000)
    assert script["calls"][-1][3]["bound"] == bound


@pytest.mark.parametrize("error", ["ConnectError: refused", "ConnectTimeout: 5 s"])
def test_an_endpoint_that_does_not_answer_runs_nothing_more(script, error):
    script["schema"] = {"status": "failed", "detail": error}
    seen = []
    result = dp.probe("http://host", on_check=lambda name, found: seen.append(name))
    assert result["checks"]["schema"] == {"status": "failed", "detail": error, "reachable": False}
    assert all(result["checks"][name] == {"status": "not run", "detail": "the endpoint did not answer"}
               for name in ORDER[1:])
    assert [c[0] for c in script["calls"]] == ["schema"] and seen == []
    assert result["warnings"] == [f"schema: failed: {error}"]


def test_a_schema_failure_that_is_not_a_connection_keeps_probing(script):
    script["schema"] = {"status": "failed", "detail": "HTTP 500: ConnectError in the body"}
    seen = []
    result = dp.probe("http://host", on_check=lambda name, found: seen.append((name, found["status"])))
    assert "reachable" not in result["checks"]["schema"] and len(script["calls"]) == 6
    assert seen == [("schema", "failed")] + [(name, "ok") for name in ORDER[1:]]


def test_a_spent_budget_and_a_protocol_error_are_recorded_not_raised(script):
    script["option_order"] = SystemOneError("options came back in another order")
    script["determinism"] = BudgetSpent("the probe's budget of 5 requests is spent")
    result = dp.probe("http://host")
    checks = result["checks"]
    assert checks["option_order"] == {"status": "failed", "detail": "options came back in another order"}
    assert checks["determinism"] == {"status": "not run", "detail": "the probe's budget of 5 requests is spent"}
    assert script["calls"][-1][3]["noise"] == 0   # no determinism figure: no noise allowed for
    assert result["warnings"] == ["option order: failed: options came back in another order"]


def test_warnings_and_notes_name_each_failed_or_inconclusive_check():
    checks = {"schema": {"status": "ok"}, "option_order": {"status": "failed", "detail": "moved"},
              "state_window": {"status": "inconclusive"}, "option_limit": {"status": "not run", "detail": "x"}}
    lines = ["option order: failed: moved", "state window: inconclusive: "]
    assert dp.warnings(checks) == lines
    assert dp.notes({"warnings": lines}) == [f"decision probe: {line}" for line in lines]
    assert dp.notes(None) == [] and dp.notes({}) == []


def test_longest_state_reads_text_or_content_and_skips_the_rest():
    scenarios = [{"documents": [{"content": "abcd"}, {"text": 12}, None, "ef"]}, {"documents": None},
                 {"documents": [{"text": "", "content": "xyz"}]}]
    assert dp.longest_state(scenarios) == 6 and dp.longest_state([]) == 0


class Target:
    url, model, headers = "http://user:pw@host/decide", "judge-m", {"Authorization": "k"}


@pytest.mark.parametrize("state, timeout, window, waited", [
    (10, 90.0, 1024, 60.0),                      # at least 1 KiB, at most a minute a request
    (5000, 12.0, 5000, 12.0),
    (dp.WINDOW_BOUND + 1, 30.0, dp.WINDOW_BOUND, 30.0),
])
def test_before_run_sends_the_short_probe_and_warns(monkeypatch, capsys, state, timeout, window, waited):
    sent = {}

    def fake_probe(url, **kwargs):
        sent.update(url=url, **kwargs)
        return {"warnings": ["option order: failed: at http://user:pw@host/decide"]}

    monkeypatch.setattr(dp, "probe", fake_probe)
    result = dp.before_run(Target(), [{"documents": ["x" * state]}], timeout=timeout)
    assert result == {"warnings": ["option order: failed: at http://user:pw@host/decide"]}
    assert sent == {"url": Target.url, "model": "judge-m", "headers": {"Authorization": "k"}, "timeout": waited,
                    "short": True, "window_chars": window}
    assert capsys.readouterr().err == ("auditpacks: warning: decision probe: option order: failed: "
                                       "at http://[credentials]@host/decide\n")
