"""Check every endpoint a run talks to before its first scenario, so a dead server or a refused key is one line.

One cheap request per endpoint, before anything is written:

Each provider class answers its own check (``ModelAPI.check``, in
:mod:`auditpacks.runner.models.providers.checks`):

* our OpenAI-compatible clients (local servers and hosted providers alike): ``GET {base}/models`` with the
  key; any answer but 401 or 403 proves a server that takes the key (even 404: some servers list no models);
* any-llm providers (anthropic, gemini, mistral, ...): the provider SDK's model list, authenticated as the
  run's calls are (providers whose SDK lists no models are not checked);
* Ollama: its ``prepare`` (the model's digest, read before every Ollama run) already asks the server;
* decision endpoints (System One): any HTTP answer at the endpoint's URL (before the short probe, which
  checks what the answers say);
* judge and auditor models: the same check as a target on their provider (not for the embedded model,
  nor with a response cache, which may answer every call of a warm rerun without a server).

Connection failures and time-outs fail at once (no retries): a run with no network stops in seconds.
"""

from __future__ import annotations

from typing import Any

from auditpacks.runner.models.providers.checks import check_reachable


def check_chat(api: Any, *, who: str | None = None, hint: str = "") -> None:
    """The check for one chat model's provider class (see the module doc); ``who`` starts its error line."""
    api.check(who=who, hint=hint)


def check_roles(roles: Any) -> None:
    """The judge and auditor models' checks (``roles``: :class:`~auditpacks.runner.targets.roles.Roles`);
    the embedded model is not checked (it was just started)."""
    for role in (roles.judge, roles.auditor):
        if role is not None and role.settings.provider != "embedded":
            check_chat(role.model.api, who=f"{role.settings.role} model {role.settings.model}")


def check_decision(url: str) -> None:
    """A decision endpoint: nothing answering at ``url`` (any HTTP answer passes; the probe checks the rest)."""
    check_reachable(url, who="decision endpoint", suffix="")


