"""The vault on disk: which files count, reading them (in a worker pool), the file tree, names and URLs."""
