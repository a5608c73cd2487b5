"""Hover a link to a note, in the preview or the backlinks, and the start of that note shows
in a tooltip (Obsidian's page preview), after a short rest of the mouse."""

from __future__ import annotations

from urllib.parse import urlsplit

from PySide6.QtCore import QObject, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QTextBrowser, QToolTip

from ...core.vault.urls import path_of_url

DELAY_MS = 350  # the mouse rests this long on a link before its note is read
HOVER_SCHEMES = ("note", "open")  # the preview's links to notes; the backlinks' lines


def hovered_note(url: str) -> str | None:
    """The vault path of the note a link points to (``note:///a.md#x``,
    ``open:///a.md?line=3``); None for anything else (the web, a button, an image)."""
    parts = urlsplit(url)
    if parts.scheme not in HOVER_SCHEMES or parts.netloc:
        return None
    rel = path_of_url(parts.path).lstrip("/")
    return rel if rel.lower().endswith(".md") else None


class HoverPreviews(QObject):
    """Watches the links under the mouse in the browsers it is given.

    Signals:
        wanted(str): the mouse rested on a link to this note: ask for its excerpt, then
            hand it to ``show``.
    """

    wanted = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self, singleShot=True, interval=DELAY_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._rel: str | None = None  # the note under the mouse
        self._browser: QTextBrowser | None = None
        self.shown: tuple[str, str] | None = None  # the last excerpt shown (rel, html)

    def attach(self, browser: QTextBrowser) -> None:
        browser.highlighted.connect(lambda url, b=browser: self._on_highlighted(b, url))

    def _on_highlighted(self, browser: QTextBrowser, url: QUrl) -> None:
        rel = hovered_note(url.toString(QUrl.ComponentFormattingOption.FullyEncoded))
        self._rel, self._browser = rel, browser
        if rel is None:
            self._timer.stop()
            QToolTip.hideText()
        else:
            self._timer.start()

    @Slot()
    def _on_timer_timeout(self) -> None:
        if self._rel is not None:
            self.wanted.emit(self._rel)

    @Slot(str, str)
    def show(self, rel: str, html: str) -> None:
        """Show ``html`` by the mouse, if it still rests on a link to ``rel``."""
        if rel != self._rel or self._browser is None:
            return
        self.shown = (rel, html)
        QToolTip.showText(
            QCursor.pos(), f"<div style='max-width:420px'>{html}</div>", self._browser
        )
