"""The Related pane: notes like the open one in other words, each with its score, the shared
terms and concepts that explain it (highlighted where they occur), and a Link button on the
ones not linked yet."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QSignalBlocker, QUrl, Signal, Slot
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..mention_html import LIST_CSS, context_line, marked, parse_open_url, source_header

if TYPE_CHECKING:
    from ...core.related.explain import Explained

RELATED_CSS = (
    LIST_CSS
    + """
.group { margin-top: 10px; font-weight: bold; color: palette(mid); }
.why { margin-left: 10px; color: palette(mid); font-size: small; }
.term { font-weight: bold; }
.concept { font-weight: bold; color: #2f7d4f; }
"""
)


class RelatedPane(QWidget):
    """The open note's related notes, "similar but not linked" first.

    Signals:
        source_activated(str, int): open that note at that line.
        link_requested(str, str): the user clicked Link: the open note and the related
            note to link from it.
        threshold_changed(float): the user set the score a related note needs.
    """

    source_activated = Signal(object, int)
    link_requested = Signal(str, str)
    threshold_changed = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QLabel("Related notes")
        self.header.setObjectName("sectionHeader")
        self.threshold = QDoubleSpinBox()
        self.threshold.setRange(0.0, 1.0)
        self.threshold.setSingleStep(0.05)
        self.threshold.setDecimals(2)
        self.threshold.setPrefix("score ≥ ")
        self.threshold.setToolTip(
            "The similarity a note needs to be listed (also the graph's related edges)"
        )
        self.threshold.valueChanged.connect(self.threshold_changed)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.header, 1)
        top.addWidget(self.threshold)
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.setOpenExternalLinks(False)
        self.browser.document().setDefaultStyleSheet(RELATED_CSS)
        self.browser.anchorClicked.connect(self._on_browser_anchor_clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.browser)
        self.note: str | None = None
        self.shown: list[Explained] = []

    def set_threshold(self, threshold: float) -> None:
        """Show the threshold in use (set elsewhere too: the graph's slider)."""
        with QSignalBlocker(self.threshold):
            self.threshold.setValue(threshold)

    def show_waiting(self, message: str) -> None:
        """No answer for the open note yet: say why."""
        self.shown = []
        self.browser.setHtml(f'<p class="empty">{html.escape(message)}</p>')

    def show_not_compared(self, note: str) -> None:
        """``note`` is the index note, which the model leaves out: say so, not that no
        note scores enough (no threshold would show one)."""
        self.note = note
        self.shown = []
        self.header.setText(f"{note}: not compared")
        self.browser.setHtml(
            '<p class="empty">The index note is not compared: it links every note, so it '
            "is like none of them.</p>"
        )

    def show_related(self, note: str, found: Sequence[Explained], threshold: float) -> None:
        same = note == self.note
        self.note = note
        self.shown = list(found)
        unlinked = [e for e in found if not e.related.linked]
        linked = [e for e in found if e.related.linked]
        self.header.setText(f"{len(found)} related, {len(unlinked)} not linked")
        self.set_threshold(threshold)
        parts = []
        for title, group in (("Similar but not linked", unlinked), ("Already linked", linked)):
            if group:
                parts.append(f'<p class="group">{title} ({len(group)})</p>')
            for item in group:
                parts.append(self._item(self.shown.index(item), item))
        if not found:
            parts.append(
                f'<p class="empty">No note scores {threshold:.2f} or more. A lower score '
                "(above) shows weaker matches.</p>"
            )
        bar = self.browser.verticalScrollBar()
        position = bar.value() if same else 0
        self.browser.setHtml("".join(parts))
        bar.setValue(position)

    @staticmethod
    def _item(number: int, item: Explained) -> str:
        related = item.related
        rel = related.note
        title = rel.rsplit("/", 1)[-1].removesuffix(".md")
        folder = " · " + rel.rsplit("/", 1)[0] + "/" if "/" in rel else ""
        header = source_header(rel, item.line or 1, title, f"{related.score:.2f}{folder}")
        if not related.linked:
            button = (
                f'&nbsp;<a class="btn" href="link:///{number}" '
                'title="Add a link to this note under “Related” at the end of the open note">'
                "Link</a></p>"
            )
            header = header.removesuffix("</p>") + button
        why = []
        if related.terms:
            terms = ", ".join(f'<span class="term">{html.escape(t)}</span>' for t in related.terms)
            why.append(f"shared: {terms}")
        if related.concepts:
            names = ", ".join(
                f'<span class="concept">{html.escape(c)}</span>' for c in related.concepts
            )
            why.append(f"concepts: {names}")
        if item.passage:
            why.append("a passage in common (below)")
        elif related.passage:
            why.append("a passage in common")
        parts = [header]
        if why:
            parts.append(f'<p class="why">{" · ".join(why)}</p>')
        if item.line:
            parts.append(context_line(rel, item.line, marked(item.text, item.spans, "hl")))
        return "".join(parts)

    @Slot(QUrl)
    def _on_browser_anchor_clicked(self, url: QUrl) -> None:
        target = parse_open_url(bytes(url.toEncoded().data()).decode())
        if target is not None:
            self.source_activated.emit(*target)
        elif url.scheme() == "link" and self.note is not None:
            number = url.path().lstrip("/")
            if number.isdigit() and int(number) < len(self.shown):
                self.link_requested.emit(self.note, self.shown[int(number)].related.note)
