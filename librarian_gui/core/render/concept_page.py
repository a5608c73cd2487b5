"""The page of a concept in the preview: what it is, the notes that link it (with the
linking line), where it is mentioned without a link, and the concepts it appears with."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

from ..backlinks.linked import linked_mentions
from ..concepts.dictionary import Concept
from ..index.index import VaultIndex
from ..index.resolver import CONCEPT_PREFIX
from ..tagging.matching import AliasMatcher
from ..tagging.run import mentions_by_note
from ..vault.urls import url_path

MAX_LINKED = 200  # notes listed with their lines; the rest are counted
MAX_MENTIONS = 100
TAG_SCHEME = "tagconcept"  # the preview reports a click on it as a "tag-concept" request


@dataclass(frozen=True, slots=True)
class ConceptPage:
    html: str
    linked: int  # notes linking the concept
    mentioned: int  # notes mentioning an alias without linking it
    related: tuple[tuple[str, int], ...]  # (concept id, notes shared), most first


def related_concepts(index: VaultIndex, concept_id: str, limit: int = 10) -> list[tuple[str, int]]:
    """Concepts linked by the notes that link this one, by how many such notes."""
    node = CONCEPT_PREFIX + concept_id
    counts: Counter[str] = Counter()
    with index.lock:
        for source in index.in_edges.get(node, {}):
            for target in index.out_edges.get(source, {}):
                if target.startswith(CONCEPT_PREFIX) and target != node:
                    counts[target[len(CONCEPT_PREFIX) :]] += 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


def concept_page(
    index: VaultIndex,
    concept: Concept,
    read_text: Callable[[str], str | None],
    cancelled: Callable[[], bool] = lambda: False,
) -> ConceptPage:
    """Build the page; reads every note once (for the unlinked mentions), so call it off
    the GUI thread."""
    node = CONCEPT_PREFIX + concept.id
    groups = linked_mentions(index, node, read_text, cancelled)
    mentions: list[tuple[str, int, str]] = []  # (note, line, context)
    mentioned = 0
    matcher = AliasMatcher([concept])
    for rel, body, found in mentions_by_note(index, matcher, read_text, cancelled):
        mentioned += 1
        if len(mentions) < MAX_MENTIONS:
            occ = found[0]
            start = body.rfind("\n", 0, occ.start) + 1
            end = body.find("\n", occ.end)
            line = body[start : len(body) if end < 0 else end].rstrip("\r")
            mentions.append((rel, occ.line, _mark(line, occ.column, len(occ.text))))
    related = related_concepts(index, concept.id)

    esc = html.escape
    parts = [f"<h1>{esc(concept.id)}</h1>"]
    meta = ["<i>Concept</i>"]
    if concept.category:
        meta.append(esc(concept.category))
    if concept.color:
        meta.append(f'<span style="color:{esc(concept.color)}">■</span> {esc(concept.color)}')
    parts.append(f"<p>{' · '.join(meta)}</p>")
    if concept.description:
        parts.append(f"<p>{esc(concept.description)}</p>")
    if concept.aliases:
        parts.append("<p><b>Aliases:</b> " + " · ".join(esc(a) for a in concept.aliases) + "</p>")
    parts.append(f"<h2>Linked from {len(groups)} note{'s' * (len(groups) != 1)}</h2>")
    if groups:
        items = []
        for group in groups[:MAX_LINKED]:
            lines = "".join(
                f"<br><small>{line.line}: {_marked_spans(line.text, line.spans)}</small>"
                for line in group.lines[:3]
            )
            items.append(f"<li>{_note_link(group.source)}{lines}</li>")
        more = len(groups) - MAX_LINKED
        parts.append("<ul>" + "".join(items) + "</ul>")
        if more > 0:
            parts.append(f"<p>… and {more} more.</p>")
    else:
        parts.append("<p>No note links it yet.</p>")
    parts.append(f"<h2>Unlinked mentions in {mentioned} note{'s' * (mentioned != 1)}</h2>")
    if mentions:
        parts.append(
            f'<p><a href="{TAG_SCHEME}:///{quote(concept.id, safe="")}">Tag this concept now…</a>'
            " (opens the tagging preview; nothing is written before you apply)</p>"
        )
        parts.append(
            "<ul>"
            + "".join(
                f"<li>{_note_link(rel)}<br><small>{line}: {context}</small></li>"
                for rel, line, context in mentions
            )
            + "</ul>"
        )
        if mentioned > len(mentions):
            parts.append(f"<p>… and {mentioned - len(mentions)} more notes.</p>")
    else:
        parts.append("<p>No unlinked mention of its aliases.</p>")
    if related:
        parts.append("<h2>Related concepts</h2><p>")
        parts.append(
            " · ".join(
                f'<a href="concept:///{quote(cid, safe="")}">{esc(cid)}</a> ({count})'
                for cid, count in related
            )
        )
        parts.append("</p>")
    return ConceptPage("".join(parts), len(groups), mentioned, tuple(related))


def _note_link(rel: str) -> str:
    title = html.escape(rel.removesuffix(".md"))
    return f'<a href="note:///{url_path(rel)}">{title}</a>'


def _mark(line: str, column: int, size: int) -> str:
    esc = html.escape
    return (
        esc(line[:column])
        + "<b>"
        + esc(line[column : column + size])
        + "</b>"
        + esc(line[column + size :])
    )


def _marked_spans(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    out = []
    at = 0
    for start, end in spans:
        out.append(html.escape(text[at:start]))
        out.append("<b>" + html.escape(text[start:end]) + "</b>")
        at = end
    out.append(html.escape(text[at:]))
    return "".join(out)
