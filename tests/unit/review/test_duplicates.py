"""Near-duplicate passages (issue 32 item 3) on notes written by hand; each similarity is
counted by hand from the content words listed beside it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.review.duplicates import find_duplicates, find_in_vault
from librarian_gui.core.text.analyzer import word_set_of, words
from librarian_gui.core.vault.reading import POOL_THRESHOLD

# 16 distinct content words (no stop words, none repeated)
ORIGINAL = (
    "Crawler retries failed fetches twice, waits seven seconds between attempts, "
    "logs every timeout, marks hosts flaky after repeated errors."
)
# three words changed (twice → thrice, seven → nine, flaky → unreliable), the order of the
# first two clauses swapped: 13 words shared, 16 + 3 in either → 13 / 19
EDITED = (
    "Waits nine seconds between attempts; crawler retries failed fetches thrice, "
    "logs every timeout, marks hosts unreliable after repeated errors."
)
SIGN_OFF = (
    "Written by the nightly agent run. Review pending, corrections welcome through "
    "the usual channel, thanks kindly everyone involved here."
)


def test_the_words_compared() -> None:
    assert len(word_set_of(ORIGINAL)) == 16
    assert len(word_set_of(ORIGINAL) & word_set_of(EDITED)) == 13
    assert len(word_set_of(EDITED)) == 16


def test_an_edited_copy_is_found_with_its_lines() -> None:
    notes = [
        ("a.md", f"# A\n\nIntro line.\n\n{ORIGINAL}\n"),
        ("b.md", f"---\ntitle: b\n---\nOther text here.\n\n{EDITED}\nsecond line of it\n"),
        ("c.md", "Nothing alike: gardening tomatoes, watering schedules, compost heaps.\n"),
    ]
    found = find_duplicates(notes)
    assert [p.json() for p in found.pairs] == [
        {
            "a": "a.md",
            "b": "b.md",
            "a_lines": [5, 5],
            "b_lines": [6, 7],
            # 13 shared; b's passage has "second" and "line" too: 16 + 18 − 13 in either
            "similarity": round(13 / 21, 3),
        }
    ]
    assert found.boilerplate == ()


def test_boilerplate_in_many_notes_is_not_a_repeat() -> None:
    notes = [(f"n{k}.md", f"Note {k} about topic number {k}.\n\n{SIGN_OFF}\n") for k in range(6)]
    notes.append(("x.md", f"{ORIGINAL}\n"))
    notes.append(("y.md", f"{ORIGINAL}\n"))
    found = find_duplicates(notes)
    assert [(p.a.note, p.b.note, p.similarity) for p in found.pairs] == [("x.md", "y.md", 1.0)]
    assert [(b.notes, b.example.note, b.example.first) for b in found.boilerplate] == [
        (6, "n0.md", 3)
    ]


# a wiki's pages open with a property block: 12 words every page has, 6 its own
TEMPLATE = "kind feature status stable owner docsteam area editor platform desktop shipped yes"
OWN = [
    "alpha bravo charlie delta echo foxtrot",
    "golf hotel india juliet kilo lima",
    "mike november oscar papa quebec romeo",
    "sierra tango uniform victor whiskey xray",
    "yankee zulu amber basil cedar dahlia",
    "ember fennel garnet hazel iris jasper",
]


def test_a_copied_property_block_is_a_repeat_beyond_its_template() -> None:
    """Two blocks share the 12 template words of 24 (0.5): each block is like five others,
    boilerplate. A copy of page 0's block shares its 6 own words too: beyond the template
    (the words half the group holds), it is a repeat; the blocks of two pages are not."""
    notes = [(f"p{k}.md", f"{TEMPLATE} {own}\n") for k, own in enumerate(OWN)]
    notes.append(("x.md", f"# X\n\n{TEMPLATE} {OWN[0]}\n"))
    found = find_duplicates(notes)
    assert [(p.a.note, p.b.note, p.similarity) for p in found.pairs] == [("p0.md", "x.md", 1.0)]
    assert [b.notes for b in found.boilerplate] == [7]


def test_what_is_not_compared() -> None:
    short = "Seven words only here, nothing much else."
    notes = [
        ("a.md", f"{short}\n\n```\n{ORIGINAL}\n```\n\n# {ORIGINAL}\n\n{ORIGINAL}\n\n{ORIGINAL}\n"),
        ("b.md", f"{short}\n"),
    ]
    # code and headings are not passages; the repeat inside a.md is not reported; the short
    # line has too few words
    assert find_duplicates(notes).pairs == ()


@given(st.lists(st.sampled_from(["The", "don't", "'tis", "x", "42", "Über", "a_b", "ok!", "Zeta"])))
def test_the_word_set_is_words(pieces: list[str]) -> None:
    text = " ".join(pieces)
    assert word_set_of(text) == set(words(text))


def test_the_command_line_defaults_are_the_finders() -> None:
    from librarian_gui.cli import review
    from librarian_gui.core.review import duplicates

    assert (review.THRESHOLD, review.MIN_WORDS) == (duplicates.THRESHOLD, duplicates.MIN_WORDS)


def test_worker_processes_find_what_one_process_finds(tmp_path: Path) -> None:
    """Past POOL_THRESHOLD notes the passages and their signatures are made on worker
    processes: the pairs are the same as in one process."""
    words = [f"w{k}x" for k in range(400)]
    notes = []
    for n in range(POOL_THRESHOLD + 50):
        picked = " ".join(words[(n * 7 + k * 13) % 400] for k in range(14))
        notes.append((f"n{n:04d}.md", f"# Note {n}\n\n{picked}\n"))
    notes.append(("copy-a.md", f"{ORIGINAL}\n"))
    notes.append(("copy-b.md", f"intro\n\n{EDITED}\n"))
    for rel, text in notes:
        (tmp_path / rel).write_text(text)
    one = find_duplicates(sorted(notes))
    many = find_in_vault(tmp_path, sorted(rel for rel, _ in notes))
    assert [p.json() for p in many.pairs] == [p.json() for p in one.pairs]
    assert ("copy-a.md", "copy-b.md") in {(p.a.note, p.b.note) for p in many.pairs}
    assert many.passages == one.passages


def test_a_repeat_is_found_across_the_signatures_stacked_in_parts() -> None:
    """5,000 passages, their signatures put side by side 4,096 at a time: a copy on either
    side of that boundary is found, and nothing else is alike."""
    common = (
        "copied paragraph mentions alpine lakes, granite ridges, glacier meltwater, trout "
        "streams, pine forests, marmot colonies"
    )
    notes = [(f"n{n:04}.md", " ".join(f"w{n}x{k}" for k in range(12)) + "\n") for n in range(5000)]
    notes[4090] = ("n4090.md", common + "\n")
    notes[4100] = ("n4100.md", common + "\n")
    found = find_duplicates(notes)
    assert found.passages == 5000
    assert [(p.a.note, p.b.note, p.similarity) for p in found.pairs] == [
        ("n4090.md", "n4100.md", 1.0)
    ]


def test_passages_sharing_no_band_make_no_pair() -> None:
    # Two paragraphs without a word in common: no band of their signatures can match, so
    # there is no candidate at all (it raised IndexError: the review desk and
    # `librarian duplicates` failed on such a vault).
    other = (
        "Tomatoes ripen slowly; gardeners water compost heaps beside fences nightly, keep "
        "seeds dry, label trays carefully before planting season starts."
    )
    assert not word_set_of(ORIGINAL) & word_set_of(other)
    found = find_duplicates([("a.md", ORIGINAL), ("b.md", other)])
    assert (found.pairs, found.boilerplate, found.passages) == ((), (), 2)
