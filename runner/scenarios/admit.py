"""What a run checks before it sends anything: the pack passes ``auditpacks check``, is not empty, and
the run's keys are registered for redaction."""

from __future__ import annotations

from auditpacks.core import redact
from auditpacks.packs.checks import ERROR
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.settings.config import RunConfig
from auditpacks.runner.scenarios.scenario_source import StreamedPack


def admit(pack: StreamedPack, config: RunConfig) -> None:
    """Raise :class:`RunError` for an empty pack, or one with ERROR findings (``open_pack(check=True)``)."""
    target, roles = config.target, config.roles
    redact.register(target.api_key, roles.judge_api_key, target.key())
    for url in (target.base_url, *target.more_base_urls, roles.judge_base_url, roles.auditor_base_url,
                target.decision_url):
        redact.register_url(url)
    if not pack.scenarios:
        raise RunError(f"{pack.path.name}: the pack holds no scenario; nothing to run")
    errors = [f for f in pack.findings if f.level == ERROR]
    if errors:
        raise RunError(f"{pack.path.name}: {len(errors)} ERROR finding(s), first: {errors[0]}; "
                       "fix the pack (see auditpacks check) or run with --no-check")
