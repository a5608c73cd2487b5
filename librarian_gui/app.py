"""The desktop app's entry point: parses arguments, creates the application and window."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="librarian-gui", description="Browse a vault of notes.")
    parser.add_argument("vault", nargs="?", help="vault folder (default: the bundled demo vault)")
    parser.add_argument(
        "--screenshot", metavar="OUT.png", help="render the window to a PNG and exit"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from PySide6.QtWidgets import QApplication

    from .resources import user_demo_vault
    from .ui.main_window import MainWindow

    vault = Path(args.vault).expanduser() if args.vault else user_demo_vault()
    if not vault.is_dir():
        print(f"librarian-gui: {vault}: no such vault folder", file=sys.stderr)
        return 3
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Librarian")
    app.setOrganizationName("Librarian")
    window = MainWindow(vault)
    window.resize(1280, 800)
    if args.screenshot:
        window.show()
        app.processEvents()
        ok = window.grab().save(args.screenshot)
        window.close()
        return 0 if ok else 1
    window.show()
    return app.exec()
