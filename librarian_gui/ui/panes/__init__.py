"""The side panes and the preview: one widget per file."""
