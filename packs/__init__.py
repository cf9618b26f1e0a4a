"""Builders that turn legal-AI benchmarks into SimpleAudit scenario packs, and the pack model they share.

One subpackage per benchmark (``jacite``, ``iustitia``, ``icj``); each is registered through its
benchmark's entry point (:mod:`auditpacks.core.registry`).
"""
