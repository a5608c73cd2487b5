"""The tags pane: every tag of the vault with the number of notes carrying it."""
