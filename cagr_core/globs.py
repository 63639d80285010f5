"""Path globs, on wcmatch.

- Paths are repo-relative with `/`, no leading slash; matching is case-sensitive.
- A leading `/` anchors a pattern at the config root: `/package.json` is the root manifest only.
- A pattern without a slash matches basenames anywhere: `package.json` matches workspaces too.
- Other patterns are relative to the root. `**` spans folders, braces give alternatives,
  `*` matches dotfiles. There is no negation: use a rule's `ignores`.

A pattern expands (braces) to at most MAX_EXPANSIONS alternatives, and so do all the patterns
of one list together. Alternatives with two or more `**` folders are matched folder by folder,
leftmost first, so matching stays linear in the path's depth: as one regular expression they
backtrack exponentially on deep paths.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import bracex
from attrs import field, frozen
from wcmatch import fnmatch, glob

from .errors import PatternError

_COMMON = glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB | glob.FORCEUNIX | glob.CASE
_ANCHORED = _COMMON
_FREE = _COMMON | glob.MATCHBASE
_NAME = fnmatch.DOTMATCH | fnmatch.FORCEUNIX | fnmatch.CASE  # one folder or file name
GLOB_CHARS = frozenset("*?[]{}\\")
_ESCAPED = re.compile(r"\\.", re.DOTALL)
MAX_EXPANSIONS = 1000
GLOBSTAR = "**"


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
    expand(pattern)
    try:
        glob.compile([body], flags=_ANCHORED)
    except ValueError as error:  # wcmatch's own complaint, e.g. a pattern it cannot translate
        raise PatternError(pattern, 0, len(pattern), str(error)) from error


def expand(pattern: str) -> list[str]:
    """The pattern's brace alternatives (escapes kept), as wcmatch expands them; PatternError
    when there are more than MAX_EXPANSIONS."""
    try:
        return bracex.expand(pattern, keep_escapes=True, limit=MAX_EXPANSIONS, return_empty=True)
    except bracex.ExpansionLimitException as error:
        raise PatternError(
            pattern,
            0,
            len(pattern),
            f"its braces expand to more than {MAX_EXPANSIONS} patterns; list fewer alternatives"
            " or use a wildcard",
        ) from error


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


class _Names:
    """One brace-free pattern as a sequence of name patterns (None for `**`), for the questions
    one regular expression cannot answer quickly: deep `**` chains, and what lies beneath a
    folder. `**` spans zero or more folders; a final `**` spans at least one name."""

    __slots__ = ("chunks", "parts", "trailing")

    def __init__(self, pattern: str) -> None:
        parts: list[fnmatch.WcMatcher[str] | None] = []
        for name in pattern.split("/"):
            if name != GLOBSTAR:
                parts.append(_name_matcher(name))
            elif not parts or parts[-1] is not None:
                parts.append(None)  # consecutive `**` are one
        self.parts = tuple(parts)
        self.trailing = parts[-1] is None
        chunks: list[list[fnmatch.WcMatcher[str]]] = [[]]
        for part in parts:
            if part is None:
                chunks.append([])
            else:
                chunks[-1].append(part)
        self.chunks = chunks

    def match(self, names: Sequence[str]) -> bool:
        """Whether the path (its names) matches: fixed chunks at both ends, the chunks between
        `**` each at its leftmost place (a later `**` can always take what an earlier one left)."""
        chunks = self.chunks
        first = chunks[0]
        if len(chunks) == 1:
            return len(names) == len(first) and _fits(first, names, 0)
        last = chunks[-1]
        end = len(names) - len(last) - (1 if self.trailing else 0)
        if end < len(first) or not _fits(first, names, 0):
            return False
        if not _fits(last, names, len(names) - len(last)):
            return False
        position = len(first)
        for chunk in chunks[1:-1]:
            while position + len(chunk) <= end and not _fits(chunk, names, position):
                position += 1
            position += len(chunk)
            if position > end:
                return False
        return True

    def could_match_below(self, folder: Sequence[str]) -> bool:
        """Whether some path beneath the folder (its names) could match."""
        parts = self.parts
        for index, name in enumerate(folder):
            if index == len(parts):
                return False
            part = parts[index]
            if part is None:
                return True
            if not part.match(name):
                return False
        return len(folder) < len(parts)


def _fits(chunk: list[fnmatch.WcMatcher[str]], names: Sequence[str], start: int) -> bool:
    return all(part.match(names[start + index]) for index, part in enumerate(chunk))


_NAME_MATCHERS: dict[str, fnmatch.WcMatcher[str]] = {}


def _name_matcher(name: str) -> fnmatch.WcMatcher[str]:
    matcher = _NAME_MATCHERS.get(name)
    if matcher is None:
        matcher = _NAME_MATCHERS[name] = fnmatch.compile([name], flags=_NAME)
    return matcher


def _deep(alternative: str) -> bool:
    return alternative.split("/").count(GLOBSTAR) >= 2


@frozen
class PathMatcher:
    """A compiled set of patterns: `matches(path)` is true when any pattern matches."""

    patterns: tuple[str, ...]
    _anchored: glob.WcMatcher[str] | None
    _free: glob.WcMatcher[str] | None
    _deep: tuple[_Names, ...] = ()
    # Every alternative relative to the root, or None for one that matches basenames anywhere.
    _alternatives: tuple[str | None, ...] = ()
    _below: dict[str, bool] = field(factory=dict, eq=False, repr=False)

    @classmethod
    def compile(cls, patterns: Iterable[str]) -> PathMatcher:
        """Check and compile the patterns once; raise PatternError for the first bad one."""
        patterns = tuple(patterns)
        anchored: list[str] = []
        free: list[str] = []
        deep: list[_Names] = []
        alternatives: list[str | None] = []
        for pattern in patterns:
            check_pattern(pattern)
            body = pattern.removeprefix("/")
            for alternative in expand(body):
                if pattern.startswith("/") or "/" in alternative:
                    alternatives.append(alternative)
                else:
                    alternatives.append(None)
                if _deep(alternative):
                    deep.append(_Names(alternative))
                elif pattern.startswith("/"):
                    anchored.append(alternative)
                else:
                    free.append(alternative)
        if len(alternatives) > MAX_EXPANSIONS:
            listed = ", ".join(patterns)
            raise PatternError(
                listed,
                0,
                len(listed),
                f"these patterns expand to more than {MAX_EXPANSIONS} patterns together;"
                " list fewer alternatives or use a wildcard",
            )
        return cls(
            patterns,
            glob.compile(anchored, flags=_ANCHORED, limit=0) if anchored else None,
            glob.compile(free, flags=_FREE, limit=0) if free else None,
            tuple(deep),
            tuple(alternatives),
        )

    def matches(self, path: str) -> bool:
        if (self._free is not None and self._free.match(path)) or (
            self._anchored is not None and self._anchored.match(path)
        ):
            return True
        if self._deep:
            names = path.split("/")
            return any(pattern.match(names) for pattern in self._deep)
        return False

    def could_match_below(self, folder: str) -> bool:
        """Whether any path beneath `folder` (repo-relative, `/`-separated) could match: for a
        folder whose contents are unknown."""
        folder = folder.strip("/")
        known = self._below.get(folder)
        if known is None:
            names = folder.split("/") if folder else []
            known = self._below[folder] = any(
                alternative is None or _Names(alternative).could_match_below(names)
                for alternative in self._alternatives
            )
        return known


def matches(pattern: str, path: str) -> bool:
    """One pattern against one path (compiles each time; use PathMatcher in loops)."""
    return PathMatcher.compile([pattern]).matches(path)
