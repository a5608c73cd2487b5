"""The search pane (Ctrl+Shift+F): a query box and results with highlighted snippets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, QUrl, Signal, Slot
from PySide6.QtWidgets import QLabel, QLineEdit, QTextBrowser, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from ...core.search.search import SearchHit
from ..mention_html import LIST_CSS, context_line, marked, parse_open_url, source_header

HELP = (
    'Words must all appear; "a phrase" as written; tag:name, path:folder, file:name; '
    "-word leaves notes out."
)


class SearchPane(QWidget):
    """Full-text search.

    Signals:
        query_changed(str): the user paused typing a query (debounced).
        result_activated(str, int): open this note at this line.
    """

    query_changed = Signal(str)
    result_activated = Signal(object, int)  # a path (see vault/tree.py)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.input = QLineEdit()
        self.input.setPlaceholderText("Search the vault…")
        self.input.setClearButtonEnabled(True)
        self.input.setToolTip(HELP)
        self.summary = QLabel(HELP)
        self.summary.setWordWrap(True)
        self.results = QTextBrowser()
        self.results.setOpenLinks(False)
        self.results.document().setDefaultStyleSheet(LIST_CSS)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.input)
        layout.addWidget(self.summary)
        layout.addWidget(self.results)
        self._debounce = QTimer(self, singleShot=True, interval=180)
        self._debounce.timeout.connect(self._on_debounce_timeout)
        self.input.textChanged.connect(self._on_input_text_changed)
        self.input.returnPressed.connect(self._on_debounce_timeout)
        self.results.anchorClicked.connect(self._on_results_anchor_clicked)
        self.hits: list[SearchHit] = []

    def focus_query(self) -> None:
        self.input.setFocus()
        self.input.selectAll()

    def set_query(self, text: str) -> None:
        self.input.setText(text)
        self._on_debounce_timeout()

    def show_busy(self) -> None:
        self.summary.setText("Searching…")

    def show_hits(self, query: str, hits: Sequence[SearchHit], *, closest: bool = False) -> None:
        """Show the hits of ``query``; ``closest``: no note holds every word, and these
        answer them best (``services.session.ClosestHits``), with their best lines."""
        self.hits = list(hits)
        total = sum(h.match_count for h in hits)
        if closest:
            best = "The note that answers it best:"
            if len(hits) > 1:
                best = f"The {len(hits)} notes that answer it best:"
            summary = f"No note holds every word of {query!r}. {best}"
        else:
            summary = (
                f"{len(hits)} notes, {total} matches" if hits else f"Nothing matches {query!r}."
            )
        self.summary.setText(summary)
        parts = []
        for hit in hits:
            title = hit.rel.rsplit("/", 1)[-1].removesuffix(".md")
            folder = hit.rel.rsplit("/", 1)[0] + "/" if "/" in hit.rel else ""
            first = hit.snippets[0].line if hit.snippets else 1
            where = folder if closest else f"{folder} · {hit.match_count}"
            parts.append(source_header(hit.rel, first, title, where))
            for snip in hit.snippets:
                parts.append(context_line(hit.rel, snip.line, marked(snip.text, snip.highlights)))
        self.results.setHtml("".join(parts))

    def show_error(self, message: str) -> None:
        self.summary.setText(message)
        self.results.clear()

    @Slot(str)
    def _on_input_text_changed(self, _text: str) -> None:
        self._debounce.start()

    @Slot()
    def _on_debounce_timeout(self) -> None:
        self._debounce.stop()
        text = self.input.text().strip()
        if not text:
            self.hits = []
            self.results.clear()
            self.summary.setText(HELP)
            return
        self.show_busy()
        self.query_changed.emit(text)

    @Slot(QUrl)
    def _on_results_anchor_clicked(self, url: QUrl) -> None:
        target = parse_open_url(bytes(url.toEncoded().data()).decode())
        if target is not None:
            self.result_activated.emit(*target)
