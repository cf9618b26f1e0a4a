"""Tool argument schemas: checked when a protocol file is loaded, local only, their patterns matched under a time limit.

A benchmark copy's ``protocol/conditions.json`` may give each tool's JSON schema. It is data from
outside, so :func:`check` refuses, in one line naming the tool, a schema that is not valid for its
dialect, a ``$ref`` that is not local (``#...``: nothing is ever fetched), and a ``pattern`` (or a
``patternProperties`` key) that is not a regular expression. :func:`problem` validates a call's
arguments with a registry that retrieves nothing and with ``pattern`` matched by the ``regex``
library under :data:`PATTERN_TIMEOUT_S` (Python's own ``re`` has no time limit, and a pattern such as
``^(a+)+$`` takes exponential time): a pattern that runs out of time is a failed match, said so.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator

import jsonschema
import regex
from jsonschema import ValidationError
from referencing import Registry
from referencing.exceptions import NoSuchResource, Unresolvable

from auditpacks.core.errors import FormatError

PATTERN_TIMEOUT_S = 0.5
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")


def _retrieve(uri: str):
    raise NoSuchResource(ref=uri)


#: Resolves references inside a schema only; any other is an unresolvable reference, never a download.
REGISTRY: Registry = Registry(retrieve=_retrieve)


def _search(pattern: str, text: str) -> bool | None:
    """Whether ``pattern`` is found in ``text`` (None: it ran out of time)."""
    try:
        return regex.search(pattern, text, timeout=PATTERN_TIMEOUT_S) is not None
    except TimeoutError:
        return None


def _timed_out(pattern: str) -> ValidationError:
    return ValidationError(f"the pattern {pattern[:80]!r} ran past its {PATTERN_TIMEOUT_S:g} s time limit; "
                           "taken as not matched")


def _pattern(validator, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string"):
        found = _search(pattern, instance)
        if found is None:
            yield _timed_out(pattern)
        elif not found:
            yield ValidationError(f"{instance[:80]!r} does not match {pattern[:80]!r}")


def _pattern_properties(validator, patterns: dict, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            found = _search(pattern, key)
            if found is None:
                yield _timed_out(pattern)
            elif found:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


@lru_cache(maxsize=None)
def _timed(cls: type) -> type:
    return jsonschema.validators.extend(cls, {"pattern": _pattern, "patternProperties": _pattern_properties})


def validator_class(schema: Any) -> type:
    """The schema's dialect (its ``$schema``, else draft 2020-12) with patterns matched under the time limit."""
    return _timed(jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator))


def _walk(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def check(schema: Any, where: str) -> None:
    """A protocol file's schema, refused in one line (naming ``where``) unless it is valid, local and its
    patterns are regular expressions."""
    try:
        validator_class(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise FormatError(f"{where}: not a valid JSON schema ({exc.message[:200]})") from None
    except RecursionError:
        raise FormatError(f"{where}: JSON schema nested too deeply") from None
    for key, value in _walk(schema):  # a subschema named like a keyword ($defs: {pattern: {...}}) is not one
        if key in _REFS and not isinstance(value, dict) and not (isinstance(value, str) and value.startswith("#")):
            raise FormatError(f"{where}: {key} {str(value)[:80]!r} is not local (only #... references; nothing is "
                              "fetched)")
        patterns = [value] if key == "pattern" and isinstance(value, str) else \
            list(value) if key == "patternProperties" and isinstance(value, dict) else []
        for pattern in patterns:
            try:
                regex.compile(pattern)
            except (regex.error, TypeError) as exc:
                raise FormatError(f"{where}: pattern {str(pattern)[:80]!r} is not a regular expression ({exc})") \
                    from None


def problem(arguments: Any, schema: Any) -> str | None:
    """Why ``arguments`` do not fit ``schema`` (one line), or None."""
    validator = validator_class(schema)(schema, registry=REGISTRY)
    try:
        error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    except RecursionError:
        return "arguments: JSON nested too deeply to check"
    except Unresolvable:
        return "the tool's schema holds a reference that cannot be resolved"
    return None if error is None else f"arguments do not fit the tool: {error.message[:200]}"
