"""Vault paths in URLs of the preview and the panes, byte for byte (names need not be UTF-8)."""

from __future__ import annotations

import os
from urllib.parse import quote, unquote_to_bytes


def url_path(rel: str, safe: str = "/") -> str:
    """``rel`` percent-encoded for a URL's path. A file name that is not UTF-8 (lone
    surrogates, as ``os.fsdecode`` gives it) is encoded as its own bytes, so
    ``path_of_url`` gives back the same name."""
    return quote(os.fsencode(rel), safe=safe)


def path_of_url(encoded: str) -> str:
    """The vault path of a percent-encoded URL path (as ``url_path`` made it)."""
    return os.fsdecode(unquote_to_bytes(encoded))


def is_utf8(text: str) -> bool:
    """False for a name holding the lone surrogates of bytes that are not UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_path(rel: str) -> str:
    """A vault path as text to show: a byte that is not UTF-8 written as ``\\xe9``."""
    return rel if is_utf8(rel) else os.fsencode(rel).decode("utf-8", "backslashreplace")
