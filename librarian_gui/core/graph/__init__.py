"""The graph: nodes and edges from the index, the force layout and the export."""
