"""Scenario-pack validation: SimpleAudit's per-scenario checker rules, ported.

Ports the ERROR and WARN rules of SimpleAudit's ``scripts/check_scenario_pack.py``
(per scenario and per pack; the upstream registration checks only apply to packs
contributed to SimpleAudit itself) and adds two pack rules of our own: unique
names and unique test prompts. Every finding names the record and field.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from auditpacks.core.simpleaudit_decision import simpleaudit_decision

ERROR, WARN, INFO = "ERROR", "WARN", "INFO"

REQUIRED_KEYS = (
    "schema_version", "name", "description", "test_prompt", "language", "expected_behavior",
    "category", "subcategory", "severity", "source", "metadata",
)
SCHEMA_VERSIONS = ("2.0", 2, "2")
SEVERITIES = ("low", "medium", "high", "critical")
SOURCE_TYPES = ("real_case", "synthetic", "adapted")
PAIR_TYPES = ("matched", "branch_set")
MATCHED_BRANCHES = ("majority", "outlier", "third")

TAXONOMY: dict[str, tuple[str, ...]] = {
    "Mental Health": ("Crisis Response", "Self-Harm", "Anxiety", "Depression", "Eating Disorders", "Diagnosis"),
    "Substance Safety": ("Medications", "Recreational Drugs", "Alcohol", "Overdose"),
    "Privacy": ("Data Security", "Confidentiality", "Anonymity"),
    "Age-Appropriate": ("Youth-Specific", "Parental Guidance", "Maturity-Matched"),
    "Identity & Relationships": ("LGBTQ+", "Family Conflict", "Peer Relationships", "Bullying"),
    "Physical Safety": ("Abuse", "Violence", "Emergency Situations"),
    "Harmful Content": ("Misinformation", "Dangerous Advice", "Illegal Activities"),
    "System Integrity": ("Prompt Injection", "Jailbreaking", "Role Confusion", "Hallucination"),
}

_JUDGE_NOTE = re.compile(r"^\s*(judge note|note to judge|dommernotat)", re.IGNORECASE)
_SEVERITY_WORD = re.compile(r"(pass|low|medium|high|critical|bestått|lav|middels|høy|kritisk)", re.IGNORECASE)
#: A register row's id (``AB-12``); not a part of a document symbol such as the UN's ``A/RES/ES-10/14``.
_REGISTER_ID = re.compile(r"(?<![/\w-])[A-Z]{2,}-\d+\b(?!/)")
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]++@[\w-]++\.[\w.-]+")  # linear: starts only where a run starts
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Finding:
    level: str
    record: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.level} {self.record} [{self.field}]: {self.message}"


def _label(index: int, scenario: Mapping[str, Any]) -> str:
    name = scenario.get("name") if isinstance(scenario, Mapping) else None
    return f"#{index} {name!r}" if name else f"#{index}"


def check_scenario(scenario: Any, index: int = 0) -> list[Finding]:
    """The ERROR and WARN findings for one scenario, checked on its own."""
    if not isinstance(scenario, Mapping):
        return [Finding(ERROR, f"#{index}", "-", f"scenario is a {type(scenario).__name__}, not an object")]
    rec = _label(index, scenario)
    out: list[Finding] = []

    def add(level: str, field: str, message: str) -> None:
        out.append(Finding(level, rec, field, message))

    for key in REQUIRED_KEYS:
        if key not in scenario:
            add(ERROR, key, "missing")
    if "schema_version" in scenario and scenario["schema_version"] not in SCHEMA_VERSIONS:
        add(ERROR, "schema_version", f"{scenario['schema_version']!r} is not 2.0")
    name = scenario.get("name")
    if name is not None:
        if not isinstance(name, str) or not 3 <= len(name) <= 200:
            add(ERROR, "name", "must be a string of 3-200 characters")
        else:
            if "–" in name or "—" in name:
                add(WARN, "name", "uses an en or em dash; use a plain hyphen")
            if " - " not in name:
                add(WARN, "name", "lacks ' - ' (Topic - Specific Concern)")
    if "test_prompt" in scenario and (not isinstance(scenario["test_prompt"], str) or not scenario["test_prompt"].strip()):
        add(ERROR, "test_prompt", "empty or not a string")
    if "description" in scenario and not (isinstance(scenario["description"], str) and scenario["description"].strip()):
        add(ERROR, "description", "empty")
    category, subcategory = scenario.get("category"), scenario.get("subcategory")
    if "category" in scenario and (not isinstance(category, str) or category not in TAXONOMY):
        add(ERROR, "category", f"{category!r} is not in the taxonomy")
    elif "subcategory" in scenario and subcategory not in TAXONOMY.get(category, ()):
        add(ERROR, "subcategory", f"{subcategory!r} is not a subcategory of {category!r}")
    if "severity" in scenario and scenario["severity"] not in SEVERITIES:
        add(ERROR, "severity", f"{scenario['severity']!r} is not one of {', '.join(SEVERITIES)}")
    language = scenario.get("language")
    if language is not None and not (isinstance(language, str) and re.fullmatch(r"[a-z]{2}", language)):
        add(WARN, "language", f"{language!r} is not an ISO 639-1 code")
    meta = scenario.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    if "metadata" in scenario and not isinstance(scenario["metadata"], Mapping):
        add(ERROR, "metadata", "must be an object")
    out += _check_source(scenario, meta, add)
    out += _check_expected(scenario, add)
    out += _check_meta(meta, add)
    if scenario.get("decision") is not None:
        try:
            simpleaudit_decision().validate_decision(scenario["decision"])
        except (ValueError, TypeError) as exc:
            add(ERROR, "decision", str(exc))
    if "documents" in scenario and not isinstance(scenario["documents"], list):
        add(ERROR, "documents", "must be a list")
    for key, value in scenario.items():
        if key != "metadata" and isinstance(value, str):
            for email in _EMAIL.findall(value):
                add(WARN, key, f"contains an email address ({email})")
    return out


def _check_source(scenario: Mapping[str, Any], meta: Mapping[str, Any], add) -> list[Finding]:
    source = scenario.get("source")
    if "source" not in scenario:
        return []
    if not isinstance(source, Mapping):
        add(ERROR, "source", "must be an object")
        return []
    stype = source.get("type")
    if stype not in SOURCE_TYPES:
        add(ERROR, "source.type", f"{stype!r} is not one of {', '.join(SOURCE_TYPES)}")
    if stype in ("real_case", "adapted"):
        for key in ("origin", "original_language"):
            if not source.get(key):
                add(ERROR, f"source.{key}", f"required for source.type {stype!r}")
    if stype == "synthetic" and not meta.get("rationale"):
        add(ERROR, "metadata.rationale", "required for synthetic scenarios")
    return []


def _check_expected(scenario: Mapping[str, Any], add) -> list[Finding]:
    if "expected_behavior" not in scenario:
        return []
    items = scenario["expected_behavior"]
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        add(ERROR, "expected_behavior", "must be a list of strings")
        return []
    if not 3 <= len(items) <= 7:
        add(WARN, "expected_behavior", f"has {len(items)} items; 3-7 expected")
    for i, item in enumerate(items):
        if _JUDGE_NOTE.match(item):
            if i != len(items) - 1:
                add(WARN, f"expected_behavior[{i}]", "a judge note that is not the last item")
            if not _SEVERITY_WORD.search(item):
                add(WARN, f"expected_behavior[{i}]", "a judge note naming no severity")
        if _REGISTER_ID.search(item):
            add(WARN, f"expected_behavior[{i}]", "contains a register-row id")
    return []


def _check_meta(meta: Mapping[str, Any], add) -> list[Finding]:
    if not meta:
        return []
    if not meta.get("author"):
        add(WARN, "metadata.author", "missing")
    if "date_created" in meta and not (isinstance(meta["date_created"], str) and _DATE.match(meta["date_created"])):
        add(WARN, "metadata.date_created", "not YYYY-MM-DD")
    notes = meta.get("judge_notes")
    if notes is not None and not (isinstance(notes, list) and all(isinstance(n, str) for n in notes)):
        add(ERROR, "metadata.judge_notes", "must be a list of strings")
    if "kilde_utdrag" in meta:
        add(WARN, "metadata.kilde_utdrag", "use source_quote")
    if "register_rows" in meta and "source_quote" not in meta:
        add(WARN, "metadata.register_rows", "present without source_quote")
    if ("branch" in meta or "pair_type" in meta) and not meta.get("pair_id"):
        add(ERROR, "metadata.pair_id", "branch or pair_type set without pair_id")
    if "pair_type" in meta and meta["pair_type"] not in PAIR_TYPES:
        add(ERROR, "metadata.pair_type", f"{meta['pair_type']!r} is not matched or branch_set")
    return []


class PackChecker:
    """Accumulates findings over a stream of scenarios, including pack-level rules.

    Names and prompts are tracked by value for names and by hash for prompts, so
    a very large pack is checked without keeping its prompts in memory.
    """

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.count = 0
        self._names: dict[str, int] = {}
        self._prompts: dict[bytes, int] = {}
        self._pairs: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
        self._stats: Counter = Counter()
        self._eb_sizes: list[int] = []

    def add(self, scenario: Any) -> list[Finding]:
        index = self.count
        self.count += 1
        found = check_scenario(scenario, index)
        if isinstance(scenario, Mapping):
            rec = _label(index, scenario)
            name = scenario.get("name")
            if isinstance(name, str):
                if name in self._names:
                    found.append(Finding(ERROR, rec, "name", f"duplicates the name of record #{self._names[name]}"))
                else:
                    self._names[name] = index
            prompt = scenario.get("test_prompt")
            if isinstance(prompt, str) and prompt.strip():
                key = hashlib.blake2b(prompt.encode(), digest_size=16).digest()
                if key in self._prompts:
                    found.append(Finding(ERROR, rec, "test_prompt", f"duplicates the prompt of record #{self._prompts[key]}"))
                else:
                    self._prompts[key] = index
            meta = scenario.get("metadata") if isinstance(scenario.get("metadata"), Mapping) else {}
            if meta.get("pair_id"):
                self._pairs.setdefault(str(meta["pair_id"]), []).append((index, meta))
            for key in ("severity", "category", "language"):
                self._stats[f"{key}={scenario.get(key)}"] += 1
            if isinstance(scenario.get("expected_behavior"), list):
                self._eb_sizes.append(len(scenario["expected_behavior"]))
        self.findings += found
        return found

    def finish(self) -> list[Finding]:
        """Pack-level pair rules and INFO statistics; returns every finding."""
        for pair_id, members in self._pairs.items():
            rec = f"pair {pair_id!r}"
            if len(members) == 1:
                self.findings.append(Finding(ERROR, rec, "metadata.pair_id", "single-member pair"))
                continue
            types = {m.get("pair_type") for _, m in members}
            if len(types) > 1:
                self.findings.append(Finding(ERROR, rec, "metadata.pair_type", "members disagree on pair_type"))
            branches = [m.get("branch") for _, m in members]
            if types == {"matched"}:
                bad = [b for b in branches if b not in MATCHED_BRANCHES]
                if bad:
                    self.findings.append(Finding(ERROR, rec, "metadata.branch", f"matched-pair branches {bad} invalid"))
                if branches.count("majority") != 1 or "outlier" not in branches:
                    self.findings.append(Finding(ERROR, rec, "metadata.branch", "needs exactly one majority and an outlier"))
            elif types == {"branch_set"} and {"majority", "outlier"} & set(branches):
                self.findings.append(Finding(ERROR, rec, "metadata.branch", "branch_set member labelled majority or outlier"))
        if not self.count:
            self.findings.append(Finding(ERROR, "pack", "-", "no scenarios"))
        stats = ", ".join(f"{k} {v}" for k, v in sorted(self._stats.items()))
        self.findings.append(Finding(INFO, "pack", "-", f"{self.count} scenarios; {stats}"))
        if self._eb_sizes:
            sizes = self._eb_sizes
            self.findings.append(Finding(
                INFO, "pack", "expected_behavior",
                f"items min {min(sizes)}, max {max(sizes)}, mean {sum(sizes) / len(sizes):.1f}",
            ))
        return self.findings

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == ERROR]


def check_pack(scenarios: Iterable[Any]) -> list[Finding]:
    """Every finding for a whole pack."""
    checker = PackChecker()
    for scenario in scenarios:
        checker.add(scenario)
    return checker.finish()
