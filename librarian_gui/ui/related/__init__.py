"""The Related pane (notes like the open one) and its Link dialog."""
