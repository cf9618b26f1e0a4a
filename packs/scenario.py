"""One constructor for SimpleAudit v2 scenario dicts, shared by every builder."""

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = "2.0"
AUTHOR = "auditpacks"


def make_scenario(
    *,
    name: str,
    description: str,
    test_prompt: str,
    language: str,
    expected_behavior: list[str],
    category: str,
    subcategory: str,
    severity: str,
    source: dict[str, Any],
    metadata: dict[str, Any],
    date_created: str,
    documents: list[Any] | None = None,
    decision: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A v2 scenario in a stable key order (so identical input gives identical bytes)."""
    scenario: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "name": name,
        "description": description,
        "test_prompt": test_prompt,
        "language": language,
        "expected_behavior": list(expected_behavior),
        "category": category,
        "subcategory": subcategory,
        "severity": severity,
        "source": source,
    }
    if documents is not None:
        scenario["documents"] = documents
    if decision is not None:
        scenario["decision"] = decision
    scenario["metadata"] = {"author": AUTHOR, "date_created": date_created, **metadata}
    return scenario
