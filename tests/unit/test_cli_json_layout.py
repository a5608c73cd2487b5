"""``--json`` output: indented two spaces, as ``json.dumps(indent=2)`` writes it, except that
a list or an object of more than ``ROWS_APART`` items has one item a line (a document of
90,000 indented rows took seconds in json's Python encoder). Either way it is the same data."""

from __future__ import annotations

import json

from librarian_gui.cli.common import ROWS_APART, json_text


def test_a_short_document_is_indented_as_json_indents_it() -> None:
    data = {"note": "a.md", "rows": [{"x": 1, "tags": ["é", "b"]}] * ROWS_APART, "n": None}
    assert json_text(data, ascii_only=False) == json.dumps(data, ensure_ascii=False, indent=2)
    assert json_text([1, 2], ascii_only=True) == "[\n  1,\n  2\n]"


def test_a_long_list_has_one_item_a_line() -> None:
    rows = [{"note": f"n{i}.md", "count": i, "tags": ["a"]} for i in range(ROWS_APART + 1)]
    text = json_text(rows, ascii_only=False)
    lines = text.split("\n")
    assert len(lines) == ROWS_APART + 3
    assert lines[0] == "["
    assert lines[1] == '  {"note": "n0.md", "count": 0, "tags": ["a"]},'
    assert lines[-2] == f'  {{"note": "n{ROWS_APART}.md", "count": {ROWS_APART}, "tags": ["a"]}}'
    assert lines[-1] == "]"
    assert json.loads(text) == rows


def test_a_documents_long_value_has_one_item_a_line_and_the_rest_is_indented() -> None:
    usage = {f"c{i}": {"linked": i} for i in range(ROWS_APART + 1)}
    data = {"dictionary": "concepts.json", "limits": {"lines": [1, 2]}, "usage": usage, "e": []}
    text = json_text(data, ascii_only=True)
    assert text.split("\n")[:12] == [
        "{",
        '  "dictionary": "concepts.json",',
        '  "limits": {',
        '    "lines": [',
        "      1,",
        "      2",
        "    ]",
        "  },",
        '  "usage": {',
        '    "c0": {"linked": 0},',
        '    "c1": {"linked": 1},',
        '    "c2": {"linked": 2},',
    ]
    assert text.endswith(f'    "c{ROWS_APART}": {{"linked": {ROWS_APART}}}\n  }},\n  "e": []\n}}')
    assert json.loads(text) == data


def test_a_name_that_is_not_utf8_keeps_its_escape_in_a_long_list() -> None:
    rows = [{"note": "caf\udce9.md"}] * (ROWS_APART + 1)
    text = json_text(rows, ascii_only=True)
    assert text.split("\n")[1] == '  {"note": "caf\\udce9.md"},'
    assert json.loads(text) == rows


def test_a_long_list_deeper_in_the_document_has_one_item_a_line() -> None:
    # librarian review: {"since", "days": [{"day", "notes": [...]}]}, every note of a day.
    notes = [{"note": f"n{i}.md", "diff": "-a\n+b"} for i in range(ROWS_APART + 1)]
    data = {"since": "2026-12-01", "days": [{"day": "2026-12-07", "notes": notes}]}
    text = json_text(data, ascii_only=False)
    assert text.split("\n")[:8] == [
        "{",
        '  "since": "2026-12-01",',
        '  "days": [',
        "    {",
        '      "day": "2026-12-07",',
        '      "notes": [',
        '        {"note": "n0.md", "diff": "-a\\n+b"},',
        '        {"note": "n1.md", "diff": "-a\\n+b"},',
    ]
    assert text.endswith(
        f'        {{"note": "n{ROWS_APART}.md", "diff": "-a\\n+b"}}\n      ]\n    }}\n  ]\n}}'
    )
    assert json.loads(text) == data


def test_keys_that_are_not_strings_are_written_as_json_writes_them() -> None:
    counts: dict[object, int] = {f"n{n}": n for n in range(ROWS_APART)}
    counts.update({None: -1, 7: -2, 1.5: -3})
    text = json_text({"counts": counts}, ascii_only=True)
    assert text.split("\n")[-6:] == [
        f'    "n{ROWS_APART - 1}": {ROWS_APART - 1},',
        '    "null": -1,',
        '    "7": -2,',
        '    "1.5": -3',
        "  }",
        "}",
    ]
    assert json.loads(text) == json.loads(json.dumps({"counts": counts}))
