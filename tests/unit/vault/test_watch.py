"""The vault's watches, on a real watchdog Observer over real folders: dot folders are never
watched, folders made at the top later are, with what they already hold."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from librarian_gui.core.vault import watch
from librarian_gui.core.vault.watch import VaultWatches


class Seen(FileSystemEventHandler):
    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self.paths: set[str] = set()
        self.lock = threading.Lock()

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed", "closed_no_write"):
            return
        with self.lock:
            for path in (event.src_path, getattr(event, "dest_path", "")):
                text = os.fsdecode(path)
                if text.startswith(self.root + "/"):
                    self.paths.add(text[len(self.root) + 1 :])

    def wait_for(self, rel: str, timeout: float = 10.0) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if rel in self.paths:
                    return
            time.sleep(0.01)
        raise AssertionError(f"{rel} was never reported; saw {sorted(self.paths)}")


def watched(observer: Observer) -> set[str]:  # type: ignore[valid-type]
    return {e.watch.path for e in observer.emitters}  # type: ignore[attr-defined]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = (tmp_path / "vault").resolve()
    (root / "notes" / "deep").mkdir(parents=True)
    (root / ".librarian" / "journal").mkdir(parents=True)
    (root / "top.md").write_text("top\n")
    return root


def test_dot_folders_are_not_watched_and_new_top_folders_are(vault: Path) -> None:
    observer = Observer()
    seen = Seen(vault)
    VaultWatches(observer, seen, str(vault)).schedule()
    observer.start()
    try:
        assert watched(observer) == {str(vault), str(vault / "notes")}
        (vault / "notes" / "deep" / "a.md").write_text("a\n")
        (vault / "top.md").write_text("changed\n")
        seen.wait_for("notes/deep/a.md")
        seen.wait_for("top.md")
        # a journal entry folder, as every write makes: no event, no watch
        (vault / ".librarian" / "journal" / "00001").mkdir()
        (vault / ".librarian" / "journal" / "00001" / "entry.json").write_text("{}")
        # a folder made at the top and filled at once: what it holds is reported
        (vault / "agent" / "sub").mkdir(parents=True)
        (vault / "agent" / "sub" / "b.md").write_text("b\n")
        seen.wait_for("agent/sub/b.md")
        assert watched(observer) == {str(vault), str(vault / "notes"), str(vault / "agent")}
        (vault / "agent" / "c.md").write_text("c\n")  # and its watch reports what follows
        seen.wait_for("agent/c.md")
        # a top folder moved to another name: watched under the new one only
        (vault / "notes").rename(vault / "archive")
        seen.wait_for("archive")
        (vault / "archive" / "deep" / "d.md").write_text("d\n")
        seen.wait_for("archive/deep/d.md")
        assert watched(observer) == {str(vault), str(vault / "archive"), str(vault / "agent")}
        shutil.rmtree(vault / "agent")
        seen.wait_for("agent")
        deadline = time.monotonic() + 10
        while str(vault / "agent") in watched(observer) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert watched(observer) == {str(vault), str(vault / "archive")}
        with seen.lock:
            assert not [p for p in seen.paths if p.startswith(".librarian")]
    finally:
        observer.stop()
        observer.join(5)


def test_a_vault_of_many_top_folders_is_watched_as_one(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch, "MAX_FOLDERS", 2)
    for name in ("a", "b"):
        (vault / name).mkdir()
    observer = Observer()
    watches = VaultWatches(observer, Seen(vault), str(vault))
    watches.schedule()
    observer.start()
    try:
        assert watches.recursive
        assert watched(observer) == {str(vault)}
    finally:
        observer.stop()
        observer.join(5)


DEPTH = 1_100  # past what a recursive os.walk can follow (Python's recursion limit, 1,000)


def deep_folder(top: Path) -> Path:
    """A folder ``DEPTH`` levels below ``top``, made one level at a time (no recursion)."""
    path = top
    for _ in range(DEPTH):
        path = path / "d"
        path.mkdir()
    return path


def remove_deep(top: Path) -> None:
    for depth in range(DEPTH, 0, -1):  # pytest's clean-up would recurse as deep
        shutil.rmtree(top / "/".join(["d"] * depth))


def test_a_folder_too_deep_to_walk_leaves_the_rest_of_the_vault_watched(vault: Path) -> None:
    """An agent made a note 1,100 folders down: watchdog's recursive walk of the new top
    folder raised RecursionError in the observer's thread, which then reported nothing more
    — the server answered from an index that no longer followed the vault."""
    observer = Observer()
    seen = Seen(vault)
    VaultWatches(observer, seen, str(vault)).schedule()
    observer.start()
    try:
        (deep_folder(vault) / "deep.md").write_text("deep\n")
        seen.wait_for("d")
        (vault / "later.md").write_text("later\n")
        (vault / "notes" / "n.md").write_text("n\n")
        (vault / "fresh" / "x.md").parent.mkdir()
        (vault / "fresh" / "x.md").write_text("x\n")
        seen.wait_for("later.md")
        seen.wait_for("notes/n.md")
        seen.wait_for("fresh/x.md")
    finally:
        observer.stop()
        observer.join(5)
        remove_deep(vault)


def test_a_vault_holding_a_folder_too_deep_to_walk_is_watched(vault: Path) -> None:
    deep_folder(vault)
    observer = Observer()
    seen = Seen(vault)
    try:
        VaultWatches(observer, seen, str(vault)).schedule()
        observer.start()
        try:
            (vault / "notes" / "n.md").write_text("n\n")
            seen.wait_for("notes/n.md")
        finally:
            observer.stop()
            observer.join(5)
    finally:
        remove_deep(vault)


def test_watchdog_walks_a_folder_too_deep_for_a_recursive_walk(vault: Path) -> None:
    """The observer's thread walks each new folder (to watch and report what it holds);
    a folder deep by the time it comes to it made Python 3.11's recursive os.walk raise
    RecursionError there, ending the thread (the flaky failure of the test above). Its walk
    stops listing folders ``WATCH_DEPTH`` path components down: below, each folder made one
    level at a time had the levels below it walked again (watchdog 7.x), and the thread
    took minutes (the test above failed most runs)."""
    from watchdog.observers import inotify

    VaultWatches(Observer(), Seen(vault), str(vault))  # the observer's walks: ours
    deep = deep_folder(vault)
    try:
        walked = list(watch.walk(os.fsencode(vault / "d")))  # the stack walk: every level
        assert len(walked) == DEPTH  # d, d/d, … down to the deepest, each once
        assert walked[0] == (os.fsencode(vault / "d"), [b"d"], [])
        assert walked[-1] == (os.fsencode(deep), [], [])
        observed = list(inotify.os.walk(os.fsencode(vault / "d")))
        first = str(vault / "d").count("/")  # path components of the walk's top
        assert first < watch.WATCH_DEPTH
        # by hand: one folder for each count of components from the top's to the limit,
        # the last listed as holding none
        assert len(observed) == watch.WATCH_DEPTH - first + 1
        assert observed[-2][1] == [b"d"] and observed[-1][1] == []
        assert observed[-1][0].count(b"/") == watch.WATCH_DEPTH
        assert observed == [
            (r, d if r.count(b"/") < watch.WATCH_DEPTH else [], f)
            for r, d, f in walked[: len(observed)]
        ]
    finally:
        remove_deep(vault)


def test_the_depth_is_looked_at_only_where_the_observers_walk_could_recurse(
    vault: Path,
) -> None:
    """Looking lists the whole folder once more before the first answer (0.06 s at 50,000
    notes); the inotify observer walks with a stack, another observer may not."""
    from watchdog.observers.polling import PollingObserver

    VaultWatches(Observer(), Seen(vault), str(vault))  # the observer's walks: ours
    assert watch._walks_with_a_stack(Observer())
    assert not watch._walks_with_a_stack(PollingObserver())
    (vault / "top").mkdir()
    deep_folder(vault / "top")
    observer = PollingObserver()
    watches = VaultWatches(observer, Seen(vault), str(vault))
    try:
        watches.schedule()
        emitters = observer.emitters  # type: ignore[attr-defined]
        assert {e.watch.path: e.watch.is_recursive for e in emitters} == {
            str(vault): False,
            str(vault / "notes"): True,
            str(vault / "top"): False,  # too deep to walk: its own level only
        }
    finally:
        observer.unschedule_all()
        remove_deep(vault / "top")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    tree=st.lists(
        st.tuples(st.lists(st.sampled_from("abc"), min_size=1, max_size=4), st.booleans()),
        max_size=12,
    )
)
def test_the_walk_lists_what_os_walk_lists(
    tmp_path_factory: pytest.TempPathFactory, tree: list[tuple[list[str], bool]]
) -> None:
    """Folders and files of any small tree, in the same order, str and bytes alike."""
    root = tmp_path_factory.mktemp("t")
    for parts, is_file in tree:
        path = root.joinpath(*parts)
        if path.exists():
            continue
        if is_file and not any(p.is_file() for p in [*path.parents][: len(parts) - 1]):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x")
        elif not any(p.is_file() for p in [path, *path.parents]):
            path.mkdir(parents=True, exist_ok=True)
    os.symlink(root / "nowhere", root / "link")  # a link is listed as a file, not followed
    for top in (str(root), os.fsencode(root)):
        ours = [(r, sorted(d), sorted(f)) for r, d, f in watch.walk(top)]
        theirs = [(r, sorted(d), sorted(f)) for r, d, f in os.walk(top)]
        assert sorted(ours) == sorted(theirs)
        assert [r for r, _, _ in watch.walk(top)] == [r for r, _, _ in os.walk(top)]


_IN_CLOSE_NOWRITE, _IN_OPEN = 0x10, 0x20


def _inotify_masks() -> list[int]:
    """The event mask of every inotify watch of this process, as the kernel holds them."""
    masks = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:inotify":
                continue
            info = Path(f"/proc/self/fdinfo/{fd}").read_text()
        except OSError:
            continue
        for line in info.splitlines():
            if line.startswith("inotify "):
                fields = dict(f.split(":", 1) for f in line.split()[1:])
                masks.append(int(fields["mask"], 16))
    return masks


@pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="Linux's /proc only")
def test_reading_a_note_is_no_event_to_the_watches(vault: Path) -> None:
    observer = Observer()
    seen: list[str] = []

    class Every(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            seen.append(f"{event.event_type} {os.fsdecode(event.src_path)}")

    before = len(_inotify_masks())
    VaultWatches(observer, Every(), str(vault)).schedule()
    observer.start()
    try:
        masks = _inotify_masks()
        # the vault's own folder, notes/ and notes/deep/: none asks for opens and closes
        assert len(masks) == before + 3
        assert not [m for m in masks[-3:] if m & (_IN_OPEN | _IN_CLOSE_NOWRITE)]
        (vault / "top.md").read_text()
        (vault / "notes" / "n.md").write_text("n\n")
        (vault / "notes" / "n.md").read_text()
        deadline = time.monotonic() + 10
        while len(seen) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # what else the reads would have brought
        assert sorted(seen) == [f"created {vault}/notes/n.md", f"modified {vault}/notes/n.md"]
    finally:
        observer.stop()
        observer.join(5)
