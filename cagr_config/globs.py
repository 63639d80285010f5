"""Glob patterns checked and compiled to regular expressions, with wcmatch and bracex.

The half of path globs that reads pattern syntax (cagr_core.globs matches with what it makes,
using `re` alone). A pattern is checked (PatternError points at the bad part), its braces are
expanded, and each alternative is translated to the regular expressions wcmatch itself matches
with (`glob.translate`, `fnmatch.translate` per name), so a matcher built from them answers as
wcmatch does. Each alternative is also filed for the rule index (see cagr_core.rule_index): under
a literal part every path it matches must have, when one can tell.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise, takewhile

import bracex
from wcmatch import fnmatch, glob

from cagr_core.errors import PatternError
from cagr_core.globs import GLOB_CHARS, GLOBSTAR, Names, PathMatcher, Place

_COMMON = glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB | glob.FORCEUNIX | glob.CASE
ANCHORED = _COMMON
FREE = _COMMON | glob.MATCHBASE
_NAME = fnmatch.DOTMATCH | fnmatch.FORCEUNIX | fnmatch.CASE  # one folder or file name
_ESCAPED = re.compile(r"\\.", re.DOTALL)
MAX_EXPANSIONS = 1000  # per pattern, and for all the patterns of one list together


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
    for alternative in expand(body):
        if "" in alternative.split("/"):
            brace = bare.find("{")
            raise PatternError(
                pattern,
                brace,
                brace + 1,
                f"the brace alternative {alternative!r} has an empty path component; put the /"
                " inside the braces, as in src/{,generated/}*.py",
            )
    _check_globstars(pattern, bare)
    try:
        glob.translate([body], flags=ANCHORED)
    except ValueError as error:  # wcmatch's own complaint, e.g. a pattern it cannot translate
        raise PatternError(pattern, 0, len(pattern), str(error)) from error


_BRACKET = re.compile(r"\[[^/\]]+\]")


def _check_globstars(pattern: str, bare: str) -> None:
    """A `**` inside a name is one `*` (it never reaches into folders): `src/**.ts` matches
    src/a.ts, never src/a/b.ts, so the rule it is in could never fire where it means to."""
    if "/" not in bare:
        return  # a name matched at any depth, where `**` and `*` are the same
    masked = _BRACKET.sub(lambda m: "\0" * len(m.group(0)), bare)
    for match in re.finditer(r"\*\*+", masked):
        start, end = match.span()
        before = masked[start - 1] if start else "/"
        after = masked[end] if end < len(masked) else "/"
        if end - start == 2 and before in "/{," and after in "/},":
            continue  # a whole path part (in a brace alternative too)
        left = masked.rfind("/", 0, start) + 1
        right = masked.find("/", end)
        right = len(pattern) if right == -1 else right
        part, head, tail = pattern[left:right], pattern[:left], pattern[right:]
        one = re.sub(r"\*\*+", "*", part)
        raise PatternError(
            pattern,
            start,
            end,
            f"`**` crosses folders only as a whole path part; in {part!r} it is one `*`, so"
            f" this matches nothing in subfolders. Write {head}**/{one}{tail} for every folder"
            f" below, or {head}{one}{tail} for this folder only",
        )


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


def compile_matcher(patterns: Iterable[str]) -> PathMatcher:
    """Check the patterns and compile them into one PathMatcher; PatternError for the first bad
    one, or when together they expand to more than MAX_EXPANSIONS alternatives."""
    patterns = tuple(patterns)
    anchored: list[str] = []
    free: list[str] = []
    deep: list[Names] = []
    alternatives: list[Names | None] = []
    for pattern in patterns:
        check_pattern(pattern)
        body = pattern.removeprefix("/")
        for alternative in expand(body):
            names = _names(alternative)
            relative = pattern.startswith("/") or "/" in alternative
            alternatives.append(names if relative else None)
            if alternative.split("/").count(GLOBSTAR) >= 2:
                deep.append(names)  # as one expression it backtracks exponentially on deep paths
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
    regexes = _translate(free, FREE) + _translate(anchored, ANCHORED)
    places = tuple(place for pattern in patterns for place in places_of(pattern))
    return PathMatcher(patterns, tuple(regexes), tuple(deep), tuple(alternatives), places)


def matches(pattern: str, path: str) -> bool:
    """One pattern against one path (compiles each time; compile a matcher for loops)."""
    return compile_matcher([pattern]).matches(path)


def _translate(alternatives: list[str], flags: int) -> list[str]:
    return glob.translate(alternatives, flags=flags, limit=0)[0] if alternatives else []


def _names(alternative: str) -> Names:
    """One brace-free alternative as a regular expression per name (None for `**`; consecutive
    `**` are one)."""
    parts: list[str | None] = []
    for name in alternative.split("/"):
        if name != GLOBSTAR:
            (regex,) = fnmatch.translate([name], flags=_NAME, limit=0)[0]
            parts.append(regex)
        elif not parts or parts[-1] is not None:
            parts.append(None)
    return tuple(parts)


def places_of(pattern: str) -> list[Place]:
    """Where a configured pattern files in the rule index: one place per brace alternative
    (None: nowhere, so it is tried on every path)."""
    anchored = pattern.startswith("/")
    body = pattern[1:] if anchored else pattern
    alternatives = _alternatives(body, ANCHORED if anchored else FREE)
    if alternatives is None:
        return [None]
    return [_place(alternative, free=not anchored) for alternative in alternatives]


def _place(pattern: str, free: bool) -> Place:
    """The literal part every path matching this brace-free pattern has, if it can tell.

    Each pattern component other than `**` matches exactly one path component (`*`, `?` and
    classes never match `/`), a free pattern without a slash matches basenames, and matching is
    case-sensitive: so literal leading components are the path's leading folders, literal
    characters ending the pattern end the path, and any literal component is one of the path's.
    """
    parts = pattern.split("/")
    if "\\" in pattern or any(part in ("", ".", "..") for part in parts):
        return None  # escapes and odd components: left to the matcher
    if free and len(parts) == 1:
        return ("name", pattern) if _literal(pattern) else _end(pattern)
    leading = list(takewhile(_literal, parts))
    if len(leading) == len(parts):
        return ("path", pattern)
    if leading:
        return ("folder", "/".join(leading))
    inner = [part for part in parts[:-1] if _literal(part)]
    return _end(parts[-1]) or (("part", inner[-1]) if inner else None)


def _literal(part: str) -> bool:
    return not GLOB_CHARS.intersection(part)


def _end(part: str) -> Place:
    """The literal characters after the component's last glob character, if any."""
    last = max(part.rfind(char) for char in GLOB_CHARS)
    return ("end", part[last + 1 :]) if last + 1 < len(part) else None


def _alternatives(pattern: str, flags: int) -> list[str] | None:
    """The pattern's brace alternatives, or None when they may differ from wcmatch's own.

    The expansion here is deliberately simple (comma lists, nested); it is accepted only when
    wcmatch translates the alternatives to exactly the regular expressions of the pattern.
    """
    if "{" not in pattern:
        return [pattern]
    done: list[str] = []
    pending = [pattern]
    while pending:
        current = pending.pop()
        expanded = _expand_first(current)
        if expanded is None:
            done.append(current)
        else:
            pending.extend(expanded)
        if len(done) + len(pending) > MAX_EXPANSIONS:
            return None
    try:
        ours = [glob.translate(one, flags=flags)[0] for one in done]
        theirs = set(glob.translate(pattern, flags=flags)[0])
    except ValueError:  # wcmatch rejects an alternative, or the pattern has too many
        return None
    # Each alternative must be one of wcmatch's own (it expands none further), and together
    # they must be all of them.
    if any(len(regexes) != 1 for regexes in ours) or {regexes[0] for regexes in ours} != theirs:
        return None
    return sorted(set(done))


def _expand_first(pattern: str) -> list[str] | None:
    """The first `{...}` holding a top-level comma, expanded one level; None when there is none."""
    depth = 0
    start = 0
    commas: list[int] = []
    for index, char in enumerate(pattern):
        if char == "{":
            if depth == 0:
                start, commas = index, []
            depth += 1
        elif char == "," and depth == 1:
            commas.append(index)
        elif char == "}" and depth:
            depth -= 1
            if depth == 0 and commas:
                cuts = [start, *commas, index]
                head, tail = pattern[:start], pattern[index + 1 :]
                return [head + pattern[a + 1 : b] + tail for a, b in pairwise(cuts)]
    return None
