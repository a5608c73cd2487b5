"""The Index note pane: the index note's health and the dialog previewing its Fix."""
