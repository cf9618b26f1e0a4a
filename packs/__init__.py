"""Builders that turn legal-AI benchmarks into SimpleAudit scenario packs.

Each builder module exposes ``add_arguments(parser)`` and ``build(args) -> Path``;
``BUILDERS`` maps the benchmark name used on the command line to its module.
"""

BUILDERS = {
    "jacite": "auditpacks.packs.jacite.builder",
    "iustitia": "auditpacks.packs.iustitia.builder",
    "icj": "auditpacks.packs.icj.builder",
}
