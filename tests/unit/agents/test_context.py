"""context_pack: what it holds, its header and line ranges, the index note cut to its share,
determinism, and (hypothesis) never a token over the budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.agents.context import _index_block, _index_lines_within, context_pack
from librarian_gui.core.agents.tokens import estimate_tokens
from librarian_gui.core.index.index import VaultIndex
from librarian_gui.core.vault.files import read_note
from tests.conftest import REPO, write


def _pack(root: Path, query: str, budget: int, **kw: object):  # type: ignore[no-untyped-def]
    index = VaultIndex.scan(root, use_cache=False)
    return context_pack(index, lambda rel: read_note(index.root, rel).text, query, budget, **kw)  # type: ignore[arg-type]


def test_pack_holds_index_note_and_matching_passages(agent_vault: Path) -> None:
    pack = _pack(agent_vault, "cinnamon pie", 1000)
    assert pack.index_note == "MEMORY.md"
    assert (pack.index_lines, pack.index_total) == (4, 4)  # front matter left out
    assert "## MEMORY.md (index note)\n# Memory\n- [[pie]]\n" in pack.text
    first = pack.passages[0]
    # pie.md: "# Pie" on line 5 to "The oven ran hot." on line 9, one short section
    assert (first.passage.note, first.passage.first, first.passage.last) == ("pie.md", 5, 9)
    assert first.reasons[0] == "text match"
    # the whole note sits under "# Pie", its title: the label leaves it out
    assert "## pie.md (2026-01-05)\n[L5–9]\n# Pie\n" in pack.text
    assert pack.text.startswith("# Context for: cinnamon pie\nWithin 1000 tokens")
    assert pack.tokens == estimate_tokens(pack.text) <= 1000


def test_json_lists_notes_and_passages(agent_vault: Path) -> None:
    pack = _pack(agent_vault, "cinnamon", 1000)
    data = pack.to_json()
    assert data["text"] == pack.text and data["tokens"] == estimate_tokens(pack.text)
    assert data["index_note"] == {
        "note": "MEMORY.md",
        "lines": 4,
        "of": 4,
        "dated_links_as_ranges": 0,
    }
    assert data["notes"] == ["pie.md"]
    assert [(p["note"], p["heading"], p["lines"]) for p in data["passages"]] == [
        ("pie.md", ["Pie"], [5, 9])
    ]
    assert data["passages"][0]["tokens"] > 0


def test_index_note_cut_to_its_share(vault: Path) -> None:
    lines = [f"- [[note {i}]] about topic number {i}" for i in range(100)]
    write(vault, "MEMORY.md", "\n".join(lines) + "\n")
    write(vault, "x.md", "topic words here\n")
    pack = _pack(vault, "topic", 400, index_share=0.25)
    assert 0 < pack.index_lines < 100 and pack.index_total == 100
    assert f"… ({100 - pack.index_lines} more lines)" in pack.text
    block = pack.text[pack.text.index("## MEMORY.md") - 1 : pack.text.index("more lines)") + 12]
    assert estimate_tokens(block) <= 100  # a quarter of 400


def test_another_index_note_and_none(agent_vault: Path) -> None:
    assert _pack(agent_vault, "apple", 800, index_note="pie.md").index_note == "pie.md"
    assert _pack(agent_vault, "apple", 800, index_note="memory").index_note == "MEMORY.md"
    none = _pack(agent_vault, "apple", 800, index_note="NOPE.md")
    assert none.index_note is None and "no index note" in none.text


def test_budget_too_small_for_the_header_gives_nothing(agent_vault: Path) -> None:
    pack = _pack(agent_vault, "apple", 5)
    assert (pack.text, pack.tokens, pack.passages) == ("", 0, ())


def test_time_question_marks_passages_saying_when(vault: Path) -> None:
    write(vault, "d/2026-05-02.md", "We planted the apple trees yesterday.\n")
    write(vault, "d/2026-06-01.md", "The apple trees look healthy.\n")
    pack = _pack(vault, "when did we plant apple trees", 1000)
    assert pack.time_question
    reasons = {p.passage.note: p.reasons for p in pack.passages}
    assert "says when" in reasons["d/2026-05-02.md"]
    assert "says when" not in reasons["d/2026-06-01.md"]


def test_question_naming_a_month_raises_notes_of_that_month(vault: Path) -> None:
    write(vault, "d/2026-05-02.md", "apple harvest notes\n")
    write(vault, "d/2026-06-01.md", "apple harvest notes\n")
    pack = _pack(vault, "apple harvest in June 2026", 1000)
    assert [p.passage.note for p in pack.passages] == ["d/2026-06-01.md", "d/2026-05-02.md"]
    assert "dated as asked" in pack.passages[0].reasons


def test_question_naming_a_day_raises_the_note_dated_nearest_it(vault: Path) -> None:
    write(vault, "d/2026-05-02.md", "apple harvest notes\n")
    write(vault, "d/2026-05-20.md", "apple harvest notes\n")
    pack = _pack(vault, "the apple harvest on 19 May, 2026", 1000)
    # both are of May 2026; the 20th is a day from the 19th, the 2nd 17 days
    assert [p.passage.note for p in pack.passages] == ["d/2026-05-20.md", "d/2026-05-02.md"]
    assert "dated nearest the day asked" in pack.passages[0].reasons
    assert "dated nearest the day asked" not in pack.passages[1].reasons
    far = _pack(vault, "the apple harvest on May 30", 1000)  # 10 days from the nearest
    assert all("dated nearest the day asked" not in p.reasons for p in far.passages)
    assert [p.passage.note for p in far.passages] == ["d/2026-05-02.md", "d/2026-05-20.md"]


def test_linked_note_of_a_best_note_is_raised(vault: Path) -> None:
    # the three best notes (a, d, e) are the seeds; c, linked from a, passes b, its twin
    write(vault, "a.md", "kiwi kiwi kiwi, see [[c]]\n")
    write(vault, "d.md", "kiwi kiwi, on a longer line of words\n")
    write(vault, "e.md", "kiwi kiwi, on a longer line of words\n")
    write(vault, "b.md", "kiwi once, among many other words about fruit and more\n")
    write(vault, "c.md", "kiwi once, among many other words about fruit and more\n")
    pack = _pack(vault, "kiwi", 1000)
    reasons = {p.passage.note: p.reasons for p in pack.passages}
    assert "linked with a.md" in reasons["c.md"]
    order = [p.passage.note for p in pack.passages]
    assert order[0] == "a.md" and order.index("c.md") < order.index("b.md")
    assert "linked with a.md" not in reasons["b.md"]


DEMO = REPO / "resources" / "demo-vault"


@pytest.fixture(scope="module")
def demo_index() -> VaultIndex:
    return VaultIndex.scan(DEMO, use_cache=False)


def test_same_question_same_pack(demo_index: VaultIndex) -> None:
    def text_of(rel: str) -> str | None:
        return read_note(demo_index.root, rel).text

    a = context_pack(demo_index, text_of, "judge model pinned", 1500)
    b = context_pack(demo_index, text_of, "judge model pinned", 1500)
    assert a.text == b.text and a.to_json() == b.to_json()
    assert a.passages[0].passage.note == "decisions/pin-judge-model.md"


_WORDS = [
    "judge",
    "token",
    "bucket",
    "pipeline",
    "Priya",
    "提示注入",
    "when",
    "May",
    "2026",
    "memory",
    "retry",
    "#",
    "**",
    "[[",
    "x" * 300,
    "compaction",
    "flat",
    "index",
]


@given(
    query=st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join) | st.text(max_size=60),
    budget=st.integers(min_value=0, max_value=3000) | st.integers(min_value=0, max_value=120),
    share=st.floats(min_value=0.0, max_value=1.0),
)
def test_never_over_budget(demo_index: VaultIndex, query: str, budget: int, share: float) -> None:
    pack = context_pack(
        demo_index,
        lambda rel: read_note(demo_index.root, rel).text,
        query,
        budget,
        index_share=share,
    )
    assert estimate_tokens(pack.text) == pack.tokens <= budget
    assert sum(p.tokens for p in pack.passages) <= budget


def test_related_note_of_a_best_note_is_raised(vault: Path) -> None:
    from librarian_gui.core.related.cached import vault_related

    # a, d, e: the three best notes for "kiwi" (the seeds). b and c match it alike, but c
    # shares a's other words (orchard, harvest, pruning, ladder), which no other note has.
    write(vault, "a.md", "kiwi kiwi kiwi orchard harvest pruning ladder\n")
    write(vault, "d.md", "kiwi kiwi, on a longer line of words\n")
    write(vault, "e.md", "kiwi kiwi, on a longer line of words\n")
    write(vault, "b.md", "kiwi banana mango papaya guava\n")
    write(vault, "c.md", "kiwi orchard harvest pruning ladder\n")
    for i, pair in enumerate(["river stone", "stone cloud", "cloud river", "maple cedar"]):
        write(vault, f"f{i}.md", pair + " maple cedar\n")
    index = VaultIndex.scan(vault, use_cache=False)

    def text_of(rel: str) -> str | None:
        return read_note(index.root, rel).text

    related = vault_related(index, text_of, use_cache=False)
    pack = context_pack(index, text_of, "kiwi", 1000, related=related)
    reasons = {p.passage.note: p.reasons for p in pack.passages}
    assert "related to a.md" in reasons["c.md"]
    assert not any(r.startswith("related") for r in reasons["b.md"])
    order = [p.passage.note for p in pack.passages]
    assert order.index("c.md") < order.index("b.md")
    assert "similarity (related notes)" in pack.text.split("\n")[1]


def test_large_vault_scores_only_the_candidates(vault: Path) -> None:
    # past PREFILTER_ABOVE (400) notes, the notes holding the query's words are found in
    # postings of whole notes (``candidates``); a note named like the query is kept
    # although its text is not
    for i in range(420):
        write(vault, f"n/{i:03}.md", f"filler text number {i}\n")
    write(vault, "n/quince.md", "A quince jelly recipe.\n")
    write(vault, "Quince jelly.md", "Nothing here.\n")
    pack = _pack(vault, "quince jelly", 1000)
    assert {p.passage.note for p in pack.passages} == {"n/quince.md", "Quince jelly.md"}
    # the text match scores 1 or more; the name alone NAME_WEIGHT (0.5) times its ratio, 1
    assert [p.passage.note for p in pack.passages] == ["n/quince.md", "Quince jelly.md"]
    assert pack.passages[1].reasons == ("note named",)
    assert pack.passages[1].score == 0.5


def test_a_title_repeating_the_notes_name_is_left_out_of_its_labels(vault: Path) -> None:
    # the whole of garden.md sits under "# Garden", its title, which only repeats its name:
    # the path says it, so its labels show only the headings below it
    write(
        vault,
        "garden.md",
        "# Garden\n\n## Beds\n\nThe tomatoes went into the south bed.\n\n"
        "## Tools\n\nThe spade handle cracked.\n",
    )
    # log.md opens with a line before any heading, twice.md holds two top headings:
    # neither has a title, and their labels show every heading
    write(vault, "log.md", "Morning notes about tomatoes.\n\n## Evening\n\nWatered the tomatoes.\n")
    write(vault, "twice.md", "# One\n\nSpade talk.\n\n# Two\n\nMore spade talk.\n")
    # shed.md's title says more than its name: it stays in its labels
    write(vault, "shed.md", "# The old potting shed\n\nA spade for the tomatoes hangs there.\n")
    pack = _pack(vault, "tomatoes spade", 2000, index_note="none")
    assert "## garden.md (" in pack.text
    assert "\n[L3–5 · Beds]\n## Beds\n\nThe tomatoes went into the south bed.\n" in pack.text
    assert "\n[L7–9 · Tools]\n## Tools\n\nThe spade handle cracked.\n" in pack.text
    assert "\n[L1]\nMorning notes about tomatoes.\n" in pack.text
    assert "\n[L3–5 · Evening]\n## Evening\n" in pack.text
    assert "\n[L1–3 · One]\n# One\n\nSpade talk.\n" in pack.text
    assert "\n[L5–7 · Two]\n# Two\n" in pack.text
    assert "\n[L1–3 · The old potting shed]\n# The old potting shed\n" in pack.text
    # the passages keep their whole heading path
    headings = {(p.passage.note, p.passage.first): p.passage.heading for p in pack.passages}
    assert headings[("garden.md", 3)] == ("Garden", "Beds")


def test_a_notes_date_is_not_repeated_when_its_path_says_it(agent_vault: Path) -> None:
    write(agent_vault, "log/2026-05-01.md", "---\ndate: 2026-05-02\n---\nAn apple crumble.\n")
    pack = _pack(agent_vault, "apple", 2000)
    assert "\n## b/2026-02-10.md\n" in pack.text  # its date from its name: said once
    assert "\n## pie.md (2026-01-05)\n" in pack.text  # from its front matter
    # a path holding another date than the note's: the note's is printed
    assert "\n## log/2026-05-01.md (2026-05-02)\n" in pack.text


@given(
    st.lists(st.text(alphabet="ab -#\u4e2d", max_size=30), max_size=300),
    st.integers(min_value=0, max_value=600),
)
def test_the_index_note_keeps_as_many_lines_as_fit(lines: list[str], share: int) -> None:
    """Found by doubling and halving (a dump of 50,000 lines as the index note was priced
    line by line from the end): the lines kept fit, and one more would not."""
    kept = _index_lines_within("MEMORY.md", lines, share)

    def fits(k: int) -> bool:
        return estimate_tokens(_index_block("MEMORY.md", lines, k)) <= share

    assert 0 <= kept <= len(lines)
    assert kept == 0 or fits(kept)
    assert kept == len(lines) or not fits(kept + 1)


def test_a_note_named_by_its_alias_is_kept_in_a_big_vault_with_an_index_note(
    tmp_path: Path,
) -> None:
    from librarian_gui.core.agents.corpus import PREFILTER_ABOVE

    # More notes than the corpus splits (only the best matches and the notes named are),
    # the index note sorted before the note named, so each note's place shifts past it.
    for i in range(PREFILTER_ABOVE + 20):
        write(tmp_path, f"note {i:03d}.md", f"Plain words about the weather, day {i}.\n")
    write(tmp_path, "MEMORY.md", "# Memory\n\n- [[note 001]]\n")
    write(tmp_path, "q.md", "---\naliases: [Zanzibar Protocol]\n---\nNothing else here.\n")
    pack = _pack(tmp_path, "zanzibar protocol", 2000)
    assert pack.index_note == "MEMORY.md"
    named = [p for p in pack.passages if "note named" in p.reasons]
    assert [p.passage.note for p in named] == ["q.md"]
