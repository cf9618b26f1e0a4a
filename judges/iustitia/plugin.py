"""Iustitia's registry entry (the entry point ``iustitia`` in ``pyproject.toml``): closed questions graded by
the general choice judges, whose runs it reads as its own."""

from auditpacks.core.benchmark import Benchmark, Card, Grouping, Paired

BENCHMARK = Benchmark(
    title="closed questions (Iustitia Marigonae style)",
    builder="auditpacks.packs.iustitia.builder",
    reads={"choice_match": "auditpacks.judges.iustitia.agreement:headline",
           "choice": "auditpacks.judges.iustitia.agreement:choice_headline"},
    figures="auditpacks.judges.iustitia.figures:figures",
    report="auditpacks.judges.iustitia.report",
    paired=Paired("judgment", "auditpacks.judges.iustitia.paired:compare", "; McNemar exact test on discordant tasks"),
    grouping=Grouping(document="auditpacks.judges.iustitia.paired:judgment",
                      question="auditpacks.judges.iustitia.paired:question",
                      cluster="auditpacks.judges.iustitia.paired:cluster"),
    score="auditpacks.judges.iustitia.agreement",
    export="auditpacks.judges.iustitia.export",
    card=Card(repo="Kushtrim/iustitia-marigonae",
              smoke_file="simpleaudit/iustitia_marigonae_smoke3.json",
              full_file="simpleaudit/iustitia_marigonae.json",
              local_smoke=("simpleaudit/iustitia_marigonae_smoke3.json", "iustitia_marigonae_smoke3.json"),
              local_built=("simpleaudit/iustitia_marigonae.json", "iustitia_marigonae.json", "iustitia.json",
                           "packs/iustitia.json")),
    judge_items="auditpacks.judges.iustitia.judge_items",
)
