"""The preview widget: link routing, scroll keeping, line jumps, images from the vault only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QColor, QImage, QTextCursor, QTextDocument
from pytestqt.qtbot import QtBot

from librarian_gui.core.render.render import render_note
from librarian_gui.ui.preview import view as preview_module
from librarian_gui.ui.preview.view import PreviewView

pytestmark = pytest.mark.gui

IMAGE = QTextDocument.ResourceType.ImageResource


def page(text: str, dark: bool = False) -> str:
    """Render ``text`` as a note in a vault where every name resolves to ``<name>.md``."""

    def resolve(markdown: bool, target: str, source: str) -> str:
        return target if target.endswith((".md", ".png")) else target + ".md"

    return render_note(
        text,
        source="Here.md",
        resolve=resolve,
        node_exists=lambda node: "attachment" if node.endswith(".png") else "note",
        read_note=lambda _rel: None,
        dark=dark,
    ).html


@pytest.fixture
def view(qtbot: QtBot, tmp_path: Path) -> PreviewView:
    widget = PreviewView(vault_root=tmp_path / "vault")
    qtbot.addWidget(widget)
    widget.resize(640, 400)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def save_png(path: Path, width: int, height: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#3366cc"))
    assert image.save(str(path))


def anchor_point(view: PreviewView, href: str) -> QPoint:
    """Viewport coordinates of the middle of the link with this href."""
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(view.document())
                cursor.setPosition(fragment.position() + fragment.length() // 2)
                return view.cursorRect(cursor).center()
            it += 1
        block = block.next()
    raise AssertionError(f"no link to {href}")


# ---------------------------------------------------------------- links


def test_clicking_a_note_link_emits_link_activated(qtbot: QtBot, view: PreviewView) -> None:
    view.show_note(page("Go to [[Café au lait#Première partie|the café]] now."))
    href = "note:///Caf%C3%A9%20au%20lait.md#premi%C3%A8re-partie"
    point = anchor_point(view, href)
    with qtbot.waitSignal(view.link_activated) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert blocker.args == ["note", "Café au lait.md", "première-partie"]


@pytest.mark.parametrize(
    ("url", "args"),
    [
        ("note:///folder/My%20Note.md#some-heading", ["note", "folder/My Note.md", "some-heading"]),
        ("note:///attachments/pic.png", ["note", "attachments/pic.png", ""]),
        ("concept:///prompt-injection", ["concept", "prompt-injection", ""]),
        ("ghost:///Missing%20Idea", ["unresolved", "Missing Idea", ""]),
        ("ghost:///%E6%8F%90%E7%A4%BA", ["unresolved", "提示", ""]),
    ],
)
def test_vault_urls_are_reported_with_exact_args(
    qtbot: QtBot, view: PreviewView, url: str, args: list[str]
) -> None:
    with qtbot.waitSignal(view.link_activated) as blocker:
        view.anchorClicked.emit(QUrl(url))
    assert blocker.args == args


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "javascript:alert(1)",
        "note:///../outside.md",
        "note:///a/../../outside.md",
        "note://host/Note.md",
        "note:///",
        "ftp://example.com/x",
        "relative/Note.md",
    ],
)
def test_other_urls_are_ignored(
    qtbot: QtBot, view: PreviewView, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    opened: list[QUrl] = []
    monkeypatch.setattr(preview_module, "QDesktopServices", FakeDesktop(opened))
    view.show_note(page("text"))
    with qtbot.assertNotEmitted(view.link_activated):
        view.anchorClicked.emit(QUrl(url))
    assert opened == []
    assert view.toPlainText() == "text"


class FakeDesktop:
    """Stands in for QDesktopServices so a test never launches a browser."""

    def __init__(self, opened: list[QUrl]) -> None:
        self.opened = opened

    def openUrl(self, url: QUrl) -> bool:
        self.opened.append(url)
        return True


def test_http_link_opens_outside_and_the_widget_stays(
    qtbot: QtBot, view: PreviewView, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[QUrl] = []
    monkeypatch.setattr(preview_module, "QDesktopServices", FakeDesktop(opened))
    view.show_note(page("See [the site](https://example.com/page) please."))
    point = anchor_point(view, "https://example.com/page")
    with qtbot.assertNotEmitted(view.link_activated):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert [u.toString() for u in opened] == ["https://example.com/page"]
    assert view.toPlainText() == "See the site please."
    assert view.source() == QUrl()


def test_same_note_fragment_scrolls_without_signal(qtbot: QtBot, view: PreviewView) -> None:
    filler = "\n\n".join(f"Paragraph {i}." for i in range(80))
    view.show_note(page(f"[[#The End]]\n\n{filler}\n\n## The End\n\nfin"))
    assert view.verticalScrollBar().value() == 0
    with qtbot.assertNotEmitted(view.link_activated):
        view.anchorClicked.emit(QUrl("#the-end"))
    assert view.verticalScrollBar().value() > 0


# ---------------------------------------------------------------- scrolling


def long_note(word: str) -> str:
    return "# Title\n\n" + "\n\n".join(f"{word} paragraph {i}." for i in range(200))


def test_refresh_keeps_the_scroll_position(view: PreviewView) -> None:
    view.show_note(page(long_note("first")))
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    middle = bar.value()
    assert middle > 0
    view.show_note(page(long_note("changed")), keep_scroll=True)
    assert bar.value() == middle
    view.show_note(page(long_note("other note")))
    assert bar.value() == 0


def test_large_page_jumps_and_keeps_positions_past_the_laid_out_part(
    view: PreviewView,
) -> None:
    # Qt lays out a large page in steps on a timer: right after setHtml the scroll range
    # covers only the start, and a far jump would be clamped to it.
    text = "# Big\n\n" + "\n\n".join(["more text"] * 12_000)
    view.show_note(page(text))
    bar = view.verticalScrollBar()
    view.scroll_to_line(20_001)  # paragraph 10,000
    far = bar.value()
    assert far > 200_000
    view.show_note(page(text + "\n\nappended"), keep_scroll=True)
    assert bar.value() == far


def test_scroll_to_line_goes_to_the_nearest_block_above(view: PreviewView) -> None:
    view.show_note(page(long_note("x")))
    bar = view.verticalScrollBar()
    view.scroll_to_line(101)  # line 101 is "x paragraph 49."
    at_block = bar.value()
    assert at_block > 0
    view.scroll_to_line(102)  # the blank line after it: same block
    assert bar.value() == at_block
    view.scroll_to_line(1)
    assert bar.value() == 0


def test_scroll_to_heading_by_anchor_or_text(view: PreviewView) -> None:
    filler = "\n\n".join(f"Paragraph {i}." for i in range(80))
    view.show_note(page(f"# Top\n\n{filler}\n\n## Far Away\n\nfin"))
    bar = view.verticalScrollBar()
    view.scroll_to_heading("far-away")
    far = bar.value()
    assert far > 0
    bar.setValue(0)
    view.scroll_to_heading("Far Away")
    assert bar.value() == far
    view.scroll_to_heading("no such heading")
    assert bar.value() == far


# ---------------------------------------------------------------- images


def test_load_resource_reads_images_inside_the_vault(tmp_path: Path, view: PreviewView) -> None:
    save_png(tmp_path / "vault" / "img" / "my pic.png", 40, 30)
    image = view.loadResource(IMAGE, QUrl("note:///img/my%20pic.png"))
    assert isinstance(image, QImage)
    assert (image.width(), image.height()) == (40, 30)


def test_wide_images_are_scaled_to_the_content_width(tmp_path: Path, view: PreviewView) -> None:
    save_png(tmp_path / "vault" / "wide.png", 3000, 1500)
    image = view.loadResource(IMAGE, QUrl("note:///wide.png"))
    assert isinstance(image, QImage)
    width = view.viewport().width() - 2 * PreviewView.MIN_SIDE_MARGIN
    assert (image.width(), image.height()) == (width, width // 2)


@pytest.mark.parametrize(
    "url",
    [
        "note:///../secret.png",
        "note:///img/../../secret.png",
        "note:///link-out.png",
        "note:///missing.png",
        "note:///fifo.png",
        "note://host/img/ok.png",
        "file:///SECRET",
        "https://example.com/tracker.png",
        "img/ok.png",
    ],
)
def test_load_resource_refuses_anything_else(tmp_path: Path, view: PreviewView, url: str) -> None:
    save_png(tmp_path / "vault" / "img" / "ok.png", 10, 10)
    save_png(tmp_path / "secret.png", 10, 10)
    (tmp_path / "vault" / "link-out.png").symlink_to(tmp_path / "secret.png")
    os.mkfifo(tmp_path / "vault" / "fifo.png")
    url = url.replace("SECRET", str(tmp_path / "secret.png").lstrip("/"))
    assert view.loadResource(IMAGE, QUrl(url)) is None


def test_images_in_a_note_show(tmp_path: Path, view: PreviewView) -> None:
    save_png(tmp_path / "vault" / "pic.png", 50, 20)
    view.show_note(page("![a pic](pic.png)"))
    view.document().adjustSize()
    cursor = QTextCursor(view.document())
    cursor.movePosition(QTextCursor.MoveOperation.NextCharacter)
    fmt = cursor.charFormat()
    assert fmt.isImageFormat() and fmt.toImageFormat().name() == "note:///pic.png"
    assert isinstance(view.document().resource(IMAGE, QUrl("note:///pic.png")), QImage)


def test_style_sheet_resources_are_never_loaded(view: PreviewView) -> None:
    sheet = QTextDocument.ResourceType.StyleSheetResource
    assert view.loadResource(sheet, QUrl("note:///x.css")) is None


# ---------------------------------------------------------------- themes


@pytest.mark.parametrize(("dark", "colour"), [(False, "#ffffff"), (True, "#1e1f22")])
def test_viewport_takes_the_page_background(view: PreviewView, dark: bool, colour: str) -> None:
    view.show_note(page("x", dark=dark))
    assert view.viewport().palette().base().color().name() == colour
