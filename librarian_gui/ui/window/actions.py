"""The main window's File, Edit and Go menu actions (open a vault, excluded folders, the
concept dictionary, external editor, undo, history, theme): a part of ``MainWindow``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl, Slot
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QStatusBar, QWidget

from .. import theme

if TYPE_CHECKING:
    from ...services.model import VaultModel
    from ...services.session import VaultSession
    from ...services.settings import Settings
    from ..concepts.tabs import ConceptTabs


class WindowActions:
    """Mixed into ``MainWindow``: the slots of its menus. Uses the window's open vault
    (``model``, ``session``, ``concept_tabs``), ``settings`` and ``open_vault``."""

    model: VaultModel | None
    session: VaultSession | None
    concept_tabs: ConceptTabs | None
    settings: Settings
    _theme_actions: list[QAction]

    # MainWindow's and QMainWindow's (annotations only: nothing here shadows them)
    open_vault: Callable[[Path], None]
    statusBar: Callable[[], QStatusBar]

    def _parent(self) -> QWidget:
        assert isinstance(self, QWidget)
        return self

    @Slot()
    def _on_open_vault_triggered(self) -> None:
        folder = QFileDialog.getExistingDirectory(self._parent(), "Open Vault")
        if folder:
            self.open_vault(Path(folder))

    @Slot()
    def _on_excluded_triggered(self) -> None:
        if self.model is None:
            return
        current = "\n".join(self.model.excluded)
        text, ok = QInputDialog.getMultiLineText(
            self._parent(),
            "Excluded Folders",
            "Folders to leave out of the index, one per line (vault paths, e.g. templates).\n"
            "A .librarianignore file in the vault can exclude more (gitignore syntax).",
            current,
        )
        if ok:
            folders = tuple(line.strip().strip("/") for line in text.splitlines() if line.strip())
            self.settings.set_excluded(self.model.root, folders)
            self.model.rescan(folders)

    def use_dictionary(self, path: Path | None) -> bool:
        """Use this concept dictionary for the open vault from now on (None: the vault's
        own concepts.json): remembered per vault; the vault is indexed again with it.
        False when the user kept unsaved dictionary edits instead."""
        if self.model is None:
            return False
        tabs = self.concept_tabs
        if (
            tabs is not None
            and tabs.editor.dirty
            and not tabs.editor.confirm(
                "Concept dictionary",
                "The dictionary has unsaved edits. Discard them and switch dictionaries?",
            )
        ):
            return False
        root = self.model.root
        self.settings.set_dictionary(root, path.expanduser().resolve() if path else None)
        self.open_vault(root)
        assert self.model is not None
        self.statusBar().showMessage(f"Concept dictionary: {self.model.dictionary_path}", 8000)
        return True

    @Slot()
    def _on_dictionary_triggered(self) -> None:
        if self.model is None:
            return
        path, _ = QFileDialog.getOpenFileName(
            self._parent(),
            "Concept Dictionary",
            str(self.model.dictionary_path.parent),
            "Concept dictionaries (*.json);;All files (*)",
        )
        if path:
            self.use_dictionary(Path(path))

    @Slot()
    def _on_own_dictionary_triggered(self) -> None:
        self.use_dictionary(None)

    @Slot()
    def _on_external_editor_triggered(self) -> None:
        if self.session is None or self.session.current is None or self.model is None:
            return
        place = self.session.current
        if place.kind == "note":
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.model.root / place.node)))

    @Slot()
    def _on_undo_triggered(self) -> None:
        if self.session is not None:
            self.session.undo_last()

    @Slot()
    def _on_back_triggered(self) -> None:
        if self.session is not None:
            self.session.go_back()

    @Slot()
    def _on_forward_triggered(self) -> None:
        if self.session is not None:
            self.session.go_forward()

    def set_theme(self, name: str) -> None:
        self.settings.set_theme(name)
        for action in self._theme_actions:
            action.setChecked(action.text().lower() == name)
        dark = theme.resolve(name)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            theme.apply(app, dark)
        if self.session is not None:
            self.session.set_dark(dark)
