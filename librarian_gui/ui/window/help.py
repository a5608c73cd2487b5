"""The Help menu's windows: the keyboard shortcuts (F1), About (version, log file), and
the message an uncaught error leaves (the app goes on)."""

from __future__ import annotations

import html
import platform
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import QDialog, QLabel, QMessageBox, QVBoxLayout, QWidget

from ... import __version__

# What each key does, in the order a new user needs them; the menus show the same keys.
SHORTCUTS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Finding",
        (
            ("Ctrl+O", "Quick switcher: a note, alias or concept by name (typos forgiven)"),
            ("Ctrl+Shift+F", 'Search the notes ("a phrase", tag:x, path:folder, -word)'),
            ("Ctrl+G", "Graph of the open note's neighbourhood"),
        ),
    ),
    (
        "Reading",
        (
            ("Alt+Left / Alt+Right", "Back and forward (also the mouse's side buttons)"),
            ("Click a [[link]]", "Open the note it points to"),
            ("Ctrl+click a link", "Open its note in a new tab"),
            ("Ctrl+Alt+click a link", "Open its note beside this one (a split)"),
            ("Ctrl+T", "The open note in a new tab"),
            ("Ctrl+\\", "The open note to the side"),
            ("Ctrl+E", "Open the note in your external editor"),
        ),
    ),
    (
        "Writing",
        (
            ("Ctrl+Z", "Undo the last write (a Link, a tagging run, a fix, an agent's note)"),
            ("Ctrl+S", "Save the concept dictionary (in the Dictionary tab)"),
        ),
    ),
    (
        "The window",
        (
            ("Ctrl+Shift+O", "Open another vault"),
            ("F1", "This list"),
            ("Ctrl+Q", "Quit"),
        ),
    ),
)


def shortcuts_html() -> str:
    rows = []
    for group, keys in SHORTCUTS:
        rows.append(f"<tr><th colspan=2 align=left><br>{html.escape(group)}</th></tr>")
        rows.extend(
            f"<tr><td style='padding-right:18px'><b>{html.escape(key)}</b></td>"
            f"<td>{html.escape(what)}</td></tr>"
            for key, what in keys
        )
    return "<table>" + "".join(rows) + "</table>"


class ShortcutsDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard Shortcuts — Librarian")
        layout = QVBoxLayout(self)
        self.label = QLabel(shortcuts_html())
        self.label.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.label)


def about_html(log_path: Path | None) -> str:
    log = (
        f"<p>Log file (errors nobody caught):<br><code>{html.escape(str(log_path))}</code></p>"
        if log_path is not None
        else ""
    )
    return (
        f"<h2>Librarian {html.escape(__version__)}</h2>"
        "<p>A knowledge browser for a vault of Markdown notes: backlinks, a live link graph "
        "and a concept dictionary, for the memory an AI agent (or a person) keeps.</p>"
        f"<p>Python {html.escape(platform.python_version())} · Qt {html.escape(qVersion())} "
        f"· PySide6 {html.escape(pyside_version)}</p>{log}"
    )


def show_about(parent: QWidget, log_path: Path | None) -> QMessageBox:
    box = QMessageBox(parent)
    box.setWindowTitle("About Librarian")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(about_html(log_path))
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.open()
    return box


def show_crash(parent: QWidget, summary: str, trace: str, log_path: Path | None) -> QMessageBox:
    """A non-modal message for an error nobody caught: what it was, that Librarian goes
    on, where the log is; the traceback under Details."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Something went wrong — Librarian")
    where = f" It is logged in {log_path}." if log_path is not None else ""
    box.setText(
        f"{summary}\n\nLibrarian goes on; what you were doing may not have finished.{where}"
    )
    box.setDetailedText(trace)
    box.setModal(False)
    box.show()
    return box
