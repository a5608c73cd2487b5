"""Contradiction candidates (issue 32 item 4), measured on copies of vaults nobody here wrote.

Run: ``python tests/benchmarks/bench_contradictions.py [--vaults DIR] [--pairs 36]`` (about
two seconds). Asserts nothing; prints tables.
No target yet: it reports what is found and what is missed, with examples.

Into the notes of ``foam-docs`` and ``logseq-docs`` (in memory; the vaults are only read) it
injects, with a fixed seed, statements about made-up concepts ("the Kestrel gateway"): names
whose words (and the names themselves) the vault never writes, each concept used by one
injection only. Every statement is a new paragraph after a blank line at the end of a note
(written as a bullet, "- …", in ``logseq-docs``), in two different notes of different dates:
the older statement in the older note. A note is dated as the index dates it (front matter,
else a date in its path, like Logseq's journals), else 2023-01-01 plus a random offset.

- **conflicts**: ``--pairs`` per kind — numbers, dates, choices, negations — two statements
  giving different values for the same thing, written the ways a person or an agent writes
  them, several phrasings per kind taken in turn: some the detector is built for ("the
  timeout is 30 seconds" against "… 45 seconds"), some it is not ("the limit was raised to
  60", "we moved the X from Redis to NATS", "goes live on March 3, 2024", "it is no longer
  true that …", "we won't use …", "enabled" against "disabled");
- **controls**, ``--pairs // 4`` per kind and type, none a contradiction: the same value in
  the same words; the same value in other words; the same value beside another value for a
  related thing in the same paragraph ("… and its connect timeout is 5 seconds"); different
  values about two different concepts; another concept's value in a paragraph that mentions
  this one in passing; another attribute of the same concept under the same word ("clients
  of the X use a timeout of 60 seconds").

``find_contradictions`` is then run over all the notes with the made-up concepts as the
dictionary. **Recall**: the share of injected conflicts found — a candidate about that
concept whose two sides are the two notes, their line ranges overlapping the injected
paragraphs (of any kind: a date written "March 3" against "March 17" found as a number
counts). **Precision**: of the candidates about the made-up concepts, the share that are
injected conflicts; every candidate on a control is a false one. Also: the untouched vault
with the same concepts (it should give none), and the untouched vault with a dictionary of
its own note titles (the noise on real text: nothing injected, nothing scored, examples
shown).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from librarian_gui.core.concepts.dictionary import Concept, fold  # noqa: E402
from librarian_gui.core.parse.parser import mask_note, parse_date_text, parse_note  # noqa: E402
from librarian_gui.core.review.contradictions import Candidate, find_contradictions  # noqa: E402

T = TypeVar("T")
VAULTS = REPO.parent / "shared" / "vaults"
KINDS = ("number", "date", "choice", "negation")
BASE_DATE = _dt.date(2023, 1, 1)  # notes dated neither in front matter nor by name
SPREAD_DAYS = 700
PREFIXES = [
    "Kestrel",
    "Ortolan",
    "Bramble",
    "Quillon",
    "Saffron",
    "Tamarind",
    "Halyard",
    "Marlin",
    "Juniper",
    "Corvid",
    "Peregrine",
    "Sorrel",
    "Fennel",
    "Larkspur",
    "Osprey",
    "Alder",
    "Rowan",
    "Thistle",
    "Yarrow",
    "Basalt",
    "Cobalt",
    "Garnet",
    "Onyx",
    "Jasper",
    "Mistral",
    "Sirocco",
    "Zephyr",
    "Monsoon",
    "Halcyon",
    "Anvil",
    "Bellows",
    "Cormorant",
    "Gannet",
    "Plover",
    "Sandpiper",
    "Tern",
    "Puffin",
    "Bittern",
    "Curlew",
    "Dunlin",
    "Lapwing",
    "Merganser",
    "Nuthatch",
    "Siskin",
    "Whimbrel",
]
NOUNS = (
    "gateway",
    "cache",
    "scheduler",
    "indexer",
    "exporter",
    "queue",
    "proxy",
    "crawler",
    "sync service",
    "ingest worker",
    "build farm",
    "feature store",
    "search cluster",
    "metrics pipeline",
    "notifier",
    "uploader",
    "renderer",
    "resolver",
    "ledger",
    "mailer",
)
STORES = [
    "Postgres",
    "MySQL",
    "SQLite",
    "DuckDB",
    "MongoDB",
    "Redis",
    "Memcached",
    "Cassandra",
    "ClickHouse",
    "Elasticsearch",
    "Kafka",
    "RabbitMQ",
    "NATS",
]
NUMBER_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine"]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
# (states it, "not", "n't", "no longer", the opposite in other words)
CLAIMS = (
    (
        "is shared between all workers",
        "is not shared between all workers",
        "isn't shared between all workers",
        "is no longer shared between all workers",
        "is private to each worker",
    ),
    (
        "requires a VPN connection",
        "does not require a VPN connection",
        "doesn't require a VPN connection",
        "no longer requires a VPN connection",
        "is reachable from the public internet",
    ),
    (
        "caches responses on disk",
        "does not cache responses on disk",
        "doesn't cache responses on disk",
        "no longer caches responses on disk",
        "keeps responses in memory only",
    ),
    (
        "retries failed uploads automatically",
        "does not retry failed uploads automatically",
        "doesn't retry failed uploads automatically",
        "no longer retries failed uploads automatically",
        "leaves failed uploads to the operator",
    ),
    (
        "is exposed to the public internet",
        "is not exposed to the public internet",
        "isn't exposed to the public internet",
        "is no longer exposed to the public internet",
        "is reachable from the office network only",
    ),
    (
        "is enabled by default",
        "is not enabled by default",
        "isn't enabled by default",
        "is no longer enabled by default",
        "is disabled by default",
    ),
    (
        "writes an audit log for every change",
        "does not write an audit log for every change",
        "doesn't write an audit log for every change",
        "no longer writes an audit log for every change",
        "skips the audit log for routine changes",
    ),
)
PURPOSES = ("nightly backups", "the release builds", "staging deploys", "customer exports")
CONTROLS = (
    "same value, same words",
    "same value, other words",
    "same value, another value beside it",
    "different values, different concepts",
    "another concept's value, this one in passing",
    "another attribute, same word",
)

# (rng, alias, other alias) -> (older statement, newer statement)
Make = Callable[[random.Random, str, str], tuple[str, str]]


@dataclass(frozen=True)
class Template:
    kind: str
    name: str  # the phrasing, or the control type
    make: Make


@dataclass(frozen=True)
class Injection:
    group: str  # "conflict" or a control type
    template: Template
    concepts: tuple[str, ...]  # ids: the first is the one the statements are about
    older: tuple[str, int, int]  # note, first line, last line
    newer: tuple[str, int, int]
    texts: tuple[str, str]  # older, newer


def _two(rng: random.Random, values: Sequence[int]) -> tuple[int, int]:
    x, y = rng.sample(list(values), 2)
    return x, y


def _days(rng: random.Random) -> tuple[_dt.date, _dt.date]:
    x, y = _two(rng, range(0, 365))
    start = _dt.date(2024, 1, 1)
    return start + _dt.timedelta(days=x), start + _dt.timedelta(days=y)


def _written(day: _dt.date) -> str:
    return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"


def _written_eu(day: _dt.date) -> str:
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def _stores(rng: random.Random) -> tuple[str, str]:
    x, y = rng.sample(STORES, 2)
    return x, y


def _claim(rng: random.Random) -> tuple[str, str, str, str, str]:
    return rng.choice(CLAIMS)


def _number_conflicts() -> list[Template]:
    def timeout(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _two(r, range(10, 125, 5))
        return f"The {a} timeout is {x} seconds.", f"The {a} timeout is {y} seconds."

    def limits(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _two(r, range(50, 1050, 50))
        return (
            f"Limits for the {a}: max connections = {x}.",
            f"Limits for the {a}: max connections = {y}.",
        )

    def retries(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _two(r, range(2, 10))
        return (
            f"The {a} retries {x} times before it gives up.",
            f"The {a} retries {y} times before it gives up.",
        )

    def percent(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _two(r, range(5, 100, 5))
        return f"The {a} sampling rate is {x}%.", f"The {a} sampling rate is {y}%."

    def workers(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _two(r, range(2, 33))
        return f"We run the {a} with {x} workers.", f"We run the {a} with {y} workers."

    def raised(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = sorted(_two(r, range(20, 200, 10)))
        return (
            f"The {a} rate limit is {x} requests per minute.",
            f"The {a} rate limit was raised to {y} requests per minute.",
        )

    def days(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _two(r, (7, 14, 30, 60, 90))
        return f"The {a} keeps {x} days of logs.", f"The {a} now keeps its logs for {y} days."

    def units(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = r.choice((256, 512, 768)), r.choice((1, 2, 4))
        return f"The {a} needs {x} MB of memory.", f"The {a} needs {y} GB of memory."

    def spelled(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = r.sample(NUMBER_WORDS, 2)
        return f"The {a} runs {x} replicas.", f"The {a} runs {y} replicas."

    return [
        Template("number", "the timeout is 30 seconds", timeout),
        Template("number", "max connections = 200", limits),
        Template("number", "retries 3 times", retries),
        Template("number", "the sampling rate is 20%", percent),
        Template("number", "we run it with 8 workers", workers),
        Template("number", "the limit was raised to 60 requests", raised),
        Template("number", "keeps 14 days of logs / logs for 30 days", days),
        Template("number", "needs 512 MB / needs 2 GB", units),
        Template("number", "runs three replicas (a number in words)", spelled),
    ]


def _date_conflicts() -> list[Template]:
    def release(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _days(r)
        return f"The {a} release date is {x}.", f"The {a} release date is {y}."

    def deadline(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _days(r)
        return f"Deadline for the {a}: {x}.", f"Deadline for the {a}: {y}."

    def retired(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _days(r)
        return f"The {a} must be retired by {x}.", f"The {a} must be retired by {y}."

    def planned(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _days(r)
        return f"The {a} release is planned for {x}.", f"The {a} release is planned for {y}."

    def moved(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _days(r)
        return f"The {a} migration is scheduled on {x}.", f"The {a} migration was moved to {y}."

    def written(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _days(r)
        return f"The {a} goes live on {_written(x)}.", f"The {a} goes live on {_written(y)}."

    def european(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _days(r)
        return (
            f"The certificate of the {a} expires on {_written_eu(x)}.",
            f"The certificate of the {a} expires on {_written_eu(y)}.",
        )

    return [
        Template("date", "the release date is 2024-03-01", release),
        Template("date", "deadline for the X: 2024-03-01", deadline),
        Template("date", "must be retired by 2024-03-01", retired),
        Template("date", "the release is planned for 2024-03-01", planned),
        Template("date", "scheduled on 2024-03-01 / was moved to 2024-04-15", moved),
        Template("date", "goes live on March 3, 2024", written),
        Template("date", "expires on 3 March 2024", european),
    ]


def _choice_conflicts() -> list[Template]:
    def chose(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _stores(r)
        return f"For the {a} we chose {x}.", f"For the {a} we chose {y}."

    def went(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _stores(r)
        return f"We went with {x} for the {a}.", f"We went with {y} for the {a}."

    def decided(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _stores(r)
        return (
            f"After the review we decided to use {x} for the {a}.",
            f"After the review we decided to use {y} for the {a}.",
        )

    def migrated(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _stores(r)
        return f"The {a} was migrated to {x}.", f"The {a} was migrated to {y}."

    def uses(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _stores(r)
        return f"The {a} uses {x} as its store.", f"The {a} uses {y} as its store."

    def moved(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _stores(r)
        return f"The {a} keeps its data in {x}.", f"We moved the {a} from {x} to {y}."

    def switched(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _stores(r)
        return f"We picked {x} for the {a}.", f"We switched the {a} over to {y}."

    def replaced(r: random.Random, a: str, b: str) -> tuple[str, str]:
        x, y = _stores(r)
        return f"The {a} runs on {x}.", f"{y} replaced {x} in the {a}."

    return [
        Template("choice", "we chose Redis", chose),
        Template("choice", "we went with Redis", went),
        Template("choice", "we decided to use Redis", decided),
        Template("choice", "it was migrated to Redis", migrated),
        Template("choice", "it uses Redis as its store", uses),
        Template("choice", "we moved it from Redis to NATS", moved),
        Template("choice", "picked Redis / switched it over to NATS", switched),
        Template("choice", "runs on Redis / NATS replaced Redis", replaced),
    ]


def _negation_conflicts() -> list[Template]:
    def plain(r: random.Random, a: str, b: str) -> tuple[str, str]:
        c = _claim(r)
        return f"The {a} {c[0]}.", f"The {a} {c[1]}."

    def contracted(r: random.Random, a: str, b: str) -> tuple[str, str]:
        c = _claim(r)
        return f"The {a} {c[0]}.", f"The {a} {c[2]}."

    def longer(r: random.Random, a: str, b: str) -> tuple[str, str]:
        c = _claim(r)
        return f"The {a} {c[0]}.", f"The {a} {c[3]}."

    def untrue(r: random.Random, a: str, b: str) -> tuple[str, str]:
        c = _claim(r)
        return f"The {a} {c[0]}.", f"It is no longer true that the {a} {c[0]}."

    def wont(r: random.Random, a: str, b: str) -> tuple[str, str]:
        p = r.choice(PURPOSES)
        return f"We use the {a} for {p}.", f"We won't use the {a} for {p} anymore."

    def opposite(r: random.Random, a: str, b: str) -> tuple[str, str]:
        c = _claim(r)
        return f"The {a} {c[0]}.", f"The {a} {c[4]}."

    def back(r: random.Random, a: str, b: str) -> tuple[str, str]:
        c = _claim(r)
        return f"The {a} {c[1]}.", f"Turns out the {a} {c[0]} after all."

    return [
        Template("negation", "is shared / is not shared", plain),
        Template("negation", "requires / doesn't require", contracted),
        Template("negation", "requires / no longer requires", longer),
        Template("negation", "it is no longer true that …", untrue),
        Template("negation", "we use it for X / we won't use it for X", wont),
        Template("negation", "enabled / disabled (no negation word)", opposite),
        Template("negation", "is not shared / turns out it is shared after all", back),
    ]


def _controls(kind: str) -> list[Template]:
    """The six control types (``CONTROLS``) for one kind: none a contradiction."""
    makes: list[Make]
    if kind == "number":

        def n_same(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x = r.randrange(10, 125, 5)
            return f"The {a} timeout is {x} seconds.", f"The {a} timeout is {x} seconds."

        def n_words(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x = r.randrange(10, 125, 5)
            return f"The {a} timeout is {x} seconds.", f"We set the {a} timeout to {x} seconds."

        def n_beside(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, z = _two(r, range(10, 125, 5))
            return (
                f"The {a} timeout is {x} seconds.",
                f"The {a} timeout is {x} seconds, and its connect timeout is {z} seconds.",
            )

        def n_other(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, y = _two(r, range(10, 125, 5))
            return f"The {a} timeout is {x} seconds.", f"The {b} timeout is {y} seconds."

        def n_passing(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, y = _two(r, range(10, 125, 5))
            return (
                f"The {a} timeout is {x} seconds.",
                f"The {a} forwards its requests to the {b}. The {b} timeout is {y} seconds.",
            )

        def n_attribute(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, y = _two(r, range(10, 125, 5))
            return (
                f"The {a} timeout is {x} seconds.",
                f"Clients of the {a} use a timeout of {y} seconds.",
            )

        makes = [n_same, n_words, n_beside, n_other, n_passing, n_attribute]
    elif kind == "date":

        def d_same(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, _ = _days(r)
            return f"The {a} release date is {x}.", f"The {a} release date is {x}."

        def d_words(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, _ = _days(r)
            return f"The {a} release date is {x}.", f"The {a} ships on {x}, as planned."

        def d_beside(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, z = _days(r)
            return (
                f"The {a} release date is {x}.",
                f"The {a} release date is {x}; the beta date is {z}.",
            )

        def d_other(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, y = _days(r)
            return f"The {a} release date is {x}.", f"The {b} release date is {y}."

        def d_passing(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, y = _days(r)
            return (
                f"The {a} release date is {x}.",
                f"The {a} depends on the {b}. The {b} release date is {y}.",
            )

        def d_attribute(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, y = _days(r)
            return (
                f"The {a} release date is {x}.",
                f"The {a} client library has its own release date: {y}.",
            )

        makes = [d_same, d_words, d_beside, d_other, d_passing, d_attribute]
    elif kind == "choice":

        def c_same(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, _ = _stores(r)
            return f"For the {a} we chose {x}.", f"For the {a} we chose {x}."

        def c_words(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, _ = _stores(r)
            return f"For the {a} we chose {x}.", f"We went with {x} for the {a}."

        def c_beside(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, y = _stores(r)
            return (
                f"For the {a} we chose {x}.",
                f"We chose {x} for the {a}; the prototype had picked {y}, which did not scale.",
            )

        def c_other(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, y = _stores(r)
            return f"For the {a} we chose {x}.", f"For the {b} we chose {y}."

        def c_passing(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, y = _stores(r)
            return (
                f"For the {a} we chose {x}.",
                f"The {a} reads from the {b}. For the {b} we chose {y}.",
            )

        def c_attribute(r: random.Random, a: str, b: str) -> tuple[str, str]:
            x, y = _stores(r)
            return f"For the {a} we chose {x}.", f"To monitor the {a} we picked {y}."

        makes = [c_same, c_words, c_beside, c_other, c_passing, c_attribute]
    else:

        def g_same(r: random.Random, a: str, b: str) -> tuple[str, str]:
            c = _claim(r)
            return f"The {a} {c[0]}.", f"The {a} {c[0]}."

        def g_words(r: random.Random, a: str, b: str) -> tuple[str, str]:
            c = _claim(r)
            return f"The {a} {c[0]}.", f"Checked again today, and the {a} {c[0]}."

        def g_beside(r: random.Random, a: str, b: str) -> tuple[str, str]:
            c = _claim(r)
            return f"The {a} {c[0]}.", f"The {a} {c[0]}, without exception."

        def g_other(r: random.Random, a: str, b: str) -> tuple[str, str]:
            c = _claim(r)
            return f"The {a} {c[0]}.", f"The {b} {c[1]}."

        def g_passing(r: random.Random, a: str, b: str) -> tuple[str, str]:
            c = _claim(r)
            return f"The {a} {c[0]}.", f"The {a} hands its jobs to the {b}. The {b} {c[1]}."

        def g_attribute(r: random.Random, a: str, b: str) -> tuple[str, str]:
            c, d = r.sample(CLAIMS, 2)
            return f"The {a} {c[0]}.", f"The {a} {d[1]}."

        makes = [g_same, g_words, g_beside, g_other, g_passing, g_attribute]
    return [Template(kind, name, make) for name, make in zip(CONTROLS, makes, strict=True)]


CONFLICTS = {
    "number": _number_conflicts(),
    "date": _date_conflicts(),
    "choice": _choice_conflicts(),
    "negation": _negation_conflicts(),
}


def _slug(alias: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", alias.lower()).strip("-")


def made_up_names(notes: dict[str, str], rng: random.Random) -> list[str]:
    """Every prefix × noun whose prefix the vault never writes (as a word) and whose whole
    name it never writes, shuffled."""
    folded = fold("\n".join(notes.values()))
    words = set(re.findall(r"[a-z0-9]+", folded))
    names = [
        f"{prefix} {noun}"
        for prefix in PREFIXES
        if prefix.lower() not in words
        for noun in NOUNS
        if fold(f"{prefix} {noun}") not in folded
    ]
    rng.shuffle(names)
    return names


def note_dates(notes: dict[str, str], rng: random.Random) -> dict[str, str]:
    """Each note's ISO date as the index dates it (front matter, else a date in its path),
    else a fixed date plus a random offset (the copies have no meaningful mtime)."""
    out = {}
    for rel in sorted(notes):
        day = parse_note(notes[rel]).front_matter_date or parse_date_text(rel)
        if day is None:
            day = BASE_DATE + _dt.timedelta(days=rng.randrange(SPREAD_DAYS))
        out[rel] = day.isoformat()
    return out


def appendable(notes: dict[str, str]) -> list[str]:
    """Notes where a paragraph added at the end is read as text (not inside an unclosed
    code block or comment)."""
    probe = "Probe paragraph for the benchmark."
    return [
        rel
        for rel, text in sorted(notes.items())
        if mask_note(f"{text.rstrip()}\n\n{probe}\n").rstrip().endswith(probe)
    ]


def _append(notes: dict[str, str], rel: str, statement: str, bullet: bool) -> tuple[int, int]:
    text = notes[rel].rstrip()
    paragraph = f"- {statement}" if bullet else statement
    first = text.count("\n") + 3 if text else 1  # after a blank line
    notes[rel] = f"{text}\n\n{paragraph}\n" if text else f"{paragraph}\n"
    return first, first + paragraph.count("\n")


def inject(
    notes: dict[str, str], dates: dict[str, str], pairs: int, seed: int, bullet: bool
) -> tuple[dict[str, str], list[Injection], list[Concept]]:
    """The notes with the injections, the injections, and the made-up concepts."""
    rng = random.Random(seed)
    names = made_up_names(notes, rng)
    rels = appendable(notes)
    out = dict(notes)
    plan: list[tuple[str, Template, int]] = []  # (group, template, how many aliases)
    for kind in KINDS:
        templates = CONFLICTS[kind]
        plan += [("conflict", templates[i % len(templates)], 1) for i in range(pairs)]
        for control in _controls(kind):
            two = control.name in CONTROLS[3:5]
            plan += [(control.name, control, 2 if two else 1)] * (pairs // 4)
    needed = sum(n for _, _, n in plan)
    if needed > len(names):
        raise SystemExit(f"{needed} made-up names needed, {len(names)} available")
    concepts: list[Concept] = []
    injected: list[Injection] = []
    for group, template, count in plan:
        aliases = [names.pop() for _ in range(count)]
        ids = tuple(_slug(alias) for alias in aliases)
        concepts += [
            Concept(cid, (alias,), "made-up") for cid, alias in zip(ids, aliases, strict=True)
        ]
        while True:
            one, other = rng.sample(rels, 2)
            if dates[one] != dates[other]:
                break
        old, new = sorted((one, other), key=lambda rel: dates[rel])
        texts = template.make(rng, aliases[0], aliases[-1])
        older = (old, *_append(out, old, texts[0], bullet))
        newer = (new, *_append(out, new, texts[1], bullet))
        injected.append(Injection(group, template, ids, older, newer, texts))
    return out, injected, concepts


def _overlap(side: tuple[str, int, int], note: str, first: int, last: int) -> bool:
    return side[0] == note and side[1] <= last and first <= side[2]


def _matches(candidate: Candidate, inj: Injection) -> bool:
    """The candidate is about the injection's concept, between its two paragraphs."""
    if candidate.concept != inj.concepts[0]:
        return False
    n, o = candidate.newer, candidate.older
    straight = _overlap(inj.newer, n.note, n.first, n.last) and _overlap(
        inj.older, o.note, o.first, o.last
    )
    crossed = _overlap(inj.older, n.note, n.first, n.last) and _overlap(
        inj.newer, o.note, o.first, o.last
    )
    return straight or crossed


@dataclass
class Score:
    found: dict[int, list[Candidate]]  # injection index -> the candidates that find it
    false: list[tuple[Candidate, Injection | None]]  # a candidate on a control (or elsewhere)
    right: int
    reported: int


def score(candidates: list[Candidate], injected: list[Injection], made_up: set[str]) -> Score:
    by_concept: dict[str, list[int]] = defaultdict(list)
    for i, inj in enumerate(injected):
        for cid in inj.concepts:
            by_concept[cid].append(i)
    found: dict[int, list[Candidate]] = defaultdict(list)
    false: list[tuple[Candidate, Injection | None]] = []
    right = reported = 0
    for c in candidates:
        if c.concept not in made_up:
            continue
        reported += 1
        hits = [i for i in by_concept[c.concept] if _matches(c, injected[i])]
        conflict = [i for i in hits if injected[i].group == "conflict"]
        if conflict:
            right += 1
            found[conflict[0]].append(c)
        else:
            owner = by_concept[c.concept]
            false.append((c, injected[owner[0]] if owner else None))
    return Score(found, false, right, reported)


def title_concepts(notes: dict[str, str]) -> tuple[list[Concept], dict[str, str]]:
    """A dictionary a vault's owner might keep: each note's title (the last part of a
    Logseq namespace) a concept, four characters or more, not a date."""
    concepts: list[Concept] = []
    pages: dict[str, str] = {}
    seen: set[str] = set()
    for rel in sorted(notes):
        title = Path(rel).stem.split("___")[-1].strip()
        if len(title) < 4 or parse_date_text(title) or set("[]|#^").intersection(title):
            continue
        if fold(title) in seen:
            continue
        seen.add(fold(title))
        concepts.append(Concept(title, (title,), "title"))
        pages[title] = rel
    return concepts, pages


def _short(text: str, limit: int = 160) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _spread(rng: random.Random, items: list[T], label: Callable[[T], str], count: int) -> list[T]:
    """Up to ``count`` items drawn at random, of different labels while there are some."""
    shuffled = rng.sample(items, len(items))
    out: list[T] = []
    for item in shuffled:
        if len(out) < count and label(item) not in {label(o) for o in out}:
            out.append(item)
    return out + [item for item in shuffled if item not in out][: count - len(out)]


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f} ({a}/{b})" if b else "–"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--vaults", type=Path, default=VAULTS)
    parser.add_argument("--pairs", type=int, default=36, help="conflicts per kind and vault")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--examples", type=int, default=3, help="misses and false ones shown")
    args = parser.parse_args()
    runs = []
    noise_rows = []
    for name in ("foam-docs", "logseq-docs"):
        folder = args.vaults / name
        notes = {
            p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(folder.rglob("*.md"))
        }
        dates = note_dates(notes, random.Random(args.seed))
        bullet = name == "logseq-docs"
        changed, injected, concepts = inject(notes, dates, args.pairs, args.seed, bullet)
        made_up = {c.id for c in concepts}
        untouched = find_contradictions(
            [(rel, notes[rel], dates[rel]) for rel in sorted(notes)], concepts
        )
        start = time.perf_counter()
        found = find_contradictions(
            [(rel, changed[rel], dates[rel]) for rel in sorted(changed)], concepts
        )
        seconds = time.perf_counter() - start
        s = score(found, injected, made_up)
        runs.append((name, len(notes), injected, concepts, s, len(untouched), seconds))
        titles, pages = title_concepts(notes)
        start = time.perf_counter()
        noise = find_contradictions(
            [(rel, notes[rel], dates[rel]) for rel in sorted(notes)], titles, pages
        )
        noise_rows.append((name, len(titles), noise, time.perf_counter() - start))

    print("## Per vault\n")
    print(
        "| vault | notes | made-up concepts | conflicts injected | controls injected | "
        "candidates (on made-up concepts) | right | false | precision | recall | "
        "untouched vault, same concepts | time |"
    )
    print("|---|" + "---:|" * 11)
    all_found: dict[tuple[str, int], list[Candidate]] = {}
    all_injected: list[tuple[str, int, Injection]] = []
    all_false: list[tuple[str, Candidate, Injection | None]] = []
    for row in runs:
        name, count, injected, concepts, s, before, seconds = row
        conflicts = sum(inj.group == "conflict" for inj in injected)
        print(
            f"| {name} | {count} | {len(concepts)} | {conflicts} | {len(injected) - conflicts} | "
            f"{s.reported} | {s.right} | {len(s.false)} | {_ratio(s.right, s.reported)} | "
            f"{_ratio(len(s.found), conflicts)} | {before} | {seconds:.2f} s |"
        )
        all_injected += [(name, i, inj) for i, inj in enumerate(injected)]
        all_found.update({(name, i): cs for i, cs in s.found.items()})
        all_false += [(name, c, inj) for c, inj in s.false]
    conflicts_all = [(n, i, inj) for n, i, inj in all_injected if inj.group == "conflict"]

    print("\n## Recall per kind\n")
    names = [row[0] for row in runs]
    print(
        f"| kind | {' | '.join(names)} | both | found as (kind of the candidate) "
        "| precision of the candidates of this kind |"
    )
    print("|---|" + "---:|" * (len(names) + 1) + "---|---:|")
    right_kinds = Counter(c.kind for cs in all_found.values() for c in cs)
    false_kinds = Counter(c.kind for _, c, _ in all_false)
    for kind in KINDS:
        cells = []
        for vault in [*names, None]:
            pool = [
                (n, i)
                for n, i, inj in conflicts_all
                if inj.template.kind == kind and vault in (None, n)
            ]
            cells.append(_ratio(sum(key in all_found for key in pool), len(pool)))
        kinds = Counter(
            c.kind
            for n, i, inj in conflicts_all
            if inj.template.kind == kind
            for c in all_found.get((n, i), [])[:1]
        )
        shown = ", ".join(f"{k} {v}" for k, v in kinds.most_common()) or "–"
        share = _ratio(right_kinds[kind], right_kinds[kind] + false_kinds[kind])
        print(f"| {kind} | {' | '.join(cells)} | {shown} | {share} |")

    print("\n## Recall per phrasing (both vaults)\n")
    print("| kind | phrasing | recall | found as |")
    print("|---|---|---:|---|")
    for kind in KINDS:
        for template in CONFLICTS[kind]:
            pool = [(n, i) for n, i, inj in conflicts_all if inj.template is template]
            hits = [key for key in pool if key in all_found]
            kinds = Counter(all_found[key][0].kind for key in hits)
            shown = ", ".join(f"{k} {v}" for k, v in kinds.most_common()) or "–"
            print(f"| {kind} | {template.name} | {_ratio(len(hits), len(pool))} | {shown} |")

    order = [
        all_found[(n, i)][0].newer.note == inj.newer[0]
        for n, i, inj in conflicts_all
        if (n, i) in all_found
    ]
    extra = sum(len(cs) - 1 for cs in all_found.values())
    print(
        f"\nfound conflicts with the newer side right: {_ratio(sum(order), len(order))}; "
        f"extra candidates on a found conflict (a second kind for the same pair): {extra}"
    )

    print("\n## Controls that gave a candidate (false ones), both vaults\n")
    print(f"| control | {' | '.join(KINDS)} |")
    print("|---|" + "---:|" * len(KINDS))
    wrong_keys = {(n, id(inj)) for n, _, inj in all_false if inj is not None}
    false_count = Counter(
        (inj.group, inj.template.kind) for n, _, inj in all_false if inj is not None
    )
    for control in CONTROLS:
        cells = []
        for kind in KINDS:
            controls = [
                (n, inj)
                for n, _, inj in all_injected
                if inj.group == control and inj.template.kind == kind
            ]
            hit = sum((n, id(inj)) in wrong_keys for n, inj in controls)
            cells.append(f"{hit}/{len(controls)} ({false_count[(control, kind)]} candidates)")
        print(f"| {control} | {' | '.join(cells)} |")
    stray = sum(inj is None for _, _, inj in all_false)
    if stray:
        print(f"\ncandidates on a made-up concept outside its injections: {stray}")

    print("\n## Baseline noise: the untouched vault, its note titles as the dictionary\n")
    print("| vault | concepts | candidates | by kind | most on one concept | time |")
    print("|---|---:|---:|---|---|---:|")
    for name, count, noise, seconds in noise_rows:
        kinds = Counter(c.kind for c in noise)
        shown = ", ".join(f"{k} {v}" for k, v in kinds.most_common()) or "–"
        top = ", ".join(f"{k!r} {v}" for k, v in Counter(c.concept for c in noise).most_common(3))
        print(f"| {name} | {count} | {len(noise)} | {shown} | {top or '–'} | {seconds:.2f} s |")
    print("\nNothing was injected: these are what real text gives (examples, one per kind):")
    for name, _, noise, _ in noise_rows:
        for kind in KINDS:
            for c in [c for c in noise if c.kind == kind][:1]:
                print(
                    f"- {name}, {c.kind} about {c.concept!r} ({c.about!r}): "
                    f"{c.newer.note}:{c.newer.first} says {_short(c.newer.said, 80)!r} | "
                    f"{c.older.note}:{c.older.first} says {_short(c.older.said, 80)!r}"
                )

    rng = random.Random(args.seed)
    print("\n## Examples of misses\n")
    for kind in KINDS:
        missed = [
            (n, inj)
            for n, i, inj in conflicts_all
            if inj.template.kind == kind and (n, i) not in all_found
        ]
        print(f"{kind}: {len(missed)} missed")
        for n, inj in _spread(rng, missed, lambda m: m[1].template.name, args.examples):
            print(f"- [{inj.template.name}] {n}")
            print(f"  older {inj.older[0]}:{inj.older[1]}: {inj.texts[0]}")
            print(f"  newer {inj.newer[0]}:{inj.newer[1]}: {inj.texts[1]}")

    print("\n## Examples of false candidates\n")
    for kind in KINDS:
        wrong = [(n, c, inj) for n, c, inj in all_false if c.kind == kind]
        print(f"{kind}: {len(wrong)} false")
        for n, c, owner in _spread(rng, wrong, lambda w: w[2].group if w[2] else "", args.examples):
            control = owner.group if owner is not None else "outside the injections"
            print(f"- [{control}] {n}: {c.concept} {c.kind} on {c.about!r}")
            for label, side in (("newer", c.newer), ("older", c.older)):
                print(
                    f"  {label} {side.note}:{side.first} says {side.said!r}: {_short(side.passage)}"
                )


if __name__ == "__main__":
    main()
