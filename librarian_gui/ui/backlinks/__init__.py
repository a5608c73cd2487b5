"""The links of the open note: its linked and unlinked mentions (the backlinks pane) and
the notes it links (the outgoing pane)."""
