"""Retrieval tools over a per-cutoff ICJ graph snapshot, the leak guard and the leak audit."""
