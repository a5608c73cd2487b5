"""Full-text search and the quick switcher's ranking."""
