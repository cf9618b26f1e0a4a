"""Defaults that several layers share, named once."""

#: Options a decision endpoint accepts per choice question (System One; the ``le26`` track's bound).
MAX_OPTIONS = 26
#: Questions per System One request (the protocol's upper bound, and the batching default).
MAX_QUESTIONS = 64
#: Seconds per model-call attempt.
TIMEOUT_S = 600.0
#: Output cap per target reply when neither ``--max-tokens`` nor the pack's run settings name one:
#: no reply can generate without end. Judges and auditor models have their own caps.
MAX_TOKENS = 1024
