"""Text output never lets a file name drive the terminal; JSON output passes through as it is."""

from __future__ import annotations

import json

import pytest

from cagr_core.safe_text import terminal_safe


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("src/\x1b[2Jx.ts", "src/\\x1b[2Jx.ts"),
        ("a\rb", "a\\rb".replace("\\r", "\\x0d")),
        ("csi\x9b31m", "csi\\x9b31m"),
        ("bidi\u202eevil", "bidi\\u202eevil"),
        ("bad\udcff.ts", "bad\\xff.ts"),
        ("del\x7f", "del\\x7f"),
    ],
)
def test_control_characters_and_undecodable_bytes_are_escaped(text: str, shown: str) -> None:
    assert terminal_safe(text) == shown


def test_printable_text_lines_and_tabs_are_kept() -> None:
    text = "café: src/schema.ts changed;\n\tInstead: run `make schema` — ok"
    assert terminal_safe(text) == text


def test_json_output_is_unchanged() -> None:
    data = json.dumps({"path": "src/\x1b[2J\udcff\r.ts", "é": 1}, indent=2, ensure_ascii=True)
    assert terminal_safe(data) == data
