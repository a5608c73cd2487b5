"""The one write path: safe swaps into the vault, the undo journal and the vault lock."""
