"""Errors nobody caught: written to a log file in the user's log folder and told to the
window, which stays open.

An exception escaping a slot (Qt calls ``sys.excepthook`` and goes on) or a thread
(``threading.excepthook``) is logged with its traceback to ``librarian.log`` in
``log_folder()`` and still printed to stderr as Python prints it; then ``crashed`` is
emitted, queued to the thread the reporter lives in (the GUI thread), for the window to
show a non-fatal message.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
import threading
import traceback
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QObject, QStandardPaths, Signal

LOG_NAME = "librarian.log"
LOG_BYTES = 1_000_000  # then rotated, three files kept
_log = logging.getLogger("librarian_gui.crash")


def log_folder() -> Path:
    """Where Librarian's log goes: ``$XDG_STATE_HOME/librarian`` (``~/.local/state``) on
    Linux and the BSDs, the application's local data folder elsewhere."""
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
        return Path(state) / "librarian"
    location = QStandardPaths.StandardLocation.AppLocalDataLocation
    return Path(QStandardPaths.writableLocation(location)) / "logs"


class CrashReporter(QObject):
    """Catches what nobody caught (see the module's docstring) while installed.

    Signals:
        crashed(str, str): a one-line summary ("ValueError: …") and the traceback.
    """

    crashed = Signal(str, str)

    def __init__(self, folder: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.log_path = (folder or log_folder()) / LOG_NAME
        self._handler: logging.Handler | None = None
        self._previous = (sys.excepthook, threading.excepthook)

    def install(self) -> None:
        self._previous = (sys.excepthook, threading.excepthook)
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            handler: logging.Handler = logging.handlers.RotatingFileHandler(
                self.log_path, maxBytes=LOG_BYTES, backupCount=3, encoding="utf-8"
            )
        except OSError as exc:  # no log folder: the message still shows, stderr still has it
            print(f"librarian-gui: cannot write {self.log_path}: {exc}", file=sys.stderr)
            handler = logging.NullHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        _log.addHandler(handler)
        _log.setLevel(logging.INFO)
        self._handler = handler
        sys.excepthook = self._on_exception
        threading.excepthook = self._on_thread_exception

    def uninstall(self) -> None:
        sys.excepthook, threading.excepthook = self._previous
        if self._handler is not None:
            _log.removeHandler(self._handler)
            self._handler.close()
            self._handler = None

    def _on_exception(
        self,
        kind: type[BaseException],
        error: BaseException,
        trace: TracebackType | None,
    ) -> None:
        self._previous[0](kind, error, trace)  # stderr, as Python prints it
        if issubclass(kind, KeyboardInterrupt):
            return
        self._report(kind, error, trace, "")

    def _on_thread_exception(self, args: threading.ExceptHookArgs) -> None:
        self._previous[1](args)
        if args.exc_value is None or issubclass(args.exc_type, SystemExit):
            return
        where = f" in thread {args.thread.name}" if args.thread is not None else ""
        self._report(args.exc_type, args.exc_value, args.exc_traceback, where)

    def _report(
        self,
        kind: type[BaseException],
        error: BaseException,
        trace: TracebackType | None,
        where: str,
    ) -> None:
        text = "".join(traceback.format_exception(kind, error, trace))
        summary = "".join(traceback.format_exception_only(kind, error)).strip()
        _log.error("uncaught%s:\n%s", where, text)
        self.crashed.emit(summary + where, text)
