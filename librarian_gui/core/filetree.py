"""The vault's folder tree as plain data: folders first, natural sort (built off the GUI)."""

from __future__ import annotations

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
