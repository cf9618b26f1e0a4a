"""Run targets: the chat target over the one model-call path, the target contract, judge and auditor models."""
