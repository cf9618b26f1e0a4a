"""Graders: pure functions from (scenario, reply) to a verdict, wrapped as simpleaudit judges.

``JUDGES`` maps a judge name to the module that provides it. Each module exposes
``make_judge(manifest) -> simpleaudit judge config`` and ``headline(pairs) -> dict``,
the pooled figures a run summary prints (``pairs`` = list of (scenario, result dict)).
``choice_match`` and ``checklist`` are simpleaudit's own judges.
"""

JUDGES = {
    "choice_match": "auditpacks.judges.choice_match",
    "checklist": "auditpacks.judges.checklist",
    "grounding": "auditpacks.judges.jacite.grounding",
    "choice": "auditpacks.judges.choice",
    "citations": "auditpacks.judges.icj.citations",
}

#: Judges that call no model: the runner uses one turn and no judge client for them.
CODE_JUDGES = {"choice_match", "grounding", "choice", "citations"}
