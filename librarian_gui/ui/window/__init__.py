"""The main window: it assembles the parts and wires them."""
