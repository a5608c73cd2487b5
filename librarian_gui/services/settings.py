"""The user's settings (QSettings, in the user's configuration folder, never in the vault)."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import TypeVar, cast

from PySide6.QtCore import QByteArray, QSettings

MAX_RECENT = 10
THEMES = ("system", "light", "dark")
T = TypeVar("T")


def _vault_key(root: Path) -> str:
    return "vaults/" + hashlib.sha1(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:16]


class Settings:
    """Typed access to the settings Librarian keeps. One instance per window."""

    def __init__(self, store: QSettings | None = None) -> None:
        self._s = store if store is not None else QSettings("Librarian", "Librarian")

    # -- vaults ------------------------------------------------------------------------

    def last_vault(self) -> Path | None:
        value = self._s.value("last_vault", "")
        return Path(str(value)) if value else None

    def recent_vaults(self) -> list[Path]:
        value = self._s.value("recent_vaults", [])
        items = [value] if isinstance(value, str) else list(value or [])
        return [Path(str(v)) for v in items if v]

    def vault_opened(self, root: Path) -> None:
        recent = [p for p in self.recent_vaults() if p != root]
        self._s.setValue("recent_vaults", [str(p) for p in [root, *recent][:MAX_RECENT]])
        self._s.setValue("last_vault", str(root))

    def excluded(self, root: Path) -> tuple[str, ...]:
        value = self._s.value(_vault_key(root) + "/excluded", [])
        items = [value] if isinstance(value, str) else list(value or [])
        return tuple(str(v) for v in items if v)

    def set_excluded(self, root: Path, folders: tuple[str, ...]) -> None:
        self._s.setValue(_vault_key(root) + "/excluded", list(folders))

    def index_note(self, root: Path, default: str) -> str:
        """The vault's index note (the Index note pane's), a vault path."""
        return str(self._s.value(_vault_key(root) + "/index_note", "") or default)

    def set_index_note(self, root: Path, rel: str) -> None:
        self._s.setValue(_vault_key(root) + "/index_note", rel)

    def index_excludes(self, root: Path) -> tuple[str, ...]:
        """Glob patterns of the notes the index note need not list."""
        value = self._s.value(_vault_key(root) + "/index_excludes", [])
        items = [value] if isinstance(value, str) else list(value or [])
        return tuple(str(v) for v in items if v)

    def set_index_excludes(self, root: Path, patterns: tuple[str, ...]) -> None:
        self._s.setValue(_vault_key(root) + "/index_excludes", list(patterns))

    def dictionary(self, root: Path) -> Path | None:
        """The concept dictionary chosen for this vault (File → Concept Dictionary…), or
        None for the vault's own concepts.json."""
        value = self._s.value(_vault_key(root) + "/dictionary", "")
        return Path(str(value)) if value else None

    def set_dictionary(self, root: Path, path: Path | None) -> None:
        self._s.setValue(_vault_key(root) + "/dictionary", str(path) if path else "")

    def last_note(self, root: Path) -> str | None:
        value = self._s.value(_vault_key(root) + "/last_note", "")
        return str(value) or None

    def set_last_note(self, root: Path, rel: str) -> None:
        self._s.setValue(_vault_key(root) + "/last_note", rel)

    def previous_session(self, root: Path) -> float | None:
        """When the previous session with this vault ended (seconds since the epoch)."""
        value = self._s.value(_vault_key(root) + "/session_end", 0.0)
        try:
            seconds = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return None
        return seconds or None

    def session_ended(self, root: Path) -> None:
        self._s.setValue(_vault_key(root) + "/session_end", time.time())

    # -- window ------------------------------------------------------------------------

    def theme(self) -> str:
        value = str(self._s.value("theme", "system"))
        return value if value in THEMES else "system"

    def set_theme(self, theme: str) -> None:
        self._s.setValue("theme", theme if theme in THEMES else "system")

    def window_state(self) -> tuple[QByteArray | None, QByteArray | None]:
        geometry = self._s.value("window/geometry")
        state = self._s.value("window/state")
        return (
            geometry if isinstance(geometry, QByteArray) else None,
            state if isinstance(state, QByteArray) else None,
        )

    def set_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self._s.setValue("window/geometry", geometry)
        self._s.setValue("window/state", state)

    def splitter(self, name: str) -> QByteArray | None:
        value = self._s.value(f"window/splitter/{name}")
        return value if isinstance(value, QByteArray) else None

    def set_splitter(self, name: str, state: QByteArray) -> None:
        self._s.setValue(f"window/splitter/{name}", state)

    def recent_period(self) -> str:
        return str(self._s.value("recent_period", "session"))

    def set_recent_period(self, period: str) -> None:
        self._s.setValue("recent_period", period)

    def sync(self) -> None:
        self._s.sync()

    # -- graph view --------------------------------------------------------------------

    def graph_option(self, name: str, default: T) -> T:
        """A graph view control's saved value (key ``graph/<name>``), as the default's
        type; the default when it was never saved or does not read as that type."""
        value = self._s.value(f"graph/{name}", default)
        try:
            if isinstance(default, bool):
                out: object = value if isinstance(value, bool) else str(value).lower() == "true"
            elif isinstance(default, int):
                out = int(value)  # type: ignore[call-overload]
            elif isinstance(default, float):
                out = float(value)  # type: ignore[arg-type]
            elif isinstance(default, tuple):
                items = [value] if isinstance(value, str) else list(value or [])  # type: ignore[call-overload]
                out = tuple(str(v) for v in items if v)
            else:
                out = str(value)
        except (TypeError, ValueError):
            return default
        return cast(T, out)

    def set_graph_option(self, name: str, value: object) -> None:
        self._s.setValue(f"graph/{name}", list(value) if isinstance(value, tuple) else value)

    # -- related notes -----------------------------------------------------------------

    def related_threshold(self) -> float:
        """The cosine a pair of notes needs to count as related: one value for the graph's
        RELATED_TO layer, the Related tab and the Thin spots panel (key
        ``related/threshold``), kept within 0..1."""
        from ..core.related.vault import DEFAULT_THRESHOLD

        try:
            value = float(self._s.value("related/threshold", DEFAULT_THRESHOLD))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return DEFAULT_THRESHOLD
        return value if 0.0 <= value <= 1.0 else DEFAULT_THRESHOLD

    def set_related_threshold(self, threshold: float) -> None:
        self._s.setValue("related/threshold", float(threshold))

    def related_edges_shown(self) -> bool:
        """Whether the graph draws its RELATED_TO layer (key ``graph/related_shown``)."""
        return self.graph_option("related_shown", True)

    def set_related_edges_shown(self, shown: bool) -> None:
        self.set_graph_option("related_shown", bool(shown))
