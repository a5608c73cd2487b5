"""Full-text search's pane and the quick switcher."""
