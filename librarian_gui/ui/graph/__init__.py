"""The graph tab: the view, its canvas and the node and edge layers."""
