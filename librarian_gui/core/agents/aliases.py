"""The concept dictionary as query expansion (issue 27): a question that names a concept by
one alias, in any language, matches the passages that name it by another alias or by its id
("prompt injection" finds "提示注入")."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

from ..concepts.dictionary import ConceptDictionary, fold
from ..tagging.matching import AliasMatcher
from ..text.analyzer import terms
from .bm25 import BM25, K1, B

_KEPT = 4  # dictionaries whose matchers are kept: a vault's, and the one it had before
_matchers: dict[int, tuple[ConceptDictionary, AliasMatcher]] = {}


def matcher_of(dictionary: ConceptDictionary) -> AliasMatcher:
    """One automaton over every alias and id of ``dictionary``, built once per dictionary
    (the index replaces its dictionary when the file changes). The id counts as an alias:
    notes write it in links (``[[prompt-injection]]``) and in prose."""
    kept = _matchers.get(id(dictionary))
    if kept is not None and kept[0] is dictionary:
        return kept[1]
    concepts = [
        dataclasses.replace(c, aliases=(*c.aliases, c.id)) if c.id not in c.aliases else c
        for c in dictionary.concepts
    ]
    matcher = AliasMatcher(concepts)
    if len(_matchers) >= _KEPT:
        _matchers.pop(next(iter(_matchers)))
    _matchers[id(dictionary)] = (dictionary, matcher)
    return matcher


def named_concepts(matcher: AliasMatcher, text: str) -> Counter[str]:
    """Concept id → how many times ``text`` names it (any alias, its id)."""
    return Counter(concept for _, _, concept in _mentions(matcher, text))


def _mentions(matcher: AliasMatcher, text: str) -> list[tuple[int, int, str]]:
    """Where ``text`` names a concept: (start, end, concept id); of overlapping mentions,
    the first and longest."""
    out = []
    end = -1
    for start, stop, concept in matcher.candidates(text, fold(text)):  # by start, longest first
        if start >= end:
            out.append((start, stop, concept))
            end = stop
    return out


def concept_scores(
    dictionary: ConceptDictionary, query: str, texts: list[str], bm25: BM25
) -> dict[int, float]:
    """Document → the BM25 part of the concepts ``query`` names, each concept counted as one
    more query term that every alias of it spells (its term frequency over the documents
    ``texts``, their lengths as ``bm25`` has them). It weighs what the words naming it in
    the query weigh (their idf), or its own idf if more: a passage saying "提示注入"
    answers "prompt injection" as well as one saying those words. Empty when the query
    names no concept."""
    if not dictionary.concepts:
        return {}
    matcher = matcher_of(dictionary)
    asked: dict[str, float] = {}
    for start, stop, concept in _mentions(matcher, query):
        said = sum(bm25.idf(t) for t in dict.fromkeys(terms(query[start:stop])))
        asked[concept] = max(asked.get(concept, 0.0), said)
    if not asked:
        return {}
    postings: dict[str, list[tuple[int, int]]] = {}
    for doc, text in enumerate(texts):
        for concept, tf in named_concepts(matcher, text).items():
            if concept in asked:
                postings.setdefault(concept, []).append((doc, tf))
    out: dict[int, float] = {}
    mean = bm25.mean_length or 1.0
    for concept, found in postings.items():
        df = len(found)
        idf = math.log(1.0 + (bm25.size - df + 0.5) / (df + 0.5))  # as BM25.idf
        idf = max(idf, asked[concept])
        for doc, tf in found:
            norm = K1 * (1.0 - B + B * bm25.lengths[doc] / mean)
            out[doc] = out.get(doc, 0.0) + idf * tf * (K1 + 1.0) / (tf + norm)
    return out


def alias_terms(dictionary: ConceptDictionary, query: str) -> list[str]:
    """The terms of every alias and id of the concepts ``query`` names: what a quick count
    of candidate notes looks for besides the query's own terms."""
    if not dictionary.concepts:
        return []
    asked = named_concepts(matcher_of(dictionary), query)
    out: list[str] = []
    for concept_id in asked:
        concept = dictionary.get(concept_id)
        if concept is not None:
            for alias in (*concept.aliases, concept.id):
                out.extend(terms(alias))
    return list(dict.fromkeys(out))
