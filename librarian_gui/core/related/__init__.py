"""Related notes: similarity of notes by their key terms (DESIGN §5)."""
