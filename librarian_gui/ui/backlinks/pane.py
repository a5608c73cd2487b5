"""The backlinks pane: linked mentions with their lines, unlinked mentions with a Link button."""

from __future__ import annotations

import html
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QUrl, Signal, Slot
from PySide6.QtWidgets import QLabel, QSplitter, QTextBrowser, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from ...core.backlinks.linked import MentionGroup
from ..mention_html import LIST_CSS, context_line, marked, parse_open_url, source_header

MAX_GROUPS = 300  # a hub note linked from thousands of notes: the first ones, then a notice
# A log linking the note on each of its 100,000 lines: each line shown costs the GUI thread
# ~55 µs to lay out, so a note shows its first lines, then how many more there are.
MAX_LINES_PER_NOTE = 20
# Lines laid out at first in each list; "Show more" doubles it. 540 unlinked mentions of a
# note of interconnected-10k took the GUI thread 65 ms (22 ms of HTML, 43 ms of layout),
# and froze the window as it opened the note; 100 take about 12 ms.
PAGE_LINES = 100
READ_ONLY_NOTE = "not UTF-8: Librarian never writes it"  # so its mentions have no Link


def _trimmed(
    text: str, spans: Sequence[tuple[int, int]], width: int = 220
) -> tuple[str, list[tuple[int, int]]]:
    """A long line cut around its first span, with the spans moved to match."""
    if len(text) <= width or not spans:
        return text, list(spans)
    first = spans[0][0]
    begin = max(0, first - width // 3)
    end = min(len(text), begin + width)
    prefix = "…" if begin else ""
    suffix = "…" if end < len(text) else ""
    shift = begin - len(prefix)
    moved = [(a - shift, b - shift) for a, b in spans if a >= begin and b <= end]
    return prefix + text[begin:end] + suffix, moved


class _Section(QWidget):
    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QLabel(title)
        self.header.setObjectName("sectionHeader")
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.setOpenExternalLinks(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.header)
        layout.addWidget(self.browser)
        self.limit = PAGE_LINES  # lines laid out (a note's lines are not split)


class BacklinksPane(QWidget):
    """Linked and unlinked mentions of the open note.

    Signals:
        source_activated(str, int): the user chose a mention: open that note at that line.
        link_requested(object): the user clicked Link on an unlinked mention (the Mention).
    """

    source_activated = Signal(object, int)  # a path (see vault/tree.py)
    link_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.linked = _Section("Linked mentions")
        self.unlinked = _Section("Unlinked mentions")
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.linked)
        splitter.addWidget(self.unlinked)
        splitter.setSizes([600, 300])
        self.splitter = splitter
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 4)
        layout.addWidget(splitter)
        for section in (self.linked, self.unlinked):
            section.browser.document().setDefaultStyleSheet(LIST_CSS)
            section.browser.anchorClicked.connect(self._on_anchor_clicked)
        self._groups: list[MentionGroup] = []
        self._mentions: list[Any] = []
        self._read_only: frozenset[str] = frozenset()
        self.linked_count = 0
        self.unlinked_count = 0

    def show_waiting(self, message: str = "Looking…") -> None:
        for section in (self.linked, self.unlinked):
            section.browser.setHtml(f'<p class="empty">{html.escape(message)}</p>')

    def show_linked(self, groups: Sequence[MentionGroup]) -> None:
        count = sum(g.count for g in groups)
        self.linked_count = count
        self.linked.header.setText(f"Linked mentions ({count} in {len(groups)} notes)")
        self._groups = list(groups)
        self._render_linked()

    def _render_linked(self) -> None:
        groups = self._groups
        parts = []
        lines = 0
        shown = 0
        for group in groups[:MAX_GROUPS]:
            if lines >= self.linked.limit:
                break
            shown += 1
            folder = group.source.rsplit("/", 1)[0] + "/" if "/" in group.source else ""
            first = group.lines[0].line if group.lines else 1
            parts.append(
                source_header(group.source, first, group.title, f"({group.count}) {folder}")
            )
            for line in group.lines[:MAX_LINES_PER_NOTE]:
                text, spans = _trimmed(line.text.strip(), _stripped(line.text, line.spans))
                parts.append(context_line(group.source, line.line, marked(text, spans, "hl")))
                lines += 1
            if len(group.lines) > MAX_LINES_PER_NOTE:
                more = len(group.lines) - MAX_LINES_PER_NOTE
                parts.append(f'<p class="ctx empty">… and {more:,} more lines in this note.</p>')
        if shown < min(len(groups), MAX_GROUPS):
            parts.append(_more_link("linked", len(groups) - shown, "notes"))
        elif len(groups) > MAX_GROUPS:
            parts.append(f'<p class="empty">… and {len(groups) - MAX_GROUPS} more notes.</p>')
        if not groups:
            parts.append('<p class="empty">No note links here.</p>')
        self._set(self.linked, "".join(parts))

    def show_unlinked(
        self, mentions: Sequence[Any], read_only: AbstractSet[str] = frozenset()
    ) -> None:
        """``mentions``: core.mentions.Mention items (source, line, column, text, context);
        ``read_only``: their sources Librarian never writes (not UTF-8), shown without Link."""
        self._mentions = list(mentions)
        self._read_only = frozenset(read_only)
        self.unlinked_count = len(mentions)
        sources = {m.source for m in mentions}
        self.unlinked.header.setText(f"Unlinked mentions ({len(mentions)} in {len(sources)} notes)")
        self._render_unlinked()

    def _render_unlinked(self) -> None:
        listed = self._mentions[: MAX_GROUPS * 3]
        shown = listed[: self.unlinked.limit]
        parts = []
        last = None
        for i, mention in enumerate(shown):
            if mention.source != last:
                last = mention.source
                title = mention.source.removesuffix(".md")
                why = READ_ONLY_NOTE if mention.source in self._read_only else ""
                parts.append(source_header(mention.source, mention.line, title, why))
            raw = mention.context
            shift = len(raw) - len(raw.lstrip())
            span = (mention.column - shift, mention.column - shift + len(mention.text))
            text, spans = _trimmed(raw.strip(), [span])
            button = (
                ""
                if mention.source in self._read_only
                else f'&nbsp;<a class="btn" href="link:///{i}" '
                'title="Turn this mention into a link">Link</a>'
            )
            body = f"{marked(text, spans, 'mention')} {button}"
            parts.append(context_line(mention.source, mention.line, body))
        if len(shown) < len(listed):
            parts.append(_more_link("unlinked", len(self._mentions) - len(shown), "mentions"))
        elif len(listed) < len(self._mentions):
            parts.append(f'<p class="empty">… and {len(self._mentions) - len(listed)} more.</p>')
        if not self._mentions:
            parts.append('<p class="empty">No unlinked mentions.</p>')
        self._set(self.unlinked, "".join(parts))

    def reset_pages(self) -> None:
        """Another note is open: each list lays out its first page again."""
        for section, render in (
            (self.linked, self._render_linked),
            (self.unlinked, self._render_unlinked),
        ):
            if section.limit != PAGE_LINES:
                section.limit = PAGE_LINES
                render()

    def _set(self, section: _Section, body: str) -> None:
        bar = section.browser.verticalScrollBar()
        position = bar.value()
        section.browser.setHtml(body)
        bar.setValue(position)

    @Slot(QUrl)
    def _on_anchor_clicked(self, url: QUrl) -> None:
        target = parse_open_url(bytes(url.toEncoded().data()).decode())
        if target is not None:
            self.source_activated.emit(*target)
        elif url.scheme() == "more":
            section, render = (
                (self.linked, self._render_linked)
                if url.path().strip("/") == "linked"
                else (self.unlinked, self._render_unlinked)
            )
            section.limit *= 2
            render()
        elif url.scheme() == "link":
            index = int(url.path().lstrip("/") or -1)
            if 0 <= index < len(self._mentions) and (
                self._mentions[index].source not in self._read_only
            ):
                self.link_requested.emit(self._mentions[index])


def _stripped(raw: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    shift = len(raw) - len(raw.lstrip())
    return [(a - shift, b - shift) for a, b in spans]


def _more_link(section: str, left: int, what: str) -> str:
    """The end of a list laid out in part: a link that lays out twice as many lines."""
    return (
        f'<p class="empty"><a class="btn" href="more:///{section}" '
        f'title="Lay out twice as many lines">Show more</a> ({left:,} more {what})</p>'
    )
