"""The concept dictionary's editor, detail page and suggestions, and the concepts pane."""
