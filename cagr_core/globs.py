"""Path globs, matched with the standard library's `re`.

- Paths are repo-relative with `/`, no leading slash; matching is case-sensitive.
- A leading `/` anchors a pattern at the config root: `/package.json` is the root manifest only.
- A pattern without a slash matches basenames anywhere: `package.json` matches workspaces too.
- Other patterns are relative to the root. `**` spans folders, braces give alternatives,
  `*` matches dotfiles. There is no negation: use a rule's `ignores`.

A PathMatcher holds its patterns as the regular expressions wcmatch matches with, made once by
cagr_core.glob_compile (`compile_matcher`) and kept in the compiled configuration, so a check
that reads that needs neither wcmatch nor a pattern parser. Expressions are compiled on first use.
Alternatives with two or more `**` folders are matched folder by folder, leftmost first, so
matching stays linear in the path's depth: as one regular expression they backtrack
exponentially on deep paths.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .values import field, value

GLOB_CHARS = frozenset("*?[]{}\\")
GLOBSTAR = "**"
Names = tuple[str | None, ...]  # one alternative: a regular expression per name, None for `**`
Place = tuple[str, str] | None  # where the rule index files an alternative (None: nowhere)


def is_literal(pattern: str) -> bool:
    """True when the pattern names one exact path (no glob syntax), so messages can name it."""
    return not GLOB_CHARS.intersection(pattern)


_NAME_REGEXES: dict[str, re.Pattern[str]] = {}


def _name_regex(source: str) -> re.Pattern[str]:
    compiled = _NAME_REGEXES.get(source)
    if compiled is None:
        compiled = _NAME_REGEXES[source] = re.compile(source)
    return compiled


class _Names:
    """One brace-free alternative as a sequence of name patterns (None for `**`), for the
    questions one regular expression cannot answer quickly: deep `**` chains, and what lies
    beneath a folder. `**` spans zero or more folders; a final `**` spans at least one name."""

    __slots__ = ("chunks", "parts", "trailing")

    def __init__(self, names: Names) -> None:
        parts = [None if name is None else _name_regex(name) for name in names]
        self.parts = tuple(parts)
        self.trailing = bool(parts) and parts[-1] is None
        chunks: list[list[re.Pattern[str]]] = [[]]
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
            if not part.fullmatch(name):
                return False
        return len(folder) < len(parts)


def _fits(chunk: list[re.Pattern[str]], names: Sequence[str], start: int) -> bool:
    return all(part.fullmatch(names[start + index]) for index, part in enumerate(chunk))


@value
class PathMatcher:
    """A compiled set of patterns: `matches(path)` is true when any pattern matches.

    `regexes` match whole paths (wcmatch's own expressions); `deep` are the alternatives with
    two or more `**`, name by name; `alternatives` are every alternative's names (None for one
    that matches basenames anywhere), for `could_match_below`; `places` say where the rule index
    files each alternative. Made by cagr_core.glob_compile.compile_matcher.
    """

    patterns: tuple[str, ...]
    regexes: tuple[str, ...]
    deep: tuple[Names, ...]
    alternatives: tuple[Names | None, ...]
    places: tuple[Place, ...]
    _compiled: list[tuple[re.Pattern[str] | None, tuple[_Names, ...]]] = field(
        factory=list, eq=False, repr=False, init=False
    )
    _below: dict[str, bool] = field(factory=dict, eq=False, repr=False, init=False)

    def _expressions(self) -> tuple[re.Pattern[str] | None, tuple[_Names, ...]]:
        if not self._compiled:
            # One expression for all: it matches the whole path when any alternative does.
            joined = "|".join(f"(?:{regex})" for regex in self.regexes)
            whole = re.compile(joined) if self.regexes else None
            self._compiled.append((whole, tuple(_Names(names) for names in self.deep)))
        return self._compiled[0]

    def matches(self, path: str) -> bool:
        whole, deep = self._compiled[0] if self._compiled else self._expressions()
        if whole is not None and whole.fullmatch(path):
            return True
        if deep:
            names = path.split("/")
            return any(pattern.match(names) for pattern in deep)
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
                for alternative in self.alternatives
            )
        return known
