"""git's path patterns, as `.gitignore` and `.gitattributes` lines use them: one pattern parsed
as git's dir.c parses it (`!`, a trailing `/`, a slash anywhere making it relative to its file's
folder) and matched as dir.c matches it, by a port of git's wildmatch (`*`, `**`, `?`, `[...]`
with ranges and `[:class:]`, backslash escapes, ASCII-only case folding).

Everything works on bytes, as git does: a path is matched byte for byte, whatever its encoding.
Standard library only.
"""

from __future__ import annotations

import re

NEGATIVE = 1  # `!pattern`
MUST_BE_DIR = 2  # `pattern/`
NO_DIR = 4  # no slash but the trailing one: matched against the last path component only
ENDS_WITH = 8  # `*literal`

_MATCH, _NO_MATCH, _ABORT_ALL, _ABORT_TO_STARSTAR = 0, 1, 2, 3
_STAR, _QUESTION, _BRACKET, _BACKSLASH, _SLASH = 42, 63, 91, 92, 47
_GLOB_SPECIAL = frozenset(b"*?[\\")


# git's own ctype (ctype.c), ASCII only: isspace is tab, LF, CR and space.
_CLASSES = {
    b"alnum": frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    b"alpha": frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    b"blank": frozenset(b" \t"),
    b"cntrl": frozenset((*range(32), 127)),
    b"digit": frozenset(b"0123456789"),
    b"graph": frozenset(range(33, 127)),
    b"lower": frozenset(b"abcdefghijklmnopqrstuvwxyz"),
    b"print": frozenset(range(32, 127)),
    b"punct": frozenset(b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    b"space": frozenset(b"\t\n\r "),
    b"upper": frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    b"xdigit": frozenset(b"0123456789ABCDEFabcdef"),
}
_LOWER = _CLASSES[b"lower"]


def _fold(c: int) -> int:
    return c + 32 if 65 <= c <= 90 else c


class PatternTooDeep(ValueError):
    """A pattern with more `*` groups than matching can follow (git's matcher recurses too)."""


def wildmatch(pattern: bytes, text: bytes, *, pathname: bool, fold: bool = False) -> bool:
    """Whether `text` matches `pattern` as git's wildmatch() decides (WM_PATHNAME: `*` and `?`
    stop at `/`, and `**` between slashes spans folders; WM_CASEFOLD: ASCII letters fold).
    PatternTooDeep when the pattern nests more stars than Python's recursion allows."""
    try:
        return _dowild(pattern + b"\0", 0, text + b"\0", 0, pathname, fold) == _MATCH
    except RecursionError:
        raise PatternTooDeep(pattern[:80].decode("utf-8", "replace")) from None


def _dowild(  # noqa: PLR0913, PLR0915, PLR0917  # git's dowild(), kept whole to compare
    p: bytes, pi: int, t: bytes, ti: int, pathname: bool, fold: bool
) -> int:
    """git's dowild(), line for line: `p` and `t` end in a NUL, as C strings do."""
    start = pi
    while True:
        p_ch = p[pi]
        if p_ch == 0:
            break
        t_ch = t[ti]
        if t_ch == 0 and p_ch != _STAR:
            return _ABORT_ALL
        if fold:
            t_ch = _fold(t_ch)
            p_ch = _fold(p_ch)
        if p_ch == _BACKSLASH:
            pi += 1
            if t_ch != p[pi]:  # the escaped byte, compared unfolded as git does
                return _NO_MATCH
        elif p_ch == _QUESTION:
            if pathname and t_ch == _SLASH:
                return _NO_MATCH
        elif p_ch == _STAR:
            pi += 1
            if p[pi] == _STAR:
                previous = pi - 2
                pi += 1
                while p[pi] == _STAR:
                    pi += 1
                if not pathname:
                    match_slash = True
                elif (previous < start or p[previous] == _SLASH) and (
                    p[pi] in (0, _SLASH) or (p[pi] == _BACKSLASH and p[pi + 1] == _SLASH)
                ):
                    if p[pi] == _SLASH and _dowild(p, pi + 1, t, ti, pathname, fold) == _MATCH:
                        return _MATCH
                    match_slash = True
                else:
                    match_slash = False
            else:
                match_slash = not pathname
            if p[pi] == 0:
                if not match_slash and t.find(b"/", ti) != -1:
                    return _NO_MATCH
                return _MATCH
            if not match_slash and p[pi] == _SLASH:
                slash = t.find(b"/", ti)
                if slash == -1:
                    return _NO_MATCH
                ti = slash  # the slash is matched by the pattern's own `/` next
                pi += 1
                ti += 1
                continue
            while t_ch != 0:
                if p[pi] not in _GLOB_SPECIAL:
                    wanted = _fold(p[pi]) if fold else p[pi]
                    while True:
                        t_ch = t[ti]
                        if t_ch == 0 or (not match_slash and t_ch == _SLASH):
                            break
                        if fold:
                            t_ch = _fold(t_ch)
                        if t_ch == wanted:
                            break
                        ti += 1
                    if t_ch != wanted:
                        return _NO_MATCH
                matched = _dowild(p, pi, t, ti, pathname, fold)
                if matched != _NO_MATCH:
                    if not match_slash or matched != _ABORT_TO_STARSTAR:
                        return matched
                elif not match_slash and t_ch == _SLASH:
                    return _ABORT_TO_STARSTAR
                ti += 1
                t_ch = t[ti]
            return _ABORT_ALL
        elif p_ch == _BRACKET:
            outcome, pi = _bracket(p, pi, t_ch, fold)
            if outcome != _MATCH:
                return outcome
            if pathname and t_ch == _SLASH:
                return _NO_MATCH
        elif t_ch != p_ch:
            return _NO_MATCH
        pi += 1
        ti += 1
    return _NO_MATCH if t[ti] != 0 else _MATCH


def _bracket(p: bytes, pi: int, t_ch: int, fold: bool) -> tuple[int, int]:  # noqa: PLR0915
    """A `[...]` at `p[pi]` against the (folded) byte `t_ch`: (outcome, index of its `]`)."""
    pi += 1
    p_ch = p[pi]
    if p_ch == ord("^"):
        p_ch = ord("!")
    negated = p_ch == ord("!")
    if negated:
        pi += 1
        p_ch = p[pi]
    previous = 0
    matched = False
    while True:
        if p_ch == 0:
            return _ABORT_ALL, pi
        if p_ch == _BACKSLASH:
            pi += 1
            p_ch = p[pi]
            if p_ch == 0:
                return _ABORT_ALL, pi
            if t_ch == p_ch:
                matched = True
        elif p_ch == ord("-") and previous and p[pi + 1] and p[pi + 1] != ord("]"):
            pi += 1
            p_ch = p[pi]
            if p_ch == _BACKSLASH:
                pi += 1
                p_ch = p[pi]
                if p_ch == 0:
                    return _ABORT_ALL, pi
            if previous <= t_ch <= p_ch or (
                fold and t_ch in _LOWER and previous <= t_ch - 32 <= p_ch
            ):
                matched = True
            p_ch = 0  # the next byte starts no range
        elif p_ch == _BRACKET and p[pi + 1] == ord(":"):
            name_start = pi = pi + 2
            while p[pi] and p[pi] != ord("]"):
                pi += 1
            p_ch = p[pi]
            if not p_ch:
                return _ABORT_ALL, pi
            if pi - name_start - 1 < 0 or p[pi - 1] != ord(":"):
                pi = name_start - 2  # no `:]`: a plain `[` in the set
                p_ch = _BRACKET
                if t_ch == p_ch:
                    matched = True
            else:
                members = _CLASSES.get(p[name_start : pi - 1])
                if members is None:
                    return _ABORT_ALL, pi  # a malformed [:class:]
                if t_ch in members or (
                    fold and p[name_start : pi - 1] == b"upper" and t_ch in _LOWER
                ):
                    matched = True
                p_ch = 0
        elif t_ch == p_ch:
            matched = True
        previous = p_ch
        pi += 1
        p_ch = p[pi]
        if p_ch == ord("]"):
            break
    return (_NO_MATCH if matched == negated else _MATCH), pi


def _simple_length(pattern: bytes) -> int:
    """How many leading bytes hold no glob character (`*?[\\`)."""
    for index, byte in enumerate(pattern):
        if byte in _GLOB_SPECIAL:
            return index
    return len(pattern)


class Pattern:
    """One parsed pattern, with the folder (`base`, no trailing slash) of the file it came from."""

    __slots__ = ("base", "flags", "literal", "text")

    def __init__(self, line: bytes, base: bytes) -> None:
        flags = 0
        if line.startswith(b"!"):
            flags |= NEGATIVE
            line = line[1:]
        if line.endswith(b"/"):
            line = line[:-1]
            flags |= MUST_BE_DIR
        if b"/" not in line:
            flags |= NO_DIR
        if line.startswith(b"*") and _simple_length(line[1:]) == len(line) - 1:
            flags |= ENDS_WITH
        self.text = line
        self.literal = _simple_length(line)  # the leading bytes compared as they are
        self.flags = flags
        self.base = base

    @property
    def negative(self) -> bool:
        return bool(self.flags & NEGATIVE)

    def matches(self, path: bytes, basename: bytes, is_dir: bool, fold: bool) -> bool:
        """dir.c's test of this pattern against `path` (its last component `basename`)."""
        flags = self.flags
        if flags & MUST_BE_DIR and not is_dir:
            return False
        if flags & NO_DIR:
            return match_basename(basename, self.text, self.literal, flags, fold)
        return match_pathname(path, self.base, self.text, self.literal, fold)


def _same(a: bytes, b: bytes, fold: bool) -> bool:
    return a == b or (fold and a.lower() == b.lower())


def match_basename(basename: bytes, pattern: bytes, literal: int, flags: int, fold: bool) -> bool:
    """dir.c's match_basename()."""
    if literal == len(pattern):
        return len(basename) == literal and _same(pattern, basename, fold)
    if flags & ENDS_WITH:
        tail = len(pattern) - 1
        return tail <= len(basename) and _same(pattern[1:], basename[len(basename) - tail :], fold)
    return wildmatch(pattern, basename, pathname=False, fold=fold)


def match_pathname(path: bytes, base: bytes, pattern: bytes, literal: int, fold: bool) -> bool:
    """dir.c's match_pathname(): `pattern` relative to the folder `base` (b"": the top)."""
    if pattern.startswith(b"/"):
        pattern = pattern[1:]
        literal -= 1
    if base:
        if len(path) < len(base) + 1 or path[len(base)] != _SLASH:
            return False
        if not _same(path[: len(base)], base, fold):
            return False
        name = path[len(base) + 1 :]
    else:
        name = path
    if literal:
        if literal > len(name) or not _same(pattern[:literal], name[:literal], fold):
            return False
        pattern = pattern[literal:]
        name = name[literal:]
        if not pattern and not name:
            return True
    return wildmatch(pattern, name, pathname=True, fold=fold)


def loose_regex(pattern: bytes, pathname: bool) -> bytes:
    """A regular expression that matches at least every text `pattern` matches, to rule texts
    out before wildmatch decides: a single `*` with `pathname` is `[^/]*`, other `*` runs are
    `.*` (`**/` may match no folder), `?` and an escaped byte are one byte, and everything from
    a `[` on is anything (a set's end is subtle to find)."""
    out = []
    index = 0
    while index < len(pattern):
        byte = pattern[index]
        if byte == _STAR:
            end = index
            while end < len(pattern) and pattern[end] == _STAR:
                end += 1
            if pathname and end - index == 1:
                out.append(b"[^/]*")
            else:
                out.append(b".*")
                if end - index > 1 and pattern[end : end + 1] == b"/":
                    end += 1
            index = end
        elif byte == _BRACKET:
            out.append(b".*")
            break
        elif byte == _QUESTION:
            out.append(b"[^/]" if pathname else b".")
            index += 1
        elif byte == _BACKSLASH:
            out.append(b".")
            index += 2
        else:
            out.append(re.escape(pattern[index : index + 1]))
            index += 1
    return b"".join(out)
