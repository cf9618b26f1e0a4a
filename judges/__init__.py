"""Graders: pure functions from (scenario, reply) to a verdict, wrapped as simpleaudit judges; the scorers,
statistics and exporters that pool them.

Each judge module exposes ``make_judge(manifest) -> simpleaudit judge config`` and ``headline(pairs) -> dict``,
the pooled figures a run summary prints (``pairs`` = list of (scenario, result dict)). Judges are
registered through each benchmark's entry point (:mod:`auditpacks.core.registry`).
"""
