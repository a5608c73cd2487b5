"""The concept dictionary: its model, its JSON file and its checks."""
