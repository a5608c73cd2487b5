"""The vault's own panes, as core/vault reads it: the file tree, the recent changes and the
files that could not be read (the warnings view)."""
