"""The judge and auditor models of a run, installed in simpleaudit's engine.

Each role is a :class:`~auditpacks.runner.targets.model_client.RoleModel` over a
:class:`~auditpacks.runner.models.model.Model` (OpenAI-compatible, native Ollama or
any-llm), so its calls share the response cache and the retry layer with the
target's. Without an auditor model of its own the auditor is the judge's model, with
the auditor's settings (the run's setup builds both: :mod:`runner.readiness.model_setup`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from auditpacks.runner.models import simpleaudit_adapter
from auditpacks.runner.targets.model_client import RoleModel


@dataclass
class Roles:
    judge: RoleModel | None = None
    auditor: RoleModel | None = None

    def models(self) -> list[RoleModel]:
        return [c for c in (self.judge, self.auditor) if c is not None]

    def install(self, engine: Any, bound_judge_schema: simpleaudit_adapter.Bound | None = None) -> None:
        """Put our models in place of the any-llm clients simpleaudit made for these roles. With
        ``bound_judge_schema`` (a judge's ``(schema, expected_behavior) -> schema``) and a judge server that
        enforces schemas, each scenario's judge call gets that scenario's bounded schema."""
        simpleaudit_adapter.install_roles(engine, judge=self.judge, auditor=self.auditor)
        if self.judge is not None and bound_judge_schema is not None and self.judge.settings.bounded_schema:
            simpleaudit_adapter.bound_judge_schema(engine, bound_judge_schema)

    def record(self) -> dict[str, Any]:
        return {"judge": self.judge.record() if self.judge else None,
                "auditor": self.auditor.record() if self.auditor else None}

    async def aclose(self) -> None:
        for model in self.models():
            await model.aclose()
