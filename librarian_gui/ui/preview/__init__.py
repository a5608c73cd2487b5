"""The note preview and the hover previews of the notes its links point to."""
