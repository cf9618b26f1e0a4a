"""A finished run in other tools' formats: an Inspect AI eval log and Every Eval Ever records, generic over the
benchmarks' plugins (what a run measures comes from the registry's figures, never from a benchmark's name)."""
