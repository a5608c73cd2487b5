"""The vault's folder tree as plain data: folders first, natural sort (built off the GUI)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from typing import Any

_DIGITS = re.compile(r"(\d+)")
_ANY_DIGIT = re.compile(r"\d")


def natural_key(name: str) -> tuple[Any, ...]:
    """ "note 2" before "note 10"; case-insensitive."""
    low = name.casefold()
    if not _ANY_DIGIT.search(low):
        return ((1, low),)
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in _DIGITS.split(low) if p)


class FileNode:
    """A folder (path ends with "/"; the root's path is "") or a file of the vault."""

    __slots__ = ("children", "keys", "kind", "label", "parent", "path", "sort_key")

    def __init__(self, path: str, kind: str, parent: FileNode | None) -> None:
        self.path = path
        self.kind = kind  # "folder", "note", "attachment"
        self.parent = parent
        name = path.rstrip("/").rsplit("/", 1)[-1]
        self.label = name[:-3] if kind == "note" and name.lower().endswith(".md") else name
        self.children: list[FileNode] = []
        self.keys: list[tuple[Any, ...]] = []  # sort keys of ``children``, for bisect
        self.sort_key = (0 if kind == "folder" else 1, natural_key(self.label), path)


def folder_of(path: str) -> str:
    """The folder path (with "/") holding ``path``; "" for the vault's top level."""
    bare = path.rstrip("/")
    return bare.rsplit("/", 1)[0] + "/" if "/" in bare else ""


class FileTreeData:
    """The root node and every node by path."""

    def __init__(self) -> None:
        self.root = FileNode("", "folder", None)
        self.nodes: dict[str, FileNode] = {}

    @classmethod
    def build(cls, notes: Iterable[str], attachments: Iterable[str]) -> FileTreeData:
        tree = cls()
        for kind, paths in (("note", notes), ("attachment", attachments)):
            for path in paths:
                parent = tree._folder(folder_of(path))
                node = FileNode(path, kind, parent)
                tree.nodes[path] = node
                parent.children.append(node)
        tree._sort(tree.root)
        return tree

    def _folder(self, folder: str) -> FileNode:
        if not folder:
            return self.root
        node = self.nodes.get(folder)
        if node is None:
            parent = self._folder(folder_of(folder))
            node = FileNode(folder, "folder", parent)
            self.nodes[folder] = node
            parent.children.append(node)
        return node

    def _sort(self, node: FileNode) -> None:
        node.children.sort(key=lambda n: n.sort_key)
        node.keys = [child.sort_key for child in node.children]
        for child in node.children:
            if child.kind == "folder":
                self._sort(child)

    # -- changes (each returns what a view must do) -------------------------------------

    def add(self, path: str, kind: str) -> list[tuple[FileNode, int]]:
        """Add a file (and its missing folders). Returns the (new node, row in its parent)
        pairs in the order they were inserted, outermost first; [] if it was there."""
        if path in self.nodes:
            return []
        inserted: list[tuple[FileNode, int]] = []
        folder = folder_of(path)
        parent = self.root
        if folder:
            parent = self.nodes.get(folder) or self._add_folder(folder, inserted)
        inserted.append((self._insert(parent, FileNode(path, kind, parent)), 0))
        node = inserted[-1][0]
        inserted[-1] = (node, self.row_of(node))
        return inserted

    def _add_folder(self, folder: str, inserted: list[tuple[FileNode, int]]) -> FileNode:
        outer = folder_of(folder)
        parent = self.root
        if outer:
            parent = self.nodes.get(outer) or self._add_folder(outer, inserted)
        node = self._insert(parent, FileNode(folder, "folder", parent))
        inserted.append((node, self.row_of(node)))
        return node

    def _insert(self, parent: FileNode, node: FileNode) -> FileNode:
        row = bisect.bisect_left(parent.keys, node.sort_key)
        parent.children.insert(row, node)
        parent.keys.insert(row, node.sort_key)
        self.nodes[node.path] = node
        return node

    def remove(self, path: str) -> list[tuple[FileNode, int]]:
        """Remove a file, and the folders it leaves empty. Returns the (removed node, its
        row) pairs, innermost first."""
        removed: list[tuple[FileNode, int]] = []
        node = self.nodes.get(path)
        while node is not None and node.parent is not None:
            parent = node.parent
            row = self.row_of(node)
            del parent.children[row]
            del parent.keys[row]
            del self.nodes[node.path]
            removed.append((node, row))
            node = parent if not parent.children and parent is not self.root else None
        return removed

    @staticmethod
    def row_of(node: FileNode) -> int:
        assert node.parent is not None
        return bisect.bisect_left(node.parent.keys, node.sort_key)

    def files(self) -> list[str]:
        """Every file, in tree order."""
        out: list[str] = []

        def walk(node: FileNode) -> None:
            for child in node.children:
                if child.kind == "folder":
                    walk(child)
                else:
                    out.append(child.path)

        walk(self.root)
        return out
