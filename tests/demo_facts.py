"""What the bundled demo vault holds, found by grep over resources/demo-vault (not by the
code under test): the tests of several views check against these."""

from __future__ import annotations

# The demo's concepts with a note: prompt-injection by its title, rate-limiting and
# vector-index by their "note" key.
WITH_A_NOTE = ("prompt-injection", "rate-limiting", "vector-index")
# The concepts no note links, nor their notes (MEMORY.md, the index note, left out).
NEVER_LINKED = (
    "adr",
    "backups",
    "columnar-storage",
    "contamination",
    "data-exfiltration",
    "embeddings",
    "episodic-memory",
    "eval-variance",
    "golden-set",
    "hybrid-search",
    "index-note",
    "least-privilege",
    "memory-compaction",
    "observability",
    "pair-review",
    "pass-at-k",
    "postmortem",
    "reranking",
    "runbook",
    "sandboxing",
    "secret-management",
    "tool-use",
    "trajectory-eval",
)
