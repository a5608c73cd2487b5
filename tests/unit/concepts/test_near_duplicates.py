"""Near-duplicate names: ``close_pairs`` finds exactly the pairs that comparing every pair
finds, and ``librarian concepts check`` prints them as it always did."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from rapidfuzz import fuzz, process

from librarian_gui.cli import main
from librarian_gui.core.concepts.close_pairs import close_pairs


def every_pair(texts: list[str], score: int) -> set[tuple[int, int]]:
    """Comparing every pair with every other (rapidfuzz's cdist, all of the matrix)."""
    scores = process.cdist(texts, texts, scorer=fuzz.ratio, score_cutoff=score, workers=-1)
    return {(int(i), int(j)) for i, j in zip(*np.nonzero(scores), strict=True) if i < j}


def pairs_of(texts: list[str], score: int) -> set[tuple[int, int]]:
    found = set()
    for i, j, ratio in close_pairs(texts, score):
        assert len(texts[i]) <= len(texts[j])
        assert ratio == fuzz.ratio(texts[i], texts[j])
        found.add((min(i, j), max(i, j)))
    return found


def edited(rng: random.Random, word: str, edits: int, letters: str) -> str:
    for _ in range(edits):
        at = rng.randrange(len(word) + 1)
        kind = rng.randrange(3)
        if kind == 0:
            word = word[:at] + rng.choice(letters) + word[at:]
        elif kind == 1 and at < len(word):
            word = word[:at] + word[at + 1 :]
        elif at < len(word):
            word = word[:at] + rng.choice(letters) + word[at + 1 :]
    return word


@pytest.mark.parametrize("score", [90, 80, 95])
def test_close_pairs_are_the_pairs_comparing_every_pair_finds(score: int) -> None:
    # Families of texts a few edits apart, of every length from 1 to 90, in Latin, Chinese
    # and with repeated letters: edits anywhere, up to and past what the score allows.
    rng = random.Random(score)
    letters = "abcdefgh ij-é中文"
    texts: list[str] = []
    while len(texts) < 1500:
        word = "".join(rng.choice(letters) for _ in range(rng.randint(1, 90)))
        texts.append(word)
        for edits in range(1, 1 + len(word) // 5):
            texts.append(edited(rng, word, edits, letters))
    texts += ["a" * n for n in range(1, 40)] + ["ab" * n for n in range(1, 30)]
    texts = sorted(set(texts))
    expected = every_pair(texts, score)
    assert len(expected) > 500
    assert pairs_of(texts, score) == expected


def test_a_series_of_names_with_common_segments_is_compared_in_full() -> None:
    # Every name shares its first segments with every other: the segment join would list
    # all pairs, so these lengths are compared directly. Same answer either way.
    texts = [f"adr-{i:04d}" for i in range(400)] + [f"item {i} of the list" for i in range(600)]
    expected = every_pair(texts, 90)
    assert len(expected) > 1000
    assert pairs_of(texts, 90) == expected


def test_equal_texts_are_a_pair_and_one_text_is_none() -> None:
    assert list(close_pairs(["same", "same", "other"], 90)) == [(0, 1, 100.0)]
    assert list(close_pairs(["alone"], 90)) == []
    assert list(close_pairs([], 90)) == []


DICTIONARY = {
    "kubernetes": {"aliases": ["Kubernetes", "k8s"]},
    "kubernetis": {"aliases": ["kubernetis cluster"]},
    "prompt-injection": {"aliases": ["prompt injection"]},
    "prompt-injections": {"aliases": ["prompt injections"]},
    "python-3-11": {"aliases": ["Python 3.11"]},
    "python-3-12": {"aliases": ["Python 3.12"]},
    "vector-store": {"aliases": ["vector store"]},
    "vectar-store": {"aliases": ["vectar store"]},
    "rag-stores": {"aliases": ["vector stores"]},
    "the-thing": {"aliases": ["the", "Prompt Injection"]},
}
TAIL = "; merge the two concepts or tell their names apart."


def test_concepts_check_prints_near_duplicates_conflicts_and_stop_words_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Worked out by hand, with fuzz.ratio = 100 * (1 - indel distance / total length):
    # - "kubernetes" / "kubernetis": one letter replaced, 2 of 20: 90.0, just enough; the
    #   alias "Kubernetes" beats the id of "kubernetes" (aliases are named first);
    # - "prompt injection" / "prompt injections": 1 of 33, 97.0; the same against
    #   "Prompt Injection", which conflicts with "prompt injection" (equal but for case)
    #   and is 2 of 32 from the id "prompt-injection": 93.8;
    # - "Python 3.11" / "Python 3.12": differ in a number only, a series, not reported;
    # - "vector store" / "vectar store": 2 of 24, 91.7; "vector store" / "vector stores":
    #   1 of 25, 96.0; "vectar store" / "vector stores": 3 of 25, 88.0, not reported;
    # - "the": an English stop word.
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "concepts.json").write_text(json.dumps(DICTIONARY, indent=2), encoding="utf-8")
    code = main(["concepts", "check", str(vault), "--no-usage"])
    out, err = capsys.readouterr()
    assert (code, err) == (1, "")
    near = "  warning {}  [near-duplicate] {}" + TAIL
    assert out.splitlines() == [
        f"{vault / 'concepts.json'}: 10 concepts",
        near.format("kubernetes", '"Kubernetes" is nearly the same as the id of "kubernetis"'),
        near.format(
            "kubernetis", 'The id "kubernetis" is nearly the same as "Kubernetes" of "kubernetes"'
        ),
        '  error   prompt-injection  [conflict] "prompt injection" matches the same text as '
        '"Prompt Injection" of "the-thing"; a mention would tag both. Keep it in one concept.',
        near.format(
            "prompt-injection",
            'The id "prompt-injection" is nearly the same as "Prompt Injection" of "the-thing"',
        ),
        near.format(
            "prompt-injection",
            '"prompt injection" is nearly the same as "prompt injections" of "prompt-injections"',
        ),
        near.format(
            "prompt-injections",
            '"prompt injections" is nearly the same as "Prompt Injection" of "the-thing"',
        ),
        near.format(
            "prompt-injections",
            '"prompt injections" is nearly the same as "prompt injection" of "prompt-injection"',
        ),
        near.format(
            "vector-store", '"vector store" is nearly the same as "vectar store" of "vectar-store"'
        ),
        near.format(
            "vector-store", '"vector store" is nearly the same as "vector stores" of "rag-stores"'
        ),
        near.format(
            "vectar-store", '"vectar store" is nearly the same as "vector store" of "vector-store"'
        ),
        near.format(
            "rag-stores", '"vector stores" is nearly the same as "vector store" of "vector-store"'
        ),
        '  error   the-thing  [conflict] "Prompt Injection" matches the same text as '
        '"prompt injection" of "prompt-injection"; a mention would tag both. Keep it in one '
        "concept.",
        near.format(
            "the-thing",
            '"Prompt Injection" is nearly the same as "prompt injections" of "prompt-injections"',
        ),
        near.format(
            "the-thing", '"Prompt Injection" is nearly the same as the id of "prompt-injection"'
        ),
        '  warning the-thing  [stop-word] "the" is a very common word in English; it would tag '
        "nearly every note written in it. Use a longer phrase.",
        "2 errors, 13 warnings",
    ]


def test_pairs_of_one_class_are_never_compared_nor_given() -> None:
    # A numbered series big enough to be a class of its own in its blocks (topic 000 …),
    # small classes, and typos of the series' names that must still be found.
    rng = random.Random(7)
    texts = [f"topic {n:03d}" for n in range(300)]
    texts += [f"topix {n:03d}" for n in range(0, 300, 7)]  # a letter off: other classes
    texts += ["".join(rng.choice("abcdef ") for _ in range(9)) for _ in range(400)]
    texts = sorted(set(texts))
    stems: dict[str, int] = {}
    classes = [stems.setdefault(t.rstrip("0123456789"), len(stems)) for t in texts]
    expected = {(i, j) for i, j in every_pair(texts, 80) if classes[i] != classes[j]}
    found = set()
    for i, j, ratio in close_pairs(texts, 80, classes):
        assert classes[i] != classes[j]
        assert ratio == fuzz.ratio(texts[i], texts[j])
        found.add((min(i, j), max(i, j)))
    assert found == expected
    assert any(texts[i].startswith("topi") and texts[j].startswith("topi") for i, j in found)


def test_two_big_series_alike_are_not_compared_and_the_check_says_so() -> None:
    from librarian_gui.core.concepts.dictionary import Concept
    from librarian_gui.core.concepts.lint import lint_concepts

    # 5,000 ids "topic-00000" … and as many aliases "topic 00000" …: 25,000,000 pairs of
    # two series, each pair a separator and a number apart. A typo of one is still found.
    concepts = [Concept(f"topic-{n:05d}", (f"topic {n:05d}",), "x") for n in range(5000)]
    concepts.append(Concept("other", ("tpoic 00007",), "x"))
    issues = lint_concepts(concepts)
    assert [(i.concept, i.code) for i in issues if i.concept is None] == [
        (None, "near-duplicates-skipped")
    ]
    assert issues[0].message == (
        'Near-duplicates between the 5,000 names like "topic 00000" and the 5,000 names like '
        '"topic-00000" were not looked for: too many pairs to compare. Names that differ only '
        "in a number are never near-duplicates."
    )
    typo = [i for i in issues if i.code == "near-duplicate" and i.concept == "other"]
    assert [i.alias for i in typo] == ["tpoic 00007"]
