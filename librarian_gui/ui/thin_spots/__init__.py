"""The Thin spots pane: notes like no other, orphans, isolated concepts."""
