"""auditpacks: legal-AI benchmarks as SimpleAudit scenario packs, with graders and a runner.

The public API (``build``, ``run``, ``score``, ``export``) is imported on first use, so
``import auditpacks`` stays cheap.
"""

from __future__ import annotations

__all__ = ["build", "run", "score", "export", "__version__"]


def __getattr__(name: str):
    if name == "__version__":  # importlib.metadata alone costs a tenth of a second: read on first use
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("auditpacks")
        except PackageNotFoundError:  # a source tree that is not installed
            return "0+unknown"
    if name in ("build", "run", "score", "export"):
        from auditpacks import api

        return getattr(api, name)
    raise AttributeError(f"module 'auditpacks' has no attribute {name!r}")
