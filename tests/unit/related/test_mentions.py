"""A note that names another (its file name, one word or several in a row) ranks it higher:
names as title terms, found in the prose, kept out of the vectors when of several words, and
the bonus they give, with values worked out by hand."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from librarian_gui.core.related.counting import TITLE_PREFIX, count_rows, mentioned, title_of
from librarian_gui.core.related.incremental import update_related
from librarian_gui.core.related.model import PHRASE_NOTES, build_related
from librarian_gui.core.related.neighbours import MENTION_BONUS, mention_bonus, rank
from librarian_gui.core.related.store import load_model, save_model
from librarian_gui.core.related.weights import TITLE_BOOST, term_boost


@pytest.mark.parametrize(
    ("rel", "title"),
    [
        ("wikilinks.md", "wikilinks"),  # one word, as before
        ("user/features/daily-notes.md", "daily notes"),  # kebab case: words
        ("pages/Whiteboard___Action Bar.md", "whiteboard action bar"),  # logseq namespace
        ("pages/Snap to grid.md", "snap to grid"),  # stop words stay: words in a row
        ("pages/New to Logseq%3F.md", "new to logseq"),  # %3F is "?"
        ("pages/Café crème.md", "café crème"),  # beyond ASCII, case-folded
        ("journals/2021_02_07.md", None),  # a date: no comparable word
        ("the.md", None),  # a stop word alone
        ("of the.md", None),  # stop words only
        ("笔记.md", "笔记"),  # one bigram
        ("笔记 本子.md", None),  # several in Chinese: not looked for
    ],
)
def test_a_note_is_named_by_its_file_name(rel: str, title: str | None) -> None:
    assert title_of(rel) == title


def test_a_name_of_several_words_is_found_where_they_follow_one_another() -> None:
    phrases = {
        ("daily", "notes"): (("daily", "notes"),),
        ("snap", "to"): (("snap", "to", "grid"), ("snap", "to", "it")),
    }
    sequence = ["write", "daily", "notes", "and", "snap", "to", "grid", "not", "snap", "to", "them"]
    assert mentioned(sequence, phrases) == ["daily notes", "snap to grid"]
    assert mentioned(["notes", "daily", "snap", "grid"], phrases) == []  # not in a row
    assert mentioned([], phrases) == []


def test_a_mention_is_counted_once_and_the_own_name_three_times() -> None:
    titles = frozenset({"daily notes", "graph"})
    ids, values, table = count_rows(
        [
            "Daily notes: keep DAILY\nNOTES. The graph.",  # a line break between words: a row
            "A daily habit; notes.",  # not in a row
            "Nothing.",
        ],
        [(), (), ()],
        [None, None, "daily notes"],
        (frozenset(), titles),
        {},
    )
    words = {i: w for w, i in table.items()}
    counted = [
        {words[i]: int(c) for i, c in zip(row, counts, strict=True) if words[i][0] == "\x00"}
        for row, counts in zip(ids, values, strict=True)
    ]
    assert counted == [
        {TITLE_PREFIX + "graph": 1, TITLE_PREFIX + "daily notes": 1},
        {},
        {TITLE_PREFIX + "daily notes": 3},
    ]


def test_a_name_of_several_words_is_no_part_of_the_vectors() -> None:
    terms = sorted([TITLE_PREFIX + "daily notes", TITLE_PREFIX + "graph", "apple"])
    assert dict(zip(terms, term_boost(terms).tolist(), strict=True)) == {
        "apple": 1.0,
        TITLE_PREFIX + "daily notes": 0.0,
        TITLE_PREFIX + "graph": TITLE_BOOST,
    }
    # Four notes: a word in more than 2 of them is no term; "daily" and "notes" are in two
    # (a.md's text, daily-notes.md's name: a name's words count in its note).
    model = build_related(
        {
            "daily-notes.md": "river stone",
            "a.md": "river stone, and daily notes",
            "b.md": "maple cloud",
            "c.md": "maple cloud",
        }
    )
    assert TITLE_PREFIX + "daily notes" in model.terms  # a term: it has an idf
    kept = {model.terms[t] for t in model.vectors.indices.tolist()}
    assert kept == {"river", "stone", "maple", "cloud", "daily", "notes"}  # but in no vector
    assert model.shared_terms("a.md", "daily-notes.md") == ["daily", "notes", "river", "stone"]


def test_the_bonus_of_a_mention_either_way_by_hand() -> None:
    # Four notes, every term in 2 of them (the most a term can be in, and the least): all
    # of the same idf. "a" names "daily notes" (its title term then in "a" and the note
    # itself): a weight of 1, the bonus whole, either way; no other note names one.
    texts = {
        "daily-notes.md": "river stone",
        "a.md": "river stone, and daily notes",
        "b.md": "maple cloud",
        "c.md": "maple cloud",
    }
    model = build_related(texts, k=3)
    idf = dict(zip(model.terms, model.idf.tolist(), strict=True))
    assert idf[TITLE_PREFIX + "daily notes"] == pytest.approx(math.log(5 / 3) + 1)
    assert set(idf.values()) == {idf[TITLE_PREFIX + "daily notes"]}
    rows = np.arange(4, dtype=np.int32)
    bonus = mention_bonus(rows, model.cand_rows, model.named, model.idf)
    by_pair = {
        (model.notes[i], model.notes[j]): b
        for i in range(4)
        for j, b in zip(model.cand_rows[i].tolist(), bonus[i].tolist(), strict=True)
        if j >= 0
    }
    assert by_pair[("a.md", "daily-notes.md")] == MENTION_BONUS  # a names it
    assert by_pair[("daily-notes.md", "a.md")] == MENTION_BONUS  # named by a
    assert {pair: b for pair, b in by_pair.items() if b} == {
        ("a.md", "daily-notes.md"): MENTION_BONUS,
        ("daily-notes.md", "a.md"): MENTION_BONUS,
    }


def test_a_named_note_passes_one_a_little_closer() -> None:
    # Note 0's candidates: 1 (cosine 0.50) and 2 (0.47, named by note 0: bonus 0.05).
    cand_rows = np.array([[1, 2], [0, 2], [0, 1]], dtype=np.int32)
    cand_cos = np.array([[0.5, 0.47], [0.5, 0.2], [0.47, 0.2]], dtype=np.float32)
    reaches = np.zeros(3)
    bonus = np.array([[0.0, 0.05], [0.0, 0.0], [0.05, 0.0]])
    rows, scores = rank(cand_rows, cand_cos, reaches, 2, 0.0, 0.1, bonus)
    assert rows[0].tolist() == [2, 1]  # 0.47 + 0.05 = 0.52 > 0.50
    assert scores[0].tolist() == [float(np.float32(0.47)), 0.5]  # the score is the cosine
    rows, _ = rank(cand_rows, cand_cos, reaches, 2, 0.0, 0.1)
    assert rows[0].tolist() == [1, 2]  # without it, by cosine
    # the threshold still reads the cosine: 0.47 < 0.48 is out, bonus or not
    rows, _ = rank(cand_rows, cand_cos, reaches, 2, 0.48, 0.1, bonus)
    assert rows[0].tolist() == [1, -1]


def test_a_named_note_ranks_higher_in_a_vault() -> None:
    # "a" shares one word with "b" and one with "daily-notes", every word in 2 notes of 6:
    # the same cosine (1/2), the same reach, and "b" first by its place; "a" names "daily
    # notes": that note comes first. ("daily" and "notes", in "d" and "e" too and in the
    # name's note, are in 4 notes of 6: too common to be terms, so the name's words add
    # nothing to the cosine.)
    texts = {
        "b.md": "quartz engine",
        "daily-notes.md": "harbor violin",
        "a.md": "harbor quartz, see daily notes",
        "c.md": "violin engine",
        "d.md": "notes, daily",
        "e.md": "notes, daily",
    }
    model = build_related(texts, k=3)
    cosines = dict(model.neighbours("a.md"))
    assert cosines["daily-notes.md"] == pytest.approx(0.5)
    assert cosines["b.md"] == pytest.approx(0.5)
    assert model.reach[0] == model.reach[1]
    assert [rel for rel, _ in model.neighbours("a.md")] == ["daily-notes.md", "b.md"]
    plain, _ = rank(model.cand_rows, model.cand_cos, model.reach, 3, 0.0, 0.1)  # no bonus
    assert [model.notes[j] for j in plain[2].tolist() if j >= 0] == ["b.md", "daily-notes.md"]
    assert model.shared_terms("a.md", "daily-notes.md") == ["harbor"]
    # what explains the rank: a names the other note
    assert model.mentions("a.md", "daily-notes.md") == ["daily notes"]
    assert model.mentions("daily-notes.md", "a.md") == ["daily notes"]
    assert model.mentions("a.md", "b.md") == []
    assert model.mentions("a.md", "a.md") == []
    assert model.mentions("a.md", "gone.md") == []


def test_a_large_vault_looks_for_names_of_one_word_only() -> None:
    texts = {f"n{i} x.md": "river stone" for i in range(PHRASE_NOTES + 1)}
    texts["river.md"] = "river"
    model = build_related(texts, k=2, second_process=False)
    assert model.titles == frozenset({"river"})


def test_a_saved_model_keeps_its_mentions(tmp_path: Path) -> None:
    texts = {
        "b.md": "quartz engine",
        "daily-notes.md": "harbor violin",
        "a.md": "harbor quartz, see daily notes",
        "c.md": "violin engine",
    }
    # an update since (the vocabulary kept): c now names "daily notes" too
    model = build_related(texts, k=3)
    built = update_related(model, {"c.md": "violin engine, daily notes"}, drift_share=1.0)
    seal = save_model(built, tmp_path / "related.npz")
    loaded = load_model(tmp_path / "related.npz", seal)
    assert loaded is not None
    # a and c name "daily notes" (1), the note itself (3): rows a, c and daily-notes
    title = built.terms.index(TITLE_PREFIX + "daily notes")
    assert loaded.named.toarray()[:, title].tolist() == [0, 3, 1, 1]
    for part in ("data", "indices", "indptr"):
        assert np.array_equal(getattr(loaded.named, part), getattr(built.named, part))
    assert loaded.neighbours("a.md") == built.neighbours("a.md")
