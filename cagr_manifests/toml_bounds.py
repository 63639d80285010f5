"""A bound checked before TOML is parsed: how many dotted parts one key or table header has.

tomllib's time grows with the square of the parts of one table header (`[a.a.a...]`) and faster
still for a dotted key (`a.a.a... = 1`): a 200 KB pyproject.toml of one header took over a
minute, a 64 KB dotted key 50 s, so a pull request could stall its own CI job. Real files use a
handful of parts; cagr reads at most MAX_KEY_PARTS. The scan skips strings and comments, and
counts the dots between two of `=`, `,`, brackets, braces and line ends: a dotted key's or a
header's parts less one, and at most one for a value (a float, a time).
"""

from __future__ import annotations

import re

MAX_KEY_PARTS = 128
# Every string form ends at its closing quotes or, unterminated, at its line's end (the file's,
# for multi-line ones): each alternative that starts matches at once, so the scan is linear.
_TOKENS = re.compile(
    r'"""(?:[^"\\]|\\[\s\S]|"(?!""))*(?:"""|\\?\Z)'  # multi-line basic string
    r"|'''[\s\S]*?(?:'''|\Z)"  # multi-line literal string
    r'|"(?:[^"\\\n]|\\.)*(?:"|\\?(?=\n|\Z))'  # basic string
    r"|'[^'\n]*'?"  # literal string
    r"|#[^\n]*"  # comment
    r"|([.=,\[\]{}\n])"
)


def too_many_parts(text: str) -> int | None:
    """The line of the first key or table header with more than MAX_KEY_PARTS dotted parts
    (None: there is none)."""
    dots, line = 0, 1
    for token in _TOKENS.finditer(text):
        mark = token.group(1)
        if mark is None:
            line += token.group(0).count("\n")
        elif mark == ".":
            dots += 1
            if dots >= MAX_KEY_PARTS:
                return line
        else:
            dots = 0
            line += mark == "\n"
    return None


def parts_problem(text: str) -> str | None:
    """What to say of a TOML text whose keys have too many parts to read (None: none has)."""
    line = too_many_parts(text)
    if line is None:
        return None
    return (
        f"has a key or table header with more than {MAX_KEY_PARTS} dotted parts (line {line}),"
        " more than cagr reads: TOML parsers take time that grows with their square. Use fewer"
        " parts"
    )
