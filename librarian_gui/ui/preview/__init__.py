"""The note preview, the hover previews of the notes its links point to, and the outline of
its headings."""
