"""Layout rules' name conventions, judged on a file's stem: its base name up to the first `.`
after the first character (`test_app.py` -> `test_app`, `.eslintrc.json` -> `.eslintrc`).

A convention is one of the names below or `regex:PATTERN` (the stem must match PATTERN whole).
cagr_config checks the pattern; `name_regex` gives each the regular expression the core matches.
"""

from __future__ import annotations

import posixpath
import re

CONVENTIONS = {
    "snake_case": r"[a-z0-9]+(?:_[a-z0-9]+)*",
    "kebab-case": r"[a-z0-9]+(?:-[a-z0-9]+)*",
    "camelCase": r"[a-z][a-z0-9]*(?:[A-Z0-9][a-z0-9]*)*",
    "PascalCase": r"(?:[A-Z][a-z0-9]*)+",
    "SCREAMING_SNAKE_CASE": r"[A-Z0-9]+(?:_[A-Z0-9]+)*",
}
REGEX_PREFIX = "regex:"
_compiled: dict[str, re.Pattern[str]] = {}


def stem(path: str) -> str:
    """The base name up to its first `.` after the first character."""
    name = posixpath.basename(path)
    dot = name.find(".", 1)
    return name if dot == -1 else name[:dot]


def name_regex(convention: str) -> str:
    """The regular expression (matched whole) a stem must match; KeyError for no convention."""
    if convention.startswith(REGEX_PREFIX):
        return convention[len(REGEX_PREFIX) :]
    return CONVENTIONS[convention]


def follows(regex: str, path: str) -> bool:
    """Whether the path's stem matches the convention's expression whole."""
    pattern = _compiled.get(regex)
    if pattern is None:
        pattern = _compiled[regex] = re.compile(regex)
    return pattern.fullmatch(stem(path)) is not None
