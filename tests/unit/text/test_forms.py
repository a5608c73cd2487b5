"""vault_form: a question's word the vault never uses, found in the form the vault uses.
Expected forms are written by hand; hypothesis checks that a held word is never replaced
and that a form found is always held."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from librarian_gui.core.text.forms import _slips, vault_form


def _form(term: str, counts: dict[str, int]) -> str | None:
    held = Counter(counts)
    return vault_form(term, lambda t: held[t], sorted(held))


@pytest.mark.parametrize(
    ("term", "vault", "expected"),
    [
        ("decid", {"decide": 2}, "decide"),  # "decided" folds short of "decide"
        ("invite", {"invit": 3}, "invit"),  # … and the other way round
        ("mentorship", {"mentor": 1}, "mentor"),  # 4 letters past it
        ("emotion", {"emotional": 2, "emotionally": 9}, "emotional"),  # the nearer length
        ("promote", {"promot": 1, "promotion": 5}, "promot"),  # 1 letter apart before 2
        ("funraiser", {"fundraiser": 1}, "fundraiser"),  # a letter left out
        ("fesetival", {"festival": 1}, "festival"),  # a letter added
        ("recieve", {"receive": 1}, "receive"),  # two swapped
    ],
)
def test_forms_found(term: str, vault: dict[str, int], expected: str) -> None:
    assert _form(term, vault) == expected


@pytest.mark.parametrize(
    ("term", "vault"),
    [
        ("decide", {"decide": 1, "decid": 5}),  # held: kept as it is
        ("even", {"event": 4}),  # too short to stand for another word
        ("apart", {"apartments": 2}),  # 5 letters past it: another word
        ("status", {"statue": 1}),  # one slip, but too short to be a typo of it
        ("mention", {"mentor": 3}),  # two slips
        ("participate", {"particular": 3}),  # a shared beginning is not a form
        ("tokyo", {}),  # nothing held
        ("東京都庁", {"東京": 2}),  # not an English word's ending
    ],
)
def test_no_form(term: str, vault: dict[str, int]) -> None:
    assert _form(term, vault) is None


def test_slips_are_damerau_distance_one() -> None:
    found = _slips("abc")
    # 3 deletions, 2 swaps, 26 × 3 changes and 26 × 4 insertions, less the repeats
    assert {"bc", "ac", "ab", "bac", "acb", "xbc", "abx", "xabc", "abcx"} <= found
    assert "abc" not in found and "cba" not in found and "ba" not in found
    assert all(abs(len(s) - 3) <= 1 for s in found)


@given(
    st.text("abcde", min_size=1, max_size=8),
    st.dictionaries(st.text("abcde", min_size=1, max_size=10), st.integers(1, 5), max_size=30),
)
def test_held_kept_and_forms_held(term: str, vault: dict[str, int]) -> None:
    found = _form(term, vault)
    if term in vault:
        assert found is None
    if found is not None:
        assert found in vault and found != term
        one_begins_other = found.startswith(term) or term.startswith(found)
        assert one_begins_other or found in _slips(term)
