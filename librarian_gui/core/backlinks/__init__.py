"""Backlinks: linked mentions with their context and unlinked mentions."""
