"""The Timeline tab's view and its plot."""
