"""The page of a concept in the preview: what it is, the notes that link it (with the
linking line), where it is mentioned without a link, and the concepts it appears with."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

from ..backlinks.linked import MentionGroup, linked_mentions
from ..concepts.dictionary import Concept
from ..index.queries import concept_notes
from ..index.resolver import CONCEPT_PREFIX
from ..index.snapshot import IndexView
from ..insight.cooccurrence import Pair, cooccurring, counted_notes, found_in
from ..tagging.matching import AliasMatcher
from ..tagging.run import mentions_by_note
from ..vault.urls import url_path

MAX_LINKED = 200  # notes listed with their lines; the rest are counted
MAX_MENTIONS = 100
MAX_FOUND_WITH = 10
TAG_SCHEME = "tagconcept"  # the preview reports a click on it as a "tag-concept" request


@dataclass(frozen=True, slots=True)
class ConceptPage:
    html: str
    linked: int  # notes linking the concept or its note
    mentioned: int  # notes mentioning an alias without linking it
    found_with: tuple[Pair, ...]  # the concepts sharing notes with it, most shared first


def linking_groups(
    index: IndexView,
    concept: Concept,
    read_text: Callable[[str], str | None],
    cancelled: Callable[[], bool] = lambda: False,
) -> list[MentionGroup]:
    """The notes linking the concept or its note (a link to the note is a link to the
    concept, DESIGN §2), with their linking lines, by path; the note itself left out."""
    index = index.snapshot()
    note = concept_notes(index).get(concept.id)
    groups = linked_mentions(index, CONCEPT_PREFIX + concept.id, read_text, cancelled)
    if note is None:
        return groups
    by_source = {g.source: g for g in groups}
    for group in linked_mentions(index, note, read_text, cancelled):
        if group.source == note:
            continue
        same = by_source.get(group.source)
        if same is None:
            by_source[group.source] = group
        else:  # it links both: one entry, its lines in order
            lines = tuple(sorted((*same.lines, *group.lines), key=lambda line: line.line))
            by_source[group.source] = MentionGroup(same.source, same.title, lines)
    return [by_source[s] for s in sorted(by_source)]


def found_with(index: IndexView, concept_id: str, limit: int = MAX_FOUND_WITH) -> list[Pair]:
    """The concepts found in the same notes as this one (the index note left out)."""
    index = index.snapshot()
    found = found_in(index)
    total = counted_notes(index)
    if concept_id not in found:
        return []
    return cooccurring(found, concept_id, total)[:limit]


def concept_page(
    index: IndexView,
    concept: Concept,
    read_text: Callable[[str], str | None],
    cancelled: Callable[[], bool] = lambda: False,
    *,
    note: str | None = None,
    note_html: str = "",
) -> ConceptPage:
    """Build the page; reads every note once (for the unlinked mentions), so call it off
    the GUI thread. ``note``: the concept's note, named under the header, with its rendered
    body ``note_html`` shown there (the note *is* the concept's page, DESIGN §2)."""
    groups = linking_groups(index, concept, read_text, cancelled)
    mentions: list[tuple[str, int, str]] = []  # (note, line, context)
    mentioned = 0
    index = index.snapshot()
    own = concept_notes(index).get(concept.id)
    matcher = AliasMatcher([concept], {concept.id: own} if own is not None else None)
    for rel, body, found in mentions_by_note(index, matcher, read_text, cancelled):
        mentioned += 1
        if len(mentions) < MAX_MENTIONS:
            occ = found[0]
            start = body.rfind("\n", 0, occ.start) + 1
            end = body.find("\n", occ.end)
            line = body[start : len(body) if end < 0 else end].rstrip("\r")
            mentions.append((rel, occ.line, _mark(line, occ.column, len(occ.text))))
    partners = found_with(index, concept.id)

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
    if note is not None:
        parts.append(f"<p><b>Its note:</b> {_note_link(note)}</p>")
        if note_html:
            parts.append(f'<div class="concept-note">{note_html}</div><hr>')
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
    if partners:
        parts.append(
            "<h2>Found with</h2><p><small>notes shared · Jaccard (shared / in either) · "
            "lift (× what chance would give); the index note left out</small></p>"
        )
        rows = "".join(
            f'<tr><td><a href="concept:///{quote(p.b, safe="")}">{esc(p.b)}</a></td>'
            f'<td align="right">{p.count}</td><td align="right">{p.jaccard:.2f}</td>'
            f'<td align="right">{p.lift:.1f}</td></tr>'
            for p in partners
        )
        parts.append(
            '<table cellpadding="3"><tr><th align="left">concept</th><th>notes</th>'
            f"<th>Jaccard</th><th>lift</th></tr>{rows}</table>"
        )
    return ConceptPage("".join(parts), len(groups), mentioned, tuple(partners))


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
