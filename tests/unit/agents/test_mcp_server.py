"""``librarian mcp``: the SDK's real stdio client against the real server on a fixture vault."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.unit.agents.mcp_client import REPO, Agent, ToolFailed, run_agent

READ_TOOLS = {
    "search",
    "context_pack",
    "index_health",
    "read_note",
    "backlinks",
    "outgoing_links",
    "neighbors",
    "related",
    "concept",
    "isolated",
    "recent",
}
WRITE_TOOLS = {"write_note", "append_to_note"}

CONCEPTS = {
    "rag": {"aliases": ["retrieval augmented generation"], "category": "method"},
    "lonely": {"aliases": ["solitude"], "category": "misc"},
}
ALPHA = (
    "# Alpha\n\nAlpha uses [[beta]] and [[ghost]].\n\n## Plan\n\nShip it with Beta.\n\n"
    "## Later\n\nMore.\n"
)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "diary").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory\n\n- [[alpha]] — the alpha project\n")
    (root / "alpha.md").write_text(ALPHA)
    (root / "beta.md").write_text(
        "---\naliases: [B-side]\n---\n# Beta\n\nBeta links to [[alpha]].\n"
    )
    (root / "diary" / "2024-05-01.md").write_text(
        "# May 1\n\nTalked about [[rag]] with the alpha team.\n"
    )
    (root / "concepts.json").write_text(json.dumps(CONCEPTS))
    return root


def test_tools_are_listed_described_and_annotated(vault: Path) -> None:
    async def scenario(agent: Agent) -> None:
        tools = {tool.name: tool for tool in await agent.tools()}
        assert set(tools) == READ_TOOLS | WRITE_TOOLS
        assert len(tools) <= 15
        for name, tool in tools.items():
            assert tool.description and len(tool.description) > 40, name
            assert tool.annotations is not None
            assert tool.annotations.read_only_hint is (name in READ_TOOLS), name
            assert tool.annotations.destructive_hint is False
        schema = tools["neighbors"].input_schema
        assert schema["required"] == ["note"]
        assert schema["properties"]["depth"]["maximum"] == 3  # as librarian neighbors --depth

    run_agent(vault, scenario)


def test_every_read_tool_answers_exactly(vault: Path) -> None:
    async def scenario(agent: Agent) -> None:
        note = await agent.call("read_note", note="alpha", heading="Plan")
        assert note["note"] == "alpha.md"
        assert note["text"] == "## Plan\n\nShip it with Beta.\n\n"
        assert note["lines"] == [5, 8]
        assert note["total_lines"] == 11
        assert [h["text"] for h in note["headings"]] == ["Alpha", "Plan", "Later"]
        assert note["next_cursor"] is None
        lines = await agent.call("read_note", note="alpha.md", start_line=3, end_line=3)
        assert lines["text"] == "Alpha uses [[beta]] and [[ghost]].\n"
        assert lines["lines"] == [3, 3]

        back = await agent.call("backlinks", note="alpha")
        assert [(b["source"], b["line"], b["linked"]) for b in back["backlinks"]] == [
            ("MEMORY.md", 3, True),
            ("beta.md", 6, True),
            ("MEMORY.md", 3, False),  # "the alpha project", beside its link
            ("diary/2024-05-01.md", 3, False),  # "the alpha team": named, not linked
        ]
        assert back["backlinks"][1]["context"] == "Beta links to [[alpha]]."
        assert back["total"] == 4

        out = await agent.call("outgoing_links", note="alpha")
        assert [(r["target"], r["node"], r["resolved"]) for r in out["links"]] == [
            ("beta", "beta.md", True),
            ("ghost", "//unresolved/ghost", False),
        ]

        near = await agent.call("neighbors", note="beta", depth=2, related=False)
        assert [(n["node"], n["distance"], n["via"], n["edges"]) for n in near["neighbors"]] == [
            ("alpha.md", 1, "beta.md", ["links_to", "linked_from"]),
            ("//unresolved/ghost", 2, "alpha.md", ["links_to"]),
            ("MEMORY.md", 2, "alpha.md", ["linked_from"]),
        ]

        concept = await agent.call("concept", name="Retrieval Augmented Generation")
        assert concept["concept"] == "rag"
        assert concept["category"] == "method"
        assert concept["linked_in"] == ["diary/2024-05-01.md"]
        assert concept["first_mention"]["date"] == "2024-05-01"
        assert concept["last_mention"]["note"] == "diary/2024-05-01.md"

        isolated = await agent.call("isolated", max_notes=0)
        assert [(c["concept"], c["status"]) for c in isolated["isolated"]] == [
            ("lonely", "never linked")
        ]

        recent = await agent.call("recent", since="2000-01-01")
        assert {n["note"] for n in recent["notes"]} == {
            "MEMORY.md",
            "alpha.md",
            "beta.md",
            "diary/2024-05-01.md",
        }
        assert (await agent.call("recent", since="2999-01-01"))["notes"] == []

        related = await agent.call("related", note="alpha", threshold=0.0)
        assert related["note"] == "alpha.md"
        assert all(
            set(r) == {"note", "score", "terms", "concepts", "linked", "passage", "below_threshold"}
            for r in related["related"]
        )

    run_agent(vault, scenario)


def test_related_fills_k_slots_marking_the_notes_below_the_threshold(tmp_path: Path) -> None:
    from tests.unit.related.test_vault import SLOTS  # cosines derived by hand there

    root = tmp_path / "slots"
    root.mkdir()
    for rel, text in SLOTS.items():
        (root / rel).write_text(text + "\n")

    async def scenario(agent: Agent) -> None:
        found = await agent.call("related", note="a", k=3)
        assert [(r["note"], r["score"], r["below_threshold"]) for r in found["related"]] == [
            ("b.md", 0.7071, False),
            ("c.md", 0.1214, True),
            ("d.md", 0.0997, True),
        ]

    run_agent(root, scenario)


def test_search_context_pack_and_index_health_answer_exactly(vault: Path) -> None:
    async def scenario(agent: Agent) -> None:
        found = await agent.call("search", query="beta")
        # beta.md is named so; alpha.md says it twice; no other note holds the word
        assert [h["note"] for h in found["hits"]] == ["beta.md", "alpha.md"]
        assert [(x["line"], x["text"]) for x in found["hits"][1]["lines"]] == [
            (3, "Alpha uses [[beta]] and [[ghost]]."),
            (7, "Ship it with Beta."),
        ]
        assert found["next_cursor"] is None
        in_diary = await agent.call("search", query="alpha", folder="diary")
        assert [h["note"] for h in in_diary["hits"]] == ["diary/2024-05-01.md"]
        # the other notes are dated by their file time: today, after 2024
        dated = await agent.call("search", query="alpha", until="2024-12-31")
        assert [h["note"] for h in dated["hits"]] == ["diary/2024-05-01.md"]
        assert [h["date"] for h in dated["hits"]] == ["2024-05-01"]
        with_rag = await agent.call("search", query="", concept="rag")
        assert [h["note"] for h in with_rag["hits"]] == ["diary/2024-05-01.md"]
        with pytest.raises(ToolFailed, match="since: 'May' is not a date"):
            await agent.call("search", query="x", since="May")

        # A pack uses the latest pass of related notes and never waits for one (the server
        # starts the first after its first answer); a `related` question waits for it.
        await agent.call("related", note="alpha")
        pack = await agent.call("context_pack", query="What did we say about rag?", budget=300)
        assert pack["index_note"] == {
            "note": "MEMORY.md",
            "lines": 3,
            "of": 3,
            "dated_links_as_ranges": 0,
        }
        # "say" is nowhere: the words of the diary's line ("alpha", "team", "talked")
        # join the question (pseudo-relevance feedback) and bring Alpha's three sections,
        # each under the heading "Alpha"; the related notes' librarian pairs the two notes.
        # The diary's path says its date, so its heading does not again: beta.md's line,
        # which says "alpha" too, fits in what that leaves.
        assert pack["notes"] == ["diary/2024-05-01.md", "alpha.md", "beta.md"]
        fed = ["words of the best matches", "related to diary/2024-05-01.md"]
        assert [(p["note"], p["lines"], p["reasons"]) for p in pack["passages"]] == [
            ("diary/2024-05-01.md", [1, 3], ["text match"]),
            ("alpha.md", [1, 3], fed),
            ("alpha.md", [5, 7], fed),
            ("alpha.md", [9, 11], fed),
            ("beta.md", [4, 6], ["words of the best matches"]),
        ]
        assert "\n## diary/2024-05-01.md\n" in pack["text"]
        assert pack["tokens"] <= 300
        assert "- [[alpha]] — the alpha project\n" in pack["text"]
        assert "Talked about [[rag]] with the alpha team.\n" in pack["text"]

        health = await agent.call("index_health")
        assert health["index"] == "MEMORY.md"
        assert (health["lines"], health["bytes"], health["listed"]) == (3, 44, 1)
        assert health["unlisted"] == ["beta.md", "diary/2024-05-01.md"]
        assert health["dead_links"] == []
        assert health["healthy"] is False
        assert health["cut_short"] == {}
        excluded = await agent.call("index_health", exclude=["diary", "beta.md"])
        assert (excluded["unlisted"], excluded["excluded"]) == ([], 2)

    run_agent(vault, scenario)


def test_index_health_cuts_long_lists_short_unless_asked_for_one_in_pages(vault: Path) -> None:
    (vault / "topics").mkdir()
    for n in range(70):
        (vault / "topics" / f"t{n:02d}.md").write_text(f"# Topic {n}\n")
    unlisted = ["beta.md", "diary/2024-05-01.md"] + [f"topics/t{n:02d}.md" for n in range(70)]

    async def scenario(agent: Agent) -> None:
        short = await agent.call("index_health")
        assert short["unlisted"] == unlisted[:50]
        assert short["cut_short"] == {"unlisted": 72, "missing_entries": 72}
        whole = await agent.call("index_health", full_list="unlisted")
        assert whole["unlisted"] == unlisted
        assert whole["total"] == 72
        assert whole["cut_short"] == {"missing_entries": 72}

    run_agent(vault, scenario)


def test_unknown_and_ambiguous_notes_are_errors_naming_the_closest(vault: Path) -> None:
    (vault / "diary" / "plan.md").write_text("# A plan\n")
    (vault / "work").mkdir()
    (vault / "work" / "plan.md").write_text("# Another plan\n")

    async def scenario(agent: Agent) -> None:
        with pytest.raises(ToolFailed, match=r"'bta'.*closest: beta\.md"):
            await agent.call("backlinks", note="bta")
        with pytest.raises(ToolFailed, match=r"matches 2 notes: diary/plan\.md, work/plan\.md"):
            await agent.call("read_note", note="plan")
        with pytest.raises(
            ToolFailed, match=r"no heading 'Nope'; its headings: Alpha; Plan; Later"
        ):
            await agent.call("read_note", note="alpha.md", heading="Nope")
        with pytest.raises(ToolFailed, match="not a cursor this server gave"):
            await agent.call("backlinks", note="beta", cursor="garbage")

    run_agent(vault, scenario)


def test_a_note_written_by_another_process_is_in_the_next_answer(vault: Path) -> None:
    async def scenario(agent: Agent) -> None:
        assert [
            b["source"]
            for b in (await agent.call("backlinks", note="beta", unlinked=False))["backlinks"]
        ] == ["alpha.md"]
        # another program (an editor, an agent) writes a note linking beta
        (vault / "gamma.md").write_text("# Gamma\n\nSee [[beta]].\n")
        sources: list[str] = []
        with anyio.fail_after(10):
            while "gamma.md" not in sources:
                await anyio.sleep(0.05)
                answer = await agent.call("backlinks", note="beta", unlinked=False)
                sources = [b["source"] for b in answer["backlinks"]]
        assert sources == ["alpha.md", "gamma.md"]

    run_agent(vault, scenario)


def test_write_tools_refuse_without_allow_writes(vault: Path) -> None:
    before = {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()}

    async def scenario(agent: Agent) -> None:
        with pytest.raises(ToolFailed, match=r"read-only: writes need .*--allow-writes"):
            await agent.call("write_note", path="new.md", text="# New\n")
        with pytest.raises(ToolFailed, match="read-only"):
            await agent.call("append_to_note", note="alpha", text="more")

    run_agent(vault, scenario)
    assert {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()} == before
    assert not (vault / ".librarian").exists()


def test_agent_writes_are_answered_at_once_and_undone_exactly(vault: Path) -> None:
    diary_before = (vault / "diary" / "2024-05-01.md").read_bytes()
    entries: list[str] = []

    async def scenario(agent: Agent) -> None:
        made = await agent.call(
            "write_note", path="decisions/db", text="# DB\n\nUse [[beta]] and [[nowhere]].\n"
        )
        assert made["note"] == "decisions/db.md"
        assert made["created"] is True
        assert [(r["target"], r["resolved"]) for r in made["links"]] == [
            ("beta", True),
            ("nowhere", False),
        ]
        assert made["unresolved"] == ["nowhere"]
        entries.append(made["entry"])
        # the next answer knows the new note (read-your-writes)
        back = await agent.call("backlinks", note="beta", unlinked=False)
        assert [b["source"] for b in back["backlinks"]] == ["alpha.md", "decisions/db.md"]
        with pytest.raises(ToolFailed, match=r"decisions/db\.md exists already"):
            await agent.call("write_note", path="decisions/db.md", text="again")

        added = await agent.call("append_to_note", note="2024-05-01", text="Later: [[alpha]].")
        assert added["note"] == "diary/2024-05-01.md"
        assert added["unresolved"] == []
        entries.append(added["entry"])

    run_agent(vault, scenario, "--allow-writes")
    assert (
        vault / "decisions" / "db.md"
    ).read_bytes() == b"# DB\n\nUse [[beta]] and [[nowhere]].\n"
    assert (vault / "diary" / "2024-05-01.md").read_bytes() == diary_before + b"Later: [[alpha]].\n"

    def undo(entry: str) -> dict[str, object]:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "librarian_gui.cli",
                "undo",
                str(vault),
                "--entry",
                entry,
                "--json",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(done.stdout)

    assert undo(entries[1])["restored"] == ["diary/2024-05-01.md"]
    assert (vault / "diary" / "2024-05-01.md").read_bytes() == diary_before
    assert undo(entries[0])["restored"] == ["decisions/db.md"]
    assert not (vault / "decisions" / "db.md").exists()


def test_a_paged_answer_reassembles_to_the_whole(vault: Path) -> None:
    # 600 notes link beta, each on a long line: far more than one page of 20,000 tokens
    filler = "word " * 60
    for n in range(600):
        (vault / f"n{n:03d}.md").write_text(f"# N{n}\n\n{filler}[[beta]] {filler}\n")

    async def scenario(agent: Agent) -> None:
        pages = [await agent.call("backlinks", note="beta", unlinked=False)]
        while pages[-1]["next_cursor"] is not None:
            pages.append(
                await agent.call(
                    "backlinks", note="beta", unlinked=False, cursor=pages[-1]["next_cursor"]
                )
            )
        assert len(pages) > 1
        for page in pages:  # each page below the 25,000 tokens a client accepts
            assert len(json.dumps(page)) / 4 < 25_000
            assert page["total"] == 601
        sources = [b["source"] for page in pages for b in page["backlinks"]]
        assert sources == ["alpha.md"] + [f"n{n:03d}.md" for n in range(600)]

    run_agent(vault, scenario)


def test_a_dictionary_kept_outside_the_vault_is_read_again_when_it_changes(
    tmp_path: Path,
) -> None:
    """``--concepts PATH`` outside the vault: the server reads it again when it changes
    (an editor's atomic save replaces the file), as the window does; the next ``concept``
    answer has the new alias, and the note that writes it is found."""
    root = tmp_path / "vault"
    root.mkdir()
    (root / "diary.md").write_text("# Diary\n\nWe tried the pgsql driver today.\n")
    outside = tmp_path / "dictionaries" / "mine.json"
    outside.parent.mkdir()
    outside.write_text('{"postgres": {"aliases": ["Postgres"], "category": "tool"}}\n')

    async def scenario(agent: Agent) -> None:
        first = await agent.call("concept", name="postgres")
        assert (first["aliases"], first["mentioned_unlinked_in"]) == (["Postgres"], [])
        grown = '{"postgres": {"aliases": ["Postgres", "pgsql"], "category": "tool"}}\n'
        saved = outside.with_name("mine.json.tmp")
        saved.write_text(grown)
        saved.replace(outside)  # as an editor saves: a new file under the old name
        answer = first
        with anyio.fail_after(10):
            while answer["aliases"] != ["Postgres", "pgsql"]:
                await anyio.sleep(0.05)
                answer = await agent.call("concept", name="postgres")
        assert answer["mentioned_unlinked_in"] == ["diary.md"]
        assert (await agent.call("concept", name="pgsql"))["concept"] == "postgres"

    run_agent(root, scenario, "--concepts", str(outside))


def test_index_health_names_a_dump_and_the_command_that_splits_it(tmp_path: Path) -> None:
    line = "the agent kept a note " * 4 + "\n"
    days = "".join(f"## 2024-06-{day:02d}\n{line * 12}\n" for day in range(1, 29))
    (tmp_path / "MEMORY.md").write_text(f"# Memory\n\n{days}")  # 394 lines, 28 sections

    async def scenario(agent: Agent) -> None:
        health = await agent.call("index_health")
        assert [
            (d["note"], d["lines"], d["sections"], d["dated_sections"]) for d in health["dumps"]
        ] == [("MEMORY.md", 2 + 28 * 14, 28, 28)]
        assert health["dumps"][0]["command"] == f"librarian split {tmp_path} MEMORY.md"

    run_agent(tmp_path, scenario)


def test_the_start_pauses_the_collector_and_shortens_the_switch_interval_once_ready() -> None:
    """Until both parts of the start (index, SDK and tools) are done, no cyclic collection
    and Python's own switch interval; then what the start made is frozen, the collector is
    on and the interval is the short one answers need."""
    import gc

    from librarian_gui import mcp_server

    interval, enabled = sys.getswitchinterval(), gc.isenabled()
    try:
        sys.setswitchinterval(0.005)
        gc.enable()
        start = mcp_server._Start()
        assert not gc.isenabled()
        start.done()  # the index, say: the SDK is still being imported
        assert not gc.isenabled()
        assert sys.getswitchinterval() == pytest.approx(0.005)
        frozen = gc.get_freeze_count()
        made = [[n] for n in range(1000)]  # tracked objects made during the start
        start.done()
        assert gc.isenabled()
        assert sys.getswitchinterval() == pytest.approx(0.0005)
        assert gc.get_freeze_count() >= frozen + len(made)
    finally:
        gc.unfreeze()
        sys.setswitchinterval(interval)
        (gc.enable if enabled else gc.disable)()


def test_the_first_answer_lets_the_vaults_background_work_start(tmp_path: Path) -> None:
    """The server opens the vault held (``serve``): the warm-up and the related-notes pass
    wait for the first answer, which would otherwise share the interpreter with them."""
    import time

    from librarian_gui import mcp_server
    from librarian_gui.core.live.runtime import LiveVault

    (tmp_path / "a.md").write_text("# A\n\nTo [[b]].\n")
    (tmp_path / "b.md").write_text("# B\n\nBack to nothing.\n")
    opened = LiveVault(tmp_path, held=True, use_cache=False)
    try:
        tools = mcp_server.Tools(lambda: opened, allow_writes=False)
        neighbors = mcp_server.telling_indexing(tools, tools.neighbors)
        time.sleep(0.3)
        assert opened.related_edges() is None  # held: no pass
        answer = neighbors("a")
        assert [row["note"] for row in answer["neighbors"]] == ["b.md"]
        end = time.monotonic() + 10
        while opened.related_edges() is None:
            assert time.monotonic() < end, "no related-notes pass after the first answer"
            time.sleep(0.02)
    finally:
        opened.close()
