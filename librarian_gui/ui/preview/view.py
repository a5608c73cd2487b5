"""The note preview widget: shows rendered HTML, routes links, loads images from the vault only."""

from __future__ import annotations

import bisect
import html
import math
import os
import posixpath
import re
import stat
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices, QImageReader, QPalette, QResizeEvent, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from ...core.vault.files import resolve_inside
from ...core.vault.urls import path_of_url

# The renderer's URL schemes → the kind ``link_activated`` reports.
_KINDS = {
    "note": "note",
    "concept": "concept",
    "ghost": "unresolved",
    "tagconcept": "tag-concept",  # "Tag this concept now" on a concept page
}
_EXTERNAL = ("http", "https", "mailto")
_ANCHOR = re.compile(r'<a name="([^"]*)"')
_FULL = QUrl.ComponentFormattingOption.FullyDecoded
_ENCODED = QUrl.ComponentFormattingOption.FullyEncoded


def _path_of(url: QUrl) -> str:
    """The vault path in a ``note:///`` (or other) URL, byte for byte: QUrl would decode
    the bytes of a file name that is not UTF-8 into replacement characters."""
    return path_of_url(url.path(_ENCODED)).lstrip("/")


MAX_IMAGE_BYTES = 64 * 1024 * 1024  # a bigger "image" would stall the GUI thread decoding it


class PreviewView(QTextBrowser):
    """A read-only view of one rendered note (HTML from ``core.render``).

    Links never navigate the widget: vault links are reported, ``#anchor`` links scroll,
    http(s)/mailto links open in the system browser, anything else is ignored. Images load
    only from ``note:///path`` URLs inside the vault root; nothing remote is ever fetched.

    Signals:
        link_activated(str kind, str target, str fragment): a vault link was clicked.
            ``kind`` is "note" (a note or an attachment: ``target`` is its vault path),
            "concept" (``target`` is the concept id) or "unresolved" (``target`` is the link
            target as written); ``fragment`` is the anchor to scroll to there, or "".
    """

    link_activated = Signal(str, object, str)  # node: see vault/tree.py

    MAX_CONTENT_WIDTH = 820  # px: long lines are hard to read
    MIN_SIDE_MARGIN = 24

    def __init__(self, parent: QWidget | None = None, *, vault_root: Path | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)  # setSource with a custom scheme would clear the page
        self.setOpenExternalLinks(False)
        self.document().setUndoRedoEnabled(False)
        self._root: Path | None = None
        self._anchors: set[str] = set()  # <a name> anchors of the page shown by show_note
        # (source line, block number) of each block that has a line, sorted; built when first
        # needed after the page changes
        self._line_blocks: list[tuple[int, int]] | None = None
        self.set_vault_root(vault_root)
        self.anchorClicked.connect(self._on_anchor_clicked)
        self.document().contentsChanged.connect(self._on_document_contents_changed)

    def set_vault_root(self, root: Path | None) -> None:
        """The folder ``note:///`` image URLs are read from; ``None`` loads no images."""
        self._root = root.resolve() if root is not None else None

    def show_note(self, html_text: str, *, keep_scroll: bool = False) -> None:
        """Show a rendered note. ``keep_scroll`` keeps the reading position: use it when the
        same note is shown again because it changed (``setHtml`` scrolls to the top)."""
        vertical, horizontal = self.verticalScrollBar(), self.horizontalScrollBar()
        position = (vertical.value(), horizontal.value())
        self._anchors = {html.unescape(name) for name in _ANCHOR.findall(html_text)}
        self.setHtml(html_text)
        self._fit_content_width()
        self._match_background()
        if keep_scroll:
            self._finish_layout()
            vertical.setValue(position[0])
            horizontal.setValue(position[1])

    def scroll_to_line(self, line: int) -> None:
        """Scroll to the block holding 1-based source ``line`` (the nearest one above): the
        renderer marks each block with its line as the block's user state."""
        if self._line_blocks is None:
            self._line_blocks = self._index_lines()
        i = bisect.bisect_right(self._line_blocks, (line, sys.maxsize)) - 1
        block = self.document().findBlockByNumber(self._line_blocks[i][1]) if i > 0 else None
        if block is None or not block.isValid():  # at or before the first block: the top
            self.verticalScrollBar().setValue(0)
            return
        self._finish_layout()
        top = self.document().documentLayout().blockBoundingRect(block).top()
        self.verticalScrollBar().setValue(round(top))

    def scroll_to_heading(self, anchor: str) -> None:
        """Scroll to a heading or block by its anchor; heading text works too."""
        from ...core.render.render import heading_anchor  # markdown-it: not needed to start up

        name = anchor if anchor in self._anchors else heading_anchor(anchor)
        if name in self._anchors:
            self._finish_layout()
            self.scrollToAnchor(name)

    # ------------------------------------------------------------ Qt overrides

    def loadResource(self, type: int, name: QUrl) -> Any:
        """Images from inside the vault only, scaled down to the content width; nothing else
        (remote URLs, file: URLs, style sheets) is ever loaded."""
        if type != QTextDocument.ResourceType.ImageResource or name.scheme() != "note":
            return None
        path = self._vault_file(name)
        if path is None:
            return None
        reader = QImageReader(str(path))
        reader.setAutoTransform(True)
        size = reader.size()
        limit = self._content_width()
        if size.isValid() and size.width() > limit:
            # Decode at the shown size: cheaper than decoding a photo in full and scaling.
            reader.setScaledSize(QSize(limit, max(1, size.height() * limit // size.width())))
        image = reader.read()
        return None if image.isNull() else image

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_content_width()

    # ------------------------------------------------------------ slots

    @Slot()
    def _on_document_contents_changed(self) -> None:
        self._line_blocks = None

    @Slot(QUrl)
    def _on_anchor_clicked(self, url: QUrl) -> None:
        scheme = url.scheme().lower()
        fragment = url.fragment(_FULL)
        if scheme in _KINDS:
            target = _path_of(url)
            if url.host() or not target or _escapes(target):
                return  # not a URL the renderer writes: refuse rather than guess
            self.link_activated.emit(_KINDS[scheme], target, fragment)
        elif not scheme and not url.path() and url.hasFragment():
            self.scroll_to_heading(fragment)
        elif scheme in _EXTERNAL:
            QDesktopServices.openUrl(url)

    # ------------------------------------------------------------ helpers

    def _vault_file(self, url: QUrl) -> Path | None:
        rel = _path_of(url)
        if self._root is None or url.host() or not rel or _escapes(rel):
            return None
        # The scan's symlink rule: no image through a link out of the vault or above it.
        path = resolve_inside(self._root, rel)
        if path is None:
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        # Opening a FIFO named x.png blocks until something writes to it: the GUI thread would
        # hang forever. Only regular files are opened.
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_IMAGE_BYTES:
            return None
        return Path(path)

    def _finish_layout(self) -> None:
        """Lay out the rest of the page now and widen the scroll range to match. A large
        page is laid out in steps on a timer and the range follows later, so a jump far
        down (or a restored position) would be clamped to what is laid out so far."""
        height = self.document().documentLayout().documentSize().height()
        bar = self.verticalScrollBar()
        bar.setRange(0, max(bar.maximum(), math.ceil(height) - self.viewport().height()))

    def _index_lines(self) -> list[tuple[int, int]]:
        lines = []
        block = self.document().begin()
        while block.isValid():
            state = block.userState()
            if state > 0:
                lines.append((state, block.blockNumber()))
            block = block.next()
        # Footnotes are shown last but written anywhere: sort by line, not by position.
        lines.sort()
        return lines

    def _content_width(self) -> int:
        return max(64, min(self.MAX_CONTENT_WIDTH, self.viewport().width() - 2 * self._side()))

    def _side(self) -> int:
        spare = self.viewport().width() - self.MAX_CONTENT_WIDTH
        return max(self.MIN_SIDE_MARGIN, spare // 2)

    def _fit_content_width(self) -> None:
        """Centre the text in a column at most MAX_CONTENT_WIDTH wide: QTextBrowser's CSS has
        no max-width, but the root frame's side margins do the same."""
        frame = self.document().rootFrame()
        fmt = frame.frameFormat()
        side = self._side()
        if fmt.leftMargin() != side or fmt.rightMargin() != side:
            fmt.setLeftMargin(side)
            fmt.setRightMargin(side)
            fmt.setTopMargin(16)
            fmt.setBottomMargin(24)
            frame.setFrameFormat(fmt)

    def _match_background(self) -> None:
        """Paint the area below a short page in the page's own background colour."""
        brush = self.document().rootFrame().frameFormat().background()
        if brush.style() == Qt.BrushStyle.NoBrush:
            return
        palette = self.viewport().palette()
        palette.setBrush(QPalette.ColorRole.Base, brush)
        self.viewport().setPalette(palette)


def _escapes(rel: str) -> bool:
    """Whether a vault-relative path climbs out of the vault (``../``) or is absolute."""
    norm = posixpath.normpath(rel)
    return norm.startswith(("../", "/")) or norm == ".."
