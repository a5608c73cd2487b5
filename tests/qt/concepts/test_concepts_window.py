"""The concepts pane and the concept page in the window, on a copy of the demo vault."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from pytestqt.qtbot import QtBot

from librarian_gui.ui.window.main_window import MainWindow
from tests import demo_facts
from tests.qt.rows import rows_made_by_python
from tests.qt.window.test_window import demo, preview_text, shown, window  # noqa: F401  (fixtures)


def test_the_concepts_pane_groups_the_dictionary_by_category(
    window: MainWindow,  # noqa: F811
    demo: Path,  # noqa: F811
    qtbot: QtBot,
) -> None:
    data = json.loads((demo / "concepts.json").read_text(encoding="utf-8"))
    per_category = Counter(value.get("category") or "(no category)" for value in data.values())
    expected = [(f"{name}  ({count})", count) for name, count in sorted(per_category.items())]
    qtbot.waitUntil(lambda: window.concepts.categories() == expected, timeout=10_000)


def test_clicking_a_concept_opens_its_page_with_unlinked_mentions(
    window: MainWindow,  # noqa: F811
    qtbot: QtBot,
) -> None:
    qtbot.waitUntil(lambda: window.concepts.tree.topLevelItemCount() > 1, timeout=10_000)
    security = next(
        window.concepts.tree.topLevelItem(i)
        for i in range(window.concepts.tree.topLevelItemCount())
        if window.concepts.tree.topLevelItem(i).text(0).startswith("security")
    )
    item = next(
        security.child(i)
        for i in range(security.childCount())
        if security.child(i).text(0) == "prompt-injection"
    )
    with qtbot.waitSignal(window.place_rendered, timeout=10_000):
        window.concepts.tree.itemClicked.emit(item, 0)
    assert shown(window) == "//concept/prompt-injection"
    text = preview_text(window)
    # Hand-checked with grep: its aliases appear unlinked in these three notes; of the two
    # others naming one, decisions/tool-output-quarantine links [[prompt-injection]] already
    # and research/prompt-injection is the concept's own note (named after it).
    assert "Unlinked mentions in 3 notes" in text
    for note in ("diary/2026-10-09", "diary/2026-11-25", "people/Hiro Tanaka"):
        assert note in text
    assert "Tag this concept now" in text
    # grep -rl '\[\[prompt-injection' resources/demo-vault: six notes link its note
    # (research/prompt-injection.md), and a link to the note is a link to the concept; the
    # backlinks pane lists the same six.
    assert "Linked from 6 notes" in text
    header = window.backlinks.linked.header
    qtbot.waitUntil(lambda: header.text().endswith("in 6 notes)"), timeout=10_000)
    # projects/Eval Harness links [[rag]] as well: rag is listed as found with it.
    assert "Found with" in text and "rag" in text


def test_tag_this_concept_now_previews_applies_and_the_links_arrive_live(
    window: MainWindow,  # noqa: F811
    demo: Path,  # noqa: F811
    qtbot: QtBot,
) -> None:
    tabs = window.concept_tabs
    assert tabs is not None
    qtbot.waitUntil(lambda: window.concepts.tree.topLevelItemCount() > 1, timeout=10_000)
    with qtbot.waitSignal(tabs.tagging.previewed, timeout=20_000):
        window.preview.link_activated.emit("tag-concept", "prompt-injection", "")
    assert window.centre.currentWidget() is tabs.tagging
    assert sorted(tabs.tagging.accepted()) == [
        "diary/2026-10-09.md",
        "diary/2026-11-25.md",
        "people/Hiro Tanaka.md",
    ]  # research/prompt-injection.md is named after the concept: never tagged with it
    before = (demo / "diary/2026-10-09.md").read_bytes()
    with qtbot.waitSignal(tabs.tagging.applied, timeout=20_000):
        tabs.tagging.apply_button.click()
    after = (demo / "diary/2026-10-09.md").read_bytes()
    assert after == before.replace(
        b"Prompt injection stays", b"[[prompt-injection|Prompt injection]] stays", 1
    )

    # A note of that name exists, so the new links resolve to it (notes win over concepts):
    # its backlinks gain the tagged diary entry through the watcher and the linker.
    def linked() -> bool:
        assert window.model is not None
        index = window.model.snapshot()
        return "diary/2026-10-09.md" in index.in_edges.get("research/prompt-injection.md", {})

    qtbot.waitUntil(linked, timeout=10_000)


def test_suggestions_list_uncovered_phrases_and_add_as_concept_saves_it(
    window: MainWindow,  # noqa: F811
    demo: Path,  # noqa: F811
    qtbot: QtBot,
) -> None:
    tabs = window.concept_tabs
    assert tabs is not None
    editor = tabs.editor
    panel = editor.suggestions
    qtbot.waitUntil(lambda: window.model is not None and window.model.ready, timeout=10_000)
    editor.suggest_button.click()
    qtbot.waitUntil(lambda: panel.table.rowCount() > 0, timeout=20_000)
    # Hand-checked with grep: "DuckDB" is written outside links and code in 5 notes, 9
    # times (5 in the decision record use-duckdb-for-staging, whose title is one hyphenated
    # word and so covers no single word); no concept or note title covers it.
    first = panel.suggestions[0]
    assert (first.phrase, first.notes, first.mentions) == ("DuckDB", 5, 9)
    assert panel.table.item(0, 0).text() == "DuckDB"
    assert rows_made_by_python(panel.table) == []
    before = (demo / "concepts.json").read_bytes()
    panel.table.cellWidget(0, 4).click()
    assert "DuckDB" not in panel.phrases()
    assert editor.document is not None and editor.document.data["duckdb"] == {"aliases": ["DuckDB"]}
    assert (demo / "concepts.json").read_bytes() == before  # nothing written until Save
    with qtbot.waitSignal(editor.saved, timeout=10_000):
        editor.save_button.click()
    saved = json.loads((demo / "concepts.json").read_text(encoding="utf-8"))
    assert list(saved)[-1] == "duckdb" and saved["duckdb"] == {"aliases": ["DuckDB"]}
    assert {k: v for k, v in saved.items() if k != "duckdb"} == json.loads(before)


def test_a_dictionary_outside_the_vault_is_chosen_remembered_and_watched(
    window: MainWindow,  # noqa: F811
    demo: Path,  # noqa: F811
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    outside = tmp_path / "shared-dictionaries" / "team.json"
    outside.parent.mkdir()
    outside.write_text(
        '{"duckdb": {"aliases": ["DuckDB"], "category": "storage"}}\n', encoding="utf-8"
    )
    (demo / "uses.md").write_text("We chose [[duckdb]] and [[rag]].\n", encoding="utf-8")
    root = demo.resolve()

    def targets() -> tuple[str, ...]:
        assert window.model is not None and window.model.ready
        index = window.model.snapshot()
        return index.targets.get("uses.md", ())

    with qtbot.waitSignal(window.vault_changed, timeout=10_000):
        assert window.use_dictionary(outside)
    assert window.model is not None and window.model.dictionary_path == outside
    qtbot.waitUntil(lambda: window.model is not None and window.model.ready, timeout=20_000)
    # rag is a concept of the vault's concepts.json, not of the chosen dictionary
    qtbot.waitUntil(lambda: targets() == ("//concept/duckdb", "//unresolved/rag"), timeout=10_000)
    qtbot.waitUntil(lambda: window.concepts.categories() == [("storage  (1)", 1)], timeout=5_000)
    assert window.concept_tabs is not None
    assert window.concept_tabs.editor.dictionary_path == outside
    window.show_view("editor")  # the editor reads its file when first shown
    assert window.concept_tabs.editor.loaded
    assert window.settings.dictionary(root) == outside.resolve()
    assert window.own_dictionary_action.isEnabled()

    # An agent rewrites the file outside the vault (atomically, as editors save): the index
    # and the editor pick it up through the dictionary's own watch.
    replacement = outside.with_suffix(".tmp")
    replacement.write_text(
        '{"duckdb": {"aliases": ["DuckDB"], "category": "storage"},\n'
        ' "rag": {"aliases": ["RAG"], "category": "retrieval"}}\n',
        encoding="utf-8",
    )
    os.replace(replacement, outside)
    qtbot.waitUntil(lambda: targets() == ("//concept/duckdb", "//concept/rag"), timeout=10_000)
    qtbot.waitUntil(
        lambda: (
            window.concept_tabs is not None
            and window.concept_tabs.editor.document is not None
            and list(window.concept_tabs.editor.document.data) == ["duckdb", "rag"]
        ),
        timeout=10_000,
    )

    with qtbot.waitSignal(window.vault_changed, timeout=10_000):
        assert window.use_dictionary(None)
    assert window.settings.dictionary(root) is None
    assert window.model is not None and window.model.dictionary_path == root / "concepts.json"
    qtbot.waitUntil(lambda: window.model is not None and window.model.ready, timeout=20_000)
    assert targets() == ("//unresolved/duckdb", "//concept/rag")
    assert not window.own_dictionary_action.isEnabled()


def test_an_agent_editing_the_vaults_dictionary_reloads_the_editor_and_the_pane(
    window: MainWindow,  # noqa: F811
    demo: Path,  # noqa: F811
    qtbot: QtBot,
) -> None:
    tabs = window.concept_tabs
    assert tabs is not None
    qtbot.waitUntil(lambda: window.model is not None and window.model.ready, timeout=10_000)
    assert not tabs.editor.loaded  # not read until its tab is shown
    window.show_view("editor")
    assert tabs.editor.loaded
    path = demo / "concepts.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["duckdb"] = {"aliases": ["DuckDB"], "category": "storage"}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    qtbot.waitUntil(
        lambda: tabs.editor.document is not None and "duckdb" in tabs.editor.document.data,
        timeout=10_000,
    )
    assert not tabs.editor.dirty
    qtbot.waitUntil(lambda: ("storage  (1)", 1) in window.concepts.categories(), timeout=10_000)
    # the Tagging tab's concept list follows the dictionary too (it is refilled only then)
    qtbot.waitUntil(lambda: tabs.tagging.concept_filter.findData("duckdb") > 0, timeout=10_000)


# By grep over resources/demo-vault: the concepts found in one or two notes; the 23 no
# note links are in tests/demo_facts.py.
RARELY_LINKED_DEMO = {
    "rag",
    "chunking",
    "llm-as-judge",
    "exponential-backoff",
    "idempotency",
    "crdt",
    "mcp",
    "context-window",
}
NEVER_LINKED_DEMO = set(demo_facts.NEVER_LINKED)


def test_the_isolated_panel_lists_the_worklist_and_acts_through_the_editor(
    window: MainWindow,  # noqa: F811
    demo: Path,  # noqa: F811
    qtbot: QtBot,
) -> None:
    tabs = window.concept_tabs
    assert tabs is not None
    editor = tabs.editor
    panel = editor.isolated
    qtbot.waitUntil(lambda: window.model is not None and window.model.ready, timeout=10_000)
    tabs.show_editor()
    editor.isolated_button.click()
    assert panel.isVisible()
    qtbot.waitUntil(lambda: panel.table.rowCount() > 0, timeout=20_000)
    ids = [row.id for row in panel.rows]
    assert set(ids) == RARELY_LINKED_DEMO | NEVER_LINKED_DEMO
    assert panel.status.text().startswith("31 of 34 concepts: 23 never linked (")
    # Least found first: every never-linked concept before every rarely linked one.
    assert {r.id for r in panel.rows[:23]} == NEVER_LINKED_DEMO
    assert dict((r.id, r.notes) for r in panel.rows)["rag"] == (
        "diary/2026-09-11.md",
        "projects/Eval Harness.md",
    )

    # Add alias: one undoable edit of the editor's document, nothing written until Save.
    before = (demo / "concepts.json").read_bytes()
    panel.table.selectRow(ids.index("golden-set"))
    panel.ask_text = lambda _title, _prompt: "gold questions"
    panel.alias_button.click()
    assert editor.document is not None
    assert editor.document.data["golden-set"]["aliases"][-1] == "gold questions"
    editor.undo()
    assert "gold questions" not in editor.document.data["golden-set"]["aliases"]

    # Delete, confirmed: it leaves the list; undo brings it back.
    editor.confirm = lambda _title, _question: True  # type: ignore[method-assign]
    panel.table.selectRow([r.id for r in panel.rows].index("adr"))
    panel.delete_button.click()
    assert "adr" not in editor.document.data
    assert "adr" not in [r.id for r in panel.rows]
    editor.undo()
    assert "adr" in editor.document.data and "adr" in [r.id for r in panel.rows]
    assert (demo / "concepts.json").read_bytes() == before

    # Tag now: the tagging preview of that concept alone.
    panel.table.selectRow([r.id for r in panel.rows].index("golden-set"))
    assert panel.tag_button.isEnabled()
    with qtbot.waitSignal(tabs.tagging.previewed, timeout=20_000):
        panel.tag_button.click()
    assert window.centre.currentWidget() is tabs.tagging
    plan = tabs.tagging.model.plan
    assert plan is not None and set(plan.counts()) == {"golden-set"}
