"""The main window's menus (File, Edit, Go, View, Help) and what their items do to the open
vault: excluded folders, the external editor, undo, back and forward; the keyboard
shortcuts and About."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QUrl, Signal, Slot
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMainWindow, QMenu, QWidget

from ...services.settings import THEMES
from .help import ShortcutsDialog, show_about

if TYPE_CHECKING:
    from ...services.model import VaultModel
    from ...services.session import SessionService
    from ...services.settings import Settings


class WindowActions(QObject):
    """The menu bar of ``window``. What concerns the whole window is asked for by a signal;
    what concerns the open vault (``set_vault``) is done here.

    Signals:
        vault_chosen(Path): File → Open Vault… or a recent vault was picked.
        dictionary_chosen(object): a concept dictionary file was picked (a Path), or the
            vault's own concepts.json (None).
        theme_chosen(str): View → Theme: "system", "light" or "dark".
        switcher_requested(), search_requested(), graph_requested(): Go menu items.
        tab_requested(), side_requested(): View → the open note in a new tab, to the side.
    """

    vault_chosen = Signal(object)
    dictionary_chosen = Signal(object)
    theme_chosen = Signal(str)
    switcher_requested = Signal()
    search_requested = Signal()
    graph_requested = Signal()
    tab_requested = Signal()
    side_requested = Signal()

    def __init__(self, window: QMainWindow, settings: Settings) -> None:
        super().__init__(window)
        self._window = window  # the dialogs' parent
        self.settings = settings
        self.model: VaultModel | None = None
        self.session: SessionService | None = None
        bar = window.menuBar()
        file_menu = bar.addMenu("&File")
        self._action(
            # Not Ctrl+O (the standard Open): that is the quick switcher's, as in Obsidian.
            file_menu,
            "&Open Vault…",
            self._on_open_vault_triggered,
            "Ctrl+Shift+O",
        )
        self.recent_menu = file_menu.addMenu("Recent Vaults")
        self._action(file_menu, "Excluded Folders…", self._on_excluded_triggered)
        self._action(file_menu, "Concept Dictionary…", self._on_dictionary_triggered)
        self.own_dictionary_action = self._action(
            file_menu, "Use the Vault's concepts.json", self._on_own_dictionary_triggered
        )
        file_menu.addSeparator()
        self._action(
            file_menu, "Open in External Editor", self._on_external_editor_triggered, "Ctrl+E"
        )
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", window.close, QKeySequence.StandardKey.Quit)
        edit_menu = bar.addMenu("&Edit")
        self.undo_action = self._action(
            edit_menu, "&Undo Last Write", self._on_undo_triggered, QKeySequence.StandardKey.Undo
        )
        go_menu = bar.addMenu("&Go")
        self._action(go_menu, "&Quick Switcher…", self.switcher_requested.emit, "Ctrl+O")
        self._action(go_menu, "&Search", self.search_requested.emit, "Ctrl+Shift+F")
        self._action(go_menu, "&Graph", self.graph_requested.emit, "Ctrl+G")
        self.back_action = self._action(go_menu, "&Back", self.go_back, "Alt+Left")
        self.forward_action = self._action(go_menu, "&Forward", self.go_forward, "Alt+Right")
        self.back_action.setEnabled(False)
        self.forward_action.setEnabled(False)
        view_menu = bar.addMenu("&View")
        self._action(view_menu, "Open Note in New &Tab", self.tab_requested.emit, "Ctrl+T")
        self._action(view_menu, "Open Note to the &Side", self.side_requested.emit, "Ctrl+\\")
        view_menu.addSeparator()
        theme_menu = view_menu.addMenu("Theme")
        for name in THEMES:
            action = theme_menu.addAction(name.capitalize())
            action.setCheckable(True)
            action.setChecked(settings.theme() == name)
            action.triggered.connect(lambda _=False, n=name: self.theme_chosen.emit(n))
        self._theme_actions = theme_menu.actions()
        self.log_path: Path | None = None  # the crash log, named in About
        help_menu = bar.addMenu("&Help")
        self.shortcuts_action = self._action(
            help_menu, "&Keyboard Shortcuts", self._on_shortcuts_triggered, "F1"
        )
        self._action(help_menu, "&About Librarian", self._on_about_triggered)
        self.dialogs: list[QWidget] = []  # the last ones opened (tests read them)

    def _action(
        self, menu: QMenu, text: str, slot: Callable[..., Any], shortcut: Any = None
    ) -> QAction:
        action = menu.addAction(text)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        return action

    def set_vault(
        self, model: VaultModel | None, session: SessionService | None, *, own_dictionary: bool
    ) -> None:
        """The vault the items act on (None: none open). ``own_dictionary``: whether
        "Use the Vault's concepts.json" has something to go back from."""
        self.model, self.session = model, session
        self.own_dictionary_action.setEnabled(own_dictionary)
        self.undo_action.setEnabled(session.can_undo() if session is not None else False)

    def fill_recent_vaults(self, paths: list[Path]) -> None:
        self.recent_menu.clear()
        for path in paths:
            action = self.recent_menu.addAction(str(path))
            action.triggered.connect(lambda _=False, p=path: self.vault_chosen.emit(p))

    def check_theme(self, name: str) -> None:
        for action in self._theme_actions:
            action.setChecked(action.text().lower() == name)

    @Slot(bool, bool)
    def show_history(self, back: bool, forward: bool) -> None:
        self.back_action.setEnabled(back)
        self.forward_action.setEnabled(forward)

    @Slot()
    def go_back(self) -> None:
        if self.session is not None:
            self.session.go_back()

    @Slot()
    def go_forward(self) -> None:
        if self.session is not None:
            self.session.go_forward()

    @Slot()
    def _on_shortcuts_triggered(self) -> None:
        dialog = ShortcutsDialog(self._window)
        dialog.open()
        self.dialogs = [dialog]

    @Slot()
    def _on_about_triggered(self) -> None:
        self.dialogs = [show_about(self._window, self.log_path)]

    @Slot()
    def _on_open_vault_triggered(self) -> None:
        folder = QFileDialog.getExistingDirectory(self._window, "Open Vault")
        if folder:
            self.vault_chosen.emit(Path(folder))

    @Slot()
    def _on_excluded_triggered(self) -> None:
        if self.model is None:
            return
        current = "\n".join(self.model.excluded)
        text, ok = QInputDialog.getMultiLineText(
            self._window,
            "Excluded Folders",
            "Folders to leave out of the index, one per line (vault paths, e.g. templates).\n"
            "A .librarianignore file in the vault can exclude more (gitignore syntax).",
            current,
        )
        if ok:
            folders = tuple(line.strip().strip("/") for line in text.splitlines() if line.strip())
            self.settings.set_excluded(self.model.root, folders)
            self.model.rescan(folders)

    @Slot()
    def _on_dictionary_triggered(self) -> None:
        if self.model is None:
            return
        path, _ = QFileDialog.getOpenFileName(
            self._window,
            "Concept Dictionary",
            str(self.model.dictionary_path.parent),
            "Concept dictionaries (*.json);;All files (*)",
        )
        if path:
            self.dictionary_chosen.emit(Path(path))

    @Slot()
    def _on_own_dictionary_triggered(self) -> None:
        self.dictionary_chosen.emit(None)

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
