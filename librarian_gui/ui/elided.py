"""A one-line label for text holding a path: cut in the middle of its folders to the width
it is given, never asking for more, so a long path cannot widen the window."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

MIN_CHARS = 12  # the least it asks for, in average characters


class ElidedLabel(QLabel):
    """Shows ``full_text`` whole when it fits, else its start and end around "…" (the
    folder and the note's name both stay readable); the whole text is then its tooltip."""

    def __init__(
        self, text: str = "", parent: QWidget | None = None, *, sentence: bool = False
    ) -> None:
        """``sentence``: the text is a line of prose, cut at its end, not a path."""
        super().__init__(parent)
        self._sentence = sentence
        self.full_text = ""
        self._after = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setText(text)

    def setText(self, text: str) -> None:
        self.set_path(text)

    def set_path(self, path: str, after: str = "") -> None:
        """Show ``path`` then ``after`` (a count, say): only the path is cut, in its middle,
        so its start and its file name stay readable and ``after`` stays whole."""
        self.full_text = path + after
        self._after = after
        self._elide()

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(self.fontMetrics().averageCharWidth() * MIN_CHARS, hint.height())

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(self.fontMetrics().horizontalAdvance(self.full_text) + 8, hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        metrics = self.fontMetrics()
        after = self._after
        path = self.full_text[: len(self.full_text) - len(after)]
        room = max(0, self.contentsRect().width() - metrics.horizontalAdvance(after))
        if self._sentence:
            shown = metrics.elidedText(path, Qt.TextElideMode.ElideRight, room) + after
        else:
            shown = elide_path(path, room, metrics) + after
        super().setText(shown)
        self.setToolTip(self.full_text if shown != self.full_text else "")


def elide_path(path: str, room: int, metrics: QFontMetrics) -> str:
    """``path`` within ``room`` pixels: whole if it fits, else its folders cut in their
    middle before the file name kept whole, else (a name too long itself) cut anywhere."""
    if metrics.horizontalAdvance(path) <= room:
        return path
    folder, slash, name = path.rpartition("/")
    rest = room - metrics.horizontalAdvance(slash + name)
    if folder and rest >= metrics.horizontalAdvance("a…z"):
        return metrics.elidedText(folder, Qt.TextElideMode.ElideMiddle, rest) + slash + name
    return metrics.elidedText(path, Qt.TextElideMode.ElideMiddle, room)


def tab_text(title: str) -> str:
    """A title as a tab shows it: "&" doubled, or Qt takes "R&D" for a shortcut on "D"."""
    return title.replace("&", "&&")
