"""The vault on disk: which files count, reading them, the file tree, names and URLs."""
