"""The runtime that keeps an open vault current, without Qt: for every front end.

A change on disk reaches the index through one path here: watchdog's thread hands the
changed paths to an inbox (``runtime``), the update thread applies them after a short
debounce, a big batch in pieces (``batches``) so a reader never waits behind the whole of
it, and background loops hold back while changes are on their way (``quiet``). The words of
each note (``words``) narrow unlinked mentions to the notes that can hold a name. The MCP
server runs ``runtime.LiveVault``; the window's services use the same pieces from Qt.
"""
