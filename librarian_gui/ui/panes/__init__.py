"""The generic side panes of the open vault and note: file tree, recent changes, tags,
outline, outgoing links, warnings. One widget per file; a feature's own pane lives in its
folder (backlinks/, search/, related/, …)."""
