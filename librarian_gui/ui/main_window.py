"""The main window. For now a frame with the vault's name; the panes arrive with issue 3."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMainWindow


class MainWindow(QMainWindow):
    """The application window for one vault. Signals: none yet."""

    def __init__(self, vault: Path) -> None:
        super().__init__()
        self.vault = vault
        self.setWindowTitle(f"{vault.name} — Librarian")
        label = QLabel(f"Vault: {vault}")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setCentralWidget(label)
        self.statusBar().showMessage("Ready")
