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

Named parts (`apps/{app}/models.py`) match as one or more characters other than `/` and name
them. A matcher with named parts also keeps every alternative name by name as a template (a
name's regular expression in pieces, the odd pieces naming a part): `bindings(path)` says what
each named part matched, `bind(values)` gives the matcher with those values put in literally.
A named part always has a fixed place (cagr_config rejects one between two `**` or beside a
`*`), so the folder-by-folder match decides its binding exactly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .values import field, value

GLOB_CHARS = frozenset("*?[]{}\\")
GLOBSTAR = "**"
Names = tuple[str | None, ...]  # one alternative: a regular expression per name, None for `**`
Place = tuple[str, str] | None  # where the rule index files an alternative (None: nowhere)
Piece = tuple[str, ...]  # one name's regular expression in pieces: odd pieces name a part
NamedNames = tuple[Piece | None, ...]  # one alternative with named parts, name by name
ANY_PART = "[^/]+"  # what a named part matches
Binding = tuple[tuple[str, str], ...]  # named parts and what they matched, sorted by name
_GROUP = re.compile(r"\{([^{}]*)\}")
PART_NAME = re.compile(r"[a-z][a-z0-9_]*")  # a named part's name (fullmatch)


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


def _joined(piece: Piece, values: dict[str, str] | None) -> str:
    """A name's regular expression: each part as a named group (no values), or as the literal
    text it is given."""
    out = []
    for index, text in enumerate(piece):
        if index % 2 == 0:
            out.append(text)
        elif values is None:
            out.append(f"(?P<{text}>{ANY_PART})")
        else:
            out.append(re.escape(values[text]))
    return "".join(out)


def _escaped_glob(text: str) -> str:
    return re.sub(r"([*?\[\]{}\\])", r"\\\1", text)


def brace_groups(pattern: str) -> list[tuple[int, int, str]]:
    """The innermost `{...}` groups of a pattern as written, outside escapes and bracket
    expressions: (start, end, what is inside). After brace expansion, the ones left are named
    parts, or mistakes."""
    found = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            close = pattern.find("]", index + 2)
            if close != -1:
                index = close + 1
                continue
        if char == "{":
            group = _GROUP.match(pattern, index)
            if group is not None:
                found.append((group.start(), group.end(), group.group(1)))
                index = group.end()
                continue
        index += 1
    return found


def named_spans(pattern: str) -> list[tuple[int, int, str]]:
    """The `{NAME}` parts of a pattern or template as written: (start, end, name)."""
    return [span for span in brace_groups(pattern) if PART_NAME.fullmatch(span[2])]


def fill(pattern: str, values: dict[str, str]) -> str:
    """A pattern with its named parts replaced by their values, glob-escaped (the values are
    literal): what a bound matcher matches, for messages."""
    out, last = [], 0
    for start, end, name in named_spans(pattern):
        if name in values:
            out.append(pattern[last:start] + _escaped_glob(values[name]))
            last = end
    return "".join(out) + pattern[last:]


def part_names(template: NamedNames) -> tuple[str, ...]:
    """The named parts of one alternative, in order."""
    return tuple(name for piece in template if piece for name in piece[1::2])


class _Binder:
    """One alternative with named parts, matched name by name: what each part matched."""

    __slots__ = ("_fixed", "_names")

    def __init__(self, template: NamedNames) -> None:
        self._names = _Names(tuple(None if p is None else _joined(p, None) for p in template))
        chunks = self._names.chunks
        # A named part sits in the first chunk or (after a `**`) the last: a fixed place.
        first = [n for n, p in enumerate(template) if p is None][:1]
        cut = first[0] if first else len(template)
        self._fixed = [(index, True) for index in range(cut) if template[index]]
        if len(chunks) > 1:
            tail = len(chunks[-1])
            self._fixed += [
                (index - len(template), False)
                for index in range(len(template) - tail, len(template))
                if template[index]
            ]

    def binding(self, names: Sequence[str]) -> Binding | None:
        if not self._names.match(names):
            return None
        trailing = 1 if self._names.trailing else 0
        found: dict[str, str] = {}
        for index, from_start in self._fixed:
            at = index if from_start else len(names) + index - trailing
            part = self._names.parts[index]
            assert part is not None
            matched = part.fullmatch(names[at])
            assert matched is not None
            found.update(matched.groupdict())
        return tuple(sorted(found.items()))


@value
class PathMatcher:
    """A compiled set of patterns: `matches(path)` is true when any pattern matches.

    `regexes` match whole paths (wcmatch's own expressions); `deep` are the alternatives with
    two or more `**`, name by name; `alternatives` are every alternative's names (None for one
    that matches basenames anywhere), for `could_match_below`; `places` say where the rule index
    files each alternative. With named parts, the first three match each part as ANY_PART, and
    `templates` holds every alternative name by name (a free one starts with `**`) with its
    parts; `binds` says each part has one place in a match (so `bind(values)` matches a path
    exactly when `bindings(path)` holds those values). Made by cagr_config.globs.compile_matcher.
    """

    patterns: tuple[str, ...]
    regexes: tuple[str, ...]
    deep: tuple[Names, ...]
    alternatives: tuple[Names | None, ...]
    places: tuple[Place, ...]
    templates: tuple[NamedNames, ...] = ()
    binds: bool = False  # each part has one place in a match: `bindings` decides `bind` exactly
    _compiled: list[tuple[re.Pattern[str] | None, tuple[_Names, ...]]] = field(
        factory=list, eq=False, repr=False, init=False
    )
    _below: dict[str, bool] = field(factory=dict, eq=False, repr=False, init=False)
    _binders: list[_Binder] = field(factory=list, eq=False, repr=False, init=False)

    @property
    def parts(self) -> frozenset[str]:
        """The names of the parts some alternative names."""
        return frozenset(name for template in self.templates for name in part_names(template))

    def defined_everywhere(self) -> frozenset[str]:
        """The named parts every alternative names (what every match binds)."""
        if not self.templates:
            return frozenset()
        named = [frozenset(part_names(template)) for template in self.templates]
        return frozenset.intersection(*named)

    def bindings(self, path: str) -> tuple[Binding, ...]:
        """What the named parts matched, for each alternative that matches `path` (distinct, in
        order; none without named parts, or when nothing matches)."""
        if not self.templates:
            return ()
        if not self._binders:
            self._binders.extend(_Binder(template) for template in self.templates)
        names = path.split("/")
        found: list[Binding] = []
        for binder in self._binders:
            binding = binder.binding(names)
            if binding is not None and binding not in found:
                found.append(binding)
        return tuple(found)

    def bind(self, values: dict[str, str], shown: tuple[str, ...]) -> PathMatcher:
        """This matcher with each named part replaced by its value, taken literally (`shown`:
        the patterns so written, for messages)."""
        if not self.templates:
            return self
        concrete = tuple(
            tuple(None if piece is None else _joined(piece, values) for piece in template)
            for template in self.templates
        )
        return PathMatcher(shown, (), concrete, concrete, tuple(None for _ in concrete))

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
