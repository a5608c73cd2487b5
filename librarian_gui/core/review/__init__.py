"""The review desk (DESIGN §6, issue 32): what agents wrote, who wrote it, and what it repeats
or contradicts."""
