"""The desktop app's entry point: parses arguments, creates the application and window."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .services.settings import Settings
    from .ui.window.main_window import MainWindow

VIEWS = (
    "preview",
    "backlinks",
    "unlinked",
    "outgoing",
    "outline",
    "related",
    "recent",
    "tags",
    "files",
    "search",
    "switcher",
    "graph",
    "graph-global",
    "local-graph",
    "conceptmap",
    "timeline",
    "concepts",
    "thin-spots",
    "index-health",
    "split",
    "review",
    "contradictions",
    "supersede",
    "editor",
    "suggestions",
    "isolated",
    "tagging",
    "tagging-preview",
    "warnings",
)
SCREENSHOT_SIZE = (1400, 860)
# Views that draw related notes: their screenshot waits for the related-notes first pass
# ("related" waits for the open note's answer, which comes after it).
RELATED_VIEWS = ("thin-spots", "graph", "graph-global", "local-graph")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="librarian-gui", description="Browse a vault of notes.")
    parser.add_argument(
        "vault",
        nargs="?",
        help="vault folder (default: the last one opened, else the bundled demo vault)",
    )
    parser.add_argument(
        "--screenshot",
        metavar="OUT.png",
        help=f"render the window offscreen at {SCREENSHOT_SIZE[0]}×{SCREENSHOT_SIZE[1]} "
        "to a PNG once the note is shown, and exit",
    )
    parser.add_argument("--note", metavar="NOTE", help="open this note (title or vault path)")
    parser.add_argument(
        "--concept",
        metavar="ID",
        help="open this concept's page and select it in the concept editor (exit 4 if the "
        "dictionary has no such concept)",
    )
    parser.add_argument(
        "--view", choices=VIEWS, default="preview", help="the pane to show (with --screenshot)"
    )
    parser.add_argument(
        "--query",
        help="with --view search or switcher: the text typed into it; with --view timeline: "
        "the concept ids to plot, comma-separated (default: --concept, else the dictionary's "
        "first three)",
    )
    parser.add_argument(
        "--theme",
        choices=("system", "light", "dark"),
        help="colour theme (remembered, except with --screenshot)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.screenshot:
        return _run(args)
    with quiet_platform_messages():  # from the window's first show to its last timer
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    from .resources import user_demo_vault
    from .services.settings import Settings
    from .ui import theme

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("Librarian")
    app.setOrganizationName("Librarian")
    from PySide6.QtGui import QIcon

    from .resources import resources_dir

    app.setWindowIcon(QIcon(str(resources_dir() / "icons" / "librarian.svg")))
    app.setDesktopFileName("librarian")  # Wayland matches the window to librarian.desktop
    if args.screenshot and not Path(args.screenshot).expanduser().parent.is_dir():
        folder = Path(args.screenshot).expanduser().parent
        print(f"librarian-gui: --screenshot: no folder {folder} to write into", file=sys.stderr)
        return 2
    # A screenshot reads the saved settings and changes none of them: it runs on a copy.
    settings = _scratch_settings() if args.screenshot else Settings()
    if args.theme:
        settings.set_theme(args.theme)
    last = settings.last_vault()
    if args.vault:
        vault = Path(args.vault).expanduser()
    elif last is not None and last.is_dir():
        vault = last
    else:
        vault = user_demo_vault()
    if not vault.is_dir():
        print(f"librarian-gui: {vault}: no such vault folder", file=sys.stderr)
        return 3
    concept = args.concept
    if concept is not None:
        found, problem = _known_concept(vault, settings.dictionary(vault.resolve()), concept)
        if found is None:
            print(f"librarian-gui: {problem}", file=sys.stderr)
            return 4
        concept = found
    theme.apply(app, theme.resolve(settings.theme()))
    window = open_window(vault, settings, note=args.note, concept=concept)
    from .services.crash import CrashReporter

    # An exception in a slot or a thread: logged, told, and the window goes on.
    reporter = CrashReporter(parent=app)
    reporter.install()
    window.actions.log_path = reporter.log_path
    reporter.crashed.connect(window.show_crash)
    if args.screenshot:
        code = _screenshot(app, window, args.screenshot, args.view, args.query or "", concept)
        missing = window.missing_note
        # Closed, the window still had timers pending (the graph's import, the tag counts)
        # that fired seconds later for a caller that goes on after main() (the tests do).
        window.deleteLater()
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        reporter.uninstall()
        if missing is not None:
            print(f"librarian-gui: {missing[0]} (in {vault})", file=sys.stderr)
            return missing[1]
        return code
    if concept is not None and window.model is not None and window.session is not None:
        session = window.session
        window.model.index_ready.connect(lambda _i: session.open_node("concept", concept))
    window.resize(1400, 860)
    window.show()
    try:
        return app.exec()
    finally:
        reporter.uninstall()


# Qt messages a user cannot act on: the offscreen platform (a screenshot's) says it cannot
# pass a window's size hints on, three or four times a run.
UNACTIONABLE = ("This plugin does not support propagateSizeHints()",)


@contextlib.contextmanager
def quiet_platform_messages() -> Iterator[None]:
    """Qt's messages, but those in ``UNACTIONABLE``, go where they went before."""
    from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler

    def handler(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if message in UNACTIONABLE:
            return
        if previous is not None:
            previous(kind, context, message)
        else:  # Qt's own handler, which a Python one cannot call: its plain output
            print(message, file=sys.stderr)

    previous = qInstallMessageHandler(handler)
    try:
        yield
    finally:
        qInstallMessageHandler(previous)


def _scratch_settings() -> Settings:
    """The saved settings, copied into a temporary file that is thrown away at exit."""
    import atexit
    import shutil
    import tempfile

    from PySide6.QtCore import QSettings

    from .services.settings import Settings

    folder = tempfile.mkdtemp(prefix="librarian-screenshot-")
    atexit.register(shutil.rmtree, folder, True)
    saved = QSettings("Librarian", "Librarian")
    scratch = QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat)
    for key in saved.allKeys():
        scratch.setValue(key, saved.value(key))
    return Settings(scratch)


def open_window(
    vault: Path, settings: Settings, *, note: str | None = None, concept: str | None = None
) -> MainWindow:
    """The window on ``vault``, opening ``note`` once indexed, with ``concept`` (an id of
    the dictionary) selected in the concept editor."""
    from .ui.window.main_window import MainWindow

    window = MainWindow(vault, settings=settings, open_note=note)
    if concept is not None and window.concept_tabs is not None:
        window.concept_tabs.editor.preselect(concept)
    return window


def _known_concept(vault: Path, chosen: Path | None, concept: str) -> tuple[str | None, str]:
    """The dictionary's id for ``concept`` (ids match case-insensitively, as links do), or
    None and why not: before the window opens, so a mistyped id fails at once."""
    from .core.concepts.dictionary import dictionary_place, load_dictionary

    path, _rel = dictionary_place(vault.resolve(), chosen)
    dictionary = load_dictionary(path)
    found = dictionary.get(concept)
    if found is not None:
        return found.id, ""
    if dictionary.error is not None:
        return None, f"no concept {concept!r}: the dictionary cannot be used ({dictionary.error})"
    if dictionary.path is None:
        return None, f"no concept {concept!r}: {vault} has no concept dictionary ({path.name})"
    return None, f"no concept {concept!r} in {path}"


def _wait_for_concept_map(window: MainWindow, loop: object) -> None:
    """The graph tab in its concept map mode (once its view is made), until the map is
    drawn."""
    from PySide6.QtCore import QTimer

    assert window.graph_service is not None
    quit_ = loop.quit  # type: ignore[attr-defined]
    window.graph_service.concept_map.map_ready.connect(lambda _m: QTimer.singleShot(300, quit_))

    def choose() -> None:
        view = window.graph
        if view is None:
            QTimer.singleShot(50, choose)  # the graph's modules are still loading
            return
        view.mode.setCurrentIndex(view.mode.findData("conceptmap"))

    choose()
    QTimer.singleShot(60_000, quit_)
    loop.exec()  # type: ignore[attr-defined]


def _wait_for_timeline(window: MainWindow, loop: object, concepts: str) -> None:
    """The timeline tab with ``concepts`` ticked (ids, comma-separated, any case), until it
    is drawn, with its busiest period's notes listed."""
    from PySide6.QtCore import QTimer

    session = window.timeline_service
    assert session is not None
    quit_ = loop.quit  # type: ignore[attr-defined]

    def drawn(timeline: object) -> None:
        view = window.timeline_tab.view
        if view is None or not timeline.concepts:  # type: ignore[attr-defined]
            return
        totals: dict[object, int] = {}
        for concept in timeline.concepts:  # type: ignore[attr-defined]
            for b in concept.bins:
                totals[b.start] = totals.get(b.start, 0) + b.total
        if totals:
            view.select_period(max(totals, key=lambda p: (totals[p], p)))
        QTimer.singleShot(300, quit_)

    session.timeline_ready.connect(drawn)

    def choose() -> None:
        if window.timeline_tab.view is None or not session.listed:
            QTimer.singleShot(50, choose)  # pyqtgraph or the dictionary's list still coming
            return
        if not session.known:  # no dictionary: the view says so, nothing will be drawn
            window.timeline_tab.show_tab()
            QTimer.singleShot(300, quit_)
            return
        known = {cid.lower(): cid for cid in session.known}
        asked = [known.get(name.strip().lower(), "") for name in concepts.split(",")]
        window.timeline_tab.show_tab(tuple(a for a in asked if a) or session.known[:3])

    choose()
    QTimer.singleShot(60_000, quit_)
    loop.exec()  # type: ignore[attr-defined]


def _screenshot(
    app: object, window: MainWindow, out: str, view: str, query: str, concept: str | None = None
) -> int:
    from PySide6.QtCore import QEventLoop, QPoint, QTimer
    from PySide6.QtGui import QPainter

    window.resize(*SCREENSHOT_SIZE)
    window.show()
    loop = QEventLoop()
    waiting = {"place", "backlinks", "unlinked"}

    def done(what: str) -> None:
        waiting.discard(what)
        if not waiting:
            QTimer.singleShot(150, loop.quit)  # let the panes paint

    window.place_rendered.connect(lambda _p: done("place"))
    assert window.session is not None and window.model is not None
    session = window.session
    # A note that cannot be shown (deleted meanwhile, a failed render): its reason is drawn.
    session.note_missing.connect(lambda _rel, _why: done("place"))

    def nothing_to_show() -> None:  # an empty vault: no note will be rendered
        if session.current is None:
            waiting.clear()
            QTimer.singleShot(150, loop.quit)

    window.model.index_ready.connect(lambda _i: QTimer.singleShot(0, nothing_to_show))
    session.backlinks_ready.connect(lambda _g: done("backlinks"))
    session.unlinked_ready.connect(lambda _m, _r: done("unlinked"))
    QTimer.singleShot(120_000, loop.quit)  # never hang a script
    loop.exec()
    window.show_view(view)
    if concept:
        window.place_rendered.connect(lambda _p: QTimer.singleShot(100, loop.quit))
        session.open_node("concept", concept)
        loop.exec()
    if view in ("tags", "concepts") and window.tags.count() == 0:  # counted a second later
        window.tags.counts_shown.connect(lambda: QTimer.singleShot(100, loop.quit))
        QTimer.singleShot(20_000, loop.quit)
        loop.exec()
    related = window.related_service
    if view in RELATED_VIEWS and related is not None and related.current is None:
        related.related_ready.connect(lambda _r: QTimer.singleShot(100, loop.quit))
        related.failed.connect(lambda _m: QTimer.singleShot(100, loop.quit))
        QTimer.singleShot(60_000, loop.quit)
        loop.exec()
    spots = window.thin_spots
    if view == "thin-spots" and (spots.spots is None or spots.spots.unrelated is None):
        assert window.thin_spots_service is not None  # counted on a job thread

        def on_spots(found: Any) -> None:
            if found.unrelated is not None or related is None or related.current is None:
                QTimer.singleShot(100, loop.quit)

        window.thin_spots_service.thin_spots_found.connect(on_spots)
        QTimer.singleShot(20_000, loop.quit)
        loop.exec()
    index_note = window.index_note
    if view in ("index-health", "split") and index_note.pane.health is None and index_note.service:
        index_note.service.health_found.connect(lambda _h: QTimer.singleShot(100, loop.quit))
        QTimer.singleShot(20_000, loop.quit)
        loop.exec()
    review = window.review
    if view == "review" and review.service is not None and review.pane.desk is None:
        review.service.desk_found.connect(lambda _d: QTimer.singleShot(150, loop.quit))
        QTimer.singleShot(30_000, loop.quit)
        loop.exec()
    if view in ("contradictions", "supersede") and review.service is not None:
        if review.contradictions.candidates is None:
            review.service.contradictions_found.connect(
                lambda _c: QTimer.singleShot(150, loop.quit)
            )
            QTimer.singleShot(30_000, loop.quit)
            loop.exec()
        if view == "supersede" and review.contradictions.current() is not None:
            review.service.supersede_planned.connect(lambda _p: QTimer.singleShot(200, loop.quit))
            review.contradictions.supersede_button.click()
            QTimer.singleShot(20_000, loop.quit)
            loop.exec()
    if view == "split" and index_note.service is not None:  # a dump's plan, previewed
        health = index_note.pane.health
        dumps = [d.path for d in health.dumps] if health is not None else []
        current = session.current.node if session.current is not None else None
        chosen = dumps[0] if dumps else current  # no dump: the plan of the note shown
        if chosen:
            index_note.service.split_planned.connect(lambda _p: QTimer.singleShot(200, loop.quit))
            index_note.service.failed.connect(lambda _m: QTimer.singleShot(50, loop.quit))
            index_note.service.plan_split(chosen)
            QTimer.singleShot(30_000, loop.quit)
            loop.exec()
    if view == "search" and query:
        window.search.set_query(query)
        session.search_ready.connect(lambda _q, _h: QTimer.singleShot(100, loop.quit))
        loop.exec()
    if view == "related" and window.related_service is not None:  # found, then explained
        window.related_service.note_related.connect(
            lambda _n, _f: QTimer.singleShot(100, loop.quit)
        )
        window.related_service.failed.connect(lambda _m: QTimer.singleShot(100, loop.quit))
        QTimer.singleShot(60_000, loop.quit)
        loop.exec()
    if view == "local-graph" and window.local_graph_service is not None:
        window.local_graph_service.view_ready.connect(lambda _v: QTimer.singleShot(200, loop.quit))
        QTimer.singleShot(30_000, loop.quit)
        loop.exec()
    if view in ("graph", "graph-global") and window.graph_service is not None:  # until settled

        def on_positions(_p: object, settled: bool, _rate: float) -> None:
            if settled:
                QTimer.singleShot(100, loop.quit)

        window.graph_service.positions_ready.connect(on_positions)
        QTimer.singleShot(30_000, loop.quit)
        loop.exec()
        window.graph.canvas.fit()
        QTimer.singleShot(400, loop.quit)  # the canvas labels nodes once the camera rests
        loop.exec()
    if view == "conceptmap" and window.graph_service is not None:
        _wait_for_concept_map(window, loop)
    if view == "timeline" and window.timeline_service is not None:
        _wait_for_timeline(window, loop, query or concept or "")
    if view == "suggestions" and window.concept_tabs is not None:
        concepts = window.concept_tabs.service
        concepts.suggestions_found.connect(lambda *_: QTimer.singleShot(100, loop.quit))
        concepts.suggestions_failed.connect(lambda _m: QTimer.singleShot(100, loop.quit))
        window.concept_tabs.editor.suggest_button.setChecked(True)
        QTimer.singleShot(60_000, loop.quit)
        loop.exec()
    if view == "isolated" and window.concept_tabs is not None:  # the editor's worklist
        service = window.concept_tabs.service
        service.found_counted.connect(lambda *_: QTimer.singleShot(200, loop.quit))
        window.concept_tabs.editor.isolated_button.setChecked(True)
        QTimer.singleShot(60_000, loop.quit)
        loop.exec()
    if view == "tagging-preview" and window.concept_tabs is not None:  # a dry run, shown
        tagging = window.concept_tabs.tagging
        tagging.previewed.connect(lambda _p: QTimer.singleShot(200, loop.quit))
        if tagging.preview():  # else nothing to preview, and the view says why at once
            QTimer.singleShot(120_000, loop.quit)
            loop.exec()
    if view == "warnings" and session.warnings is None:  # gathered once the index is ready
        session.warnings_changed.connect(lambda _w, _f: QTimer.singleShot(50, loop.quit))
        QTimer.singleShot(20_000, loop.quit)
        loop.exec()
        window.show_view(view)
    if view == "switcher":
        if not window.switcher.has_index:
            session.switcher_ready.connect(lambda _i: QTimer.singleShot(50, loop.quit))
            loop.exec()
        window.switcher.open_switcher()
        window.switcher.input.setText(query)
    for _ in range(5):
        loop.processEvents()
    image = window.grab()
    if view == "switcher":  # a dialog is its own window: draw it where it would float
        dialog = window.switcher.grab()
        painter = QPainter(image)
        painter.drawPixmap(QPoint((image.width() - dialog.width()) // 2, 90), dialog)
        painter.end()
        window.switcher.close()
    floating = {
        "split": index_note.split_dialog,
        "supersede": review.dialog,
        "warnings": window.warnings,
    }.get(view)
    if floating is not None and floating.isVisible():  # a dialog: drawn where it opens
        dialog = floating.grab()
        painter = QPainter(image)
        at = QPoint((image.width() - dialog.width()) // 2, (image.height() - dialog.height()) // 2)
        painter.drawPixmap(at, dialog)
        painter.setPen(window.palette().mid().color())  # the frame a window manager draws
        painter.drawRect(at.x() - 1, at.y() - 1, dialog.width() + 1, dialog.height() + 1)
        painter.end()
        floating.close()
    if window.missing_note is not None:  # a picture of another note would be a wrong answer
        window.close()
        return 1
    ok = image.save(out)
    window.close()
    return 0 if ok and not waiting else 1
