"""The companion ICJ Citation Graph: read a local copy by content, cut it at a target's decision date, and
keep one read-only snapshot (Cypher database, lexical index) per cutoff. See docs/icj-tools.md."""
