"""The backlinks pane: the open note's linked and unlinked mentions."""
