"""Every place we reach into simpleaudit beyond its documented ``Auditor(target=...)``, in one module.

Written against simpleaudit 0.4.2. What it relies on:

* ``ModelAuditor._create_anyllm_client(api_key, base_url, provider, client_kwargs)``: the
  any-llm client simpleaudit would make (static), for our any-llm provider;
* the engine's ``judge_client`` and ``auditor_client`` attributes, read on each judge or
  auditor call, replaced by our role models;
* ``ModelAuditor._resolve_judge_spec(prompt, schema, postprocess, requires_expected_behavior,
  expected_behavior)``, the one place that sees a scenario's expectations before its judge
  call, wrapped on one engine to bound the judge's schema per scenario;
* ``run_scenario(..., evidence_resolver=)``, called with the ``ScenarioExecution`` (whose
  ``conversation`` the judge then grades) after the target's turns and before the judge;
* ``DecisionTarget._client``: the HTTP client a decision target was given (None: none), which the
  System One provider posts through instead of its own.
"""

from __future__ import annotations

from typing import Any, Callable

#: ``bound(schema, expected_behavior) -> schema``: a judge's schema tightened for one scenario.
Bound = Callable[[Any, list[str]], Any]


def anyllm_client(api_key: str | None, base_url: str | None, provider: str, client_kwargs: dict[str, Any] | None):
    """The any-llm client simpleaudit makes for ``provider``."""
    from simpleaudit import ModelAuditor

    return ModelAuditor._create_anyllm_client(api_key, base_url, provider, client_kwargs)


def install_roles(engine: Any, *, judge: Any = None, auditor: Any = None) -> None:
    """Put our judge and auditor models in place of the any-llm clients simpleaudit made for them."""
    if judge is not None:
        engine.judge_client = judge
    if auditor is not None:
        engine.auditor_client = auditor


def bound_judge_schema(engine: Any, bound: Bound) -> None:
    """Have ``engine`` send each scenario's judge call ``bound(schema, expected_behavior)`` as its schema."""
    resolve = engine._resolve_judge_spec

    def resolve_bounded(prompt, schema, postprocess, requires_expected_behavior, expected_behavior):
        prompt, schema, postprocess, fell_back = resolve(prompt, schema, postprocess, requires_expected_behavior,
                                                         expected_behavior)
        if schema is not None and expected_behavior and not fell_back:
            schema = bound(schema, list(expected_behavior))
        return prompt, schema, postprocess, fell_back

    engine._resolve_judge_spec = resolve_bounded


async def run_scenario(engine: Any, arguments: dict[str, Any], *, params: dict[str, Any] | None,
                       before_judge: Callable[[list[dict[str, Any]]], None]) -> Any:
    """simpleaudit's turn loop and judge for one scenario; ``before_judge(conversation)`` may add facts to the
    transcript's entries after the target's turns, before the judge (or a code grader) reads it."""

    def resolve(execution: Any) -> None:
        before_judge(execution.conversation)

    return await engine.run_scenario(**arguments, target_params=params, evidence_resolver=resolve)


def decision_client(spec: Any) -> Any:
    """The HTTP client simpleaudit's ``DecisionTarget`` ``spec`` was given (None: it was given none)."""
    return spec._client
