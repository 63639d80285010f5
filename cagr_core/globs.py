"""Path globs, on wcmatch.

- Paths are repo-relative with `/`, no leading slash; matching is case-sensitive.
- A leading `/` anchors a pattern at the config root: `/package.json` is the root manifest only.
- A pattern without a slash matches basenames anywhere: `package.json` matches workspaces too.
- Other patterns are relative to the root. `**` spans folders, braces give alternatives,
  `*` matches dotfiles. There is no negation: use a rule's `ignores`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from attrs import frozen
from wcmatch import glob

from .errors import PatternError

_COMMON = glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB | glob.FORCEUNIX | glob.CASE
_ANCHORED = _COMMON
_FREE = _COMMON | glob.MATCHBASE
GLOB_CHARS = frozenset("*?[]{}\\")
_ESCAPED = re.compile(r"\\.", re.DOTALL)


def check_pattern(pattern: str) -> None:
    """Raise PatternError, pointing at the bad part, for a pattern that would silently misbehave."""
    if not pattern.strip():
        raise PatternError(
            pattern, 0, len(pattern), "a blank pattern; write [ ] for a name made of spaces"
        )
    if pattern.startswith("!"):
        raise PatternError(
            pattern,
            0,
            1,
            "patterns have no negation; list it in `ignores` (write \\! for a literal !)",
        )
    if pattern.endswith("/"):
        raise PatternError(
            pattern,
            len(pattern) - 1,
            len(pattern),
            f"a trailing / matches nothing; write {pattern}** for the files below it",
        )
    body = pattern[1:] if pattern.startswith("/") else pattern
    offset = len(pattern) - len(body)
    position = offset
    for part in body.split("/"):
        if part in (".", ".."):
            raise PatternError(
                pattern,
                position,
                position + len(part),
                f"no {part} components: paths are from the root",
            )
        if part == "" and position != offset + len(body):
            raise PatternError(pattern, position, position + 1, "an empty path component (//)")
        position += len(part) + 1
    bare = _ESCAPED.sub("\0\0", pattern)  # same length, escaped characters masked
    problem = _brace_problem(bare)
    if problem is not None:
        raise PatternError(pattern, problem[0], problem[0] + 1, problem[1])
    try:
        glob.compile([body], flags=_ANCHORED)
    except ValueError as error:  # wcmatch's own complaint, e.g. a pattern it cannot translate
        raise PatternError(pattern, 0, len(pattern), str(error)) from error


def _brace_problem(bare: str) -> tuple[int, str] | None:
    """Where braces are unbalanced or hide an anchoring slash (bracket expressions skipped)."""
    depth = 0
    opened: list[int] = []
    index = 0
    while index < len(bare):
        char = bare[index]
        following = bare[index + 1 : index + 2]
        if char == "[":
            close = bare.find("]", index + 2)
            if close != -1:
                index = close + 1
                continue
        if char == "{":
            depth += 1
            opened.append(index)
        elif char == "}":
            if depth == 0:
                return index, "a } with no { before it; write \\} for a literal brace"
            depth -= 1
            opened.pop()
        if char in "{," and depth and following == "/":
            return index + 1, "a leading / anchors only at the start of the whole pattern"
        index += 1
    if opened:
        return opened[-1], "an unclosed {; write \\{ for a literal brace"
    return None


def is_literal(pattern: str) -> bool:
    """True when the pattern names one exact path (no glob syntax), so messages can name it."""
    return not GLOB_CHARS.intersection(pattern)


@frozen
class PathMatcher:
    """A compiled set of patterns: `matches(path)` is true when any pattern matches."""

    patterns: tuple[str, ...]
    _anchored: glob.WcMatcher[str] | None
    _free: glob.WcMatcher[str] | None

    @classmethod
    def compile(cls, patterns: Iterable[str]) -> PathMatcher:
        """Check and compile the patterns once; raise PatternError for the first bad one."""
        patterns = tuple(patterns)
        anchored: list[str] = []
        free: list[str] = []
        for pattern in patterns:
            check_pattern(pattern)
            if pattern.startswith("/"):
                anchored.append(pattern[1:])
            else:
                free.append(pattern)
        return cls(
            patterns,
            glob.compile(anchored, flags=_ANCHORED) if anchored else None,
            glob.compile(free, flags=_FREE) if free else None,
        )

    def matches(self, path: str) -> bool:
        return bool(
            (self._free is not None and self._free.match(path))
            or (self._anchored is not None and self._anchored.match(path))
        )


def matches(pattern: str, path: str) -> bool:
    """One pattern against one path (compiles each time; use PathMatcher in loops)."""
    return PathMatcher.compile([pattern]).matches(path)
