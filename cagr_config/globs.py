r"""Glob patterns checked and compiled to regular expressions, with wcmatch and bracex.

The half of path globs that reads pattern syntax (cagr_core.globs matches with what it makes,
using `re` alone). A pattern is checked (PatternError points at the bad part), its braces are
expanded, and each alternative is translated to the regular expressions wcmatch itself matches
with (`glob.translate`, `fnmatch.translate` per name), so a matcher built from them answers as
wcmatch does (a plain pattern is translated here, to the same text, without importing
wcmatch: see `glob_translate`). Each alternative is also filed for the rule index (see
cagr_core.rule_index): under a literal part every path it matches must have, when one can tell.

Named parts (`{app}`: a lowercase name other than dir, name and ext) are what brace expansion
leaves as written; any other brace it leaves (`{X}`, `{}`) is an error, as a literal brace is
written `\{`. A part is translated as a private character wcmatch passes through, then cut out
of the expression: what is around it is exactly wcmatch's own translation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise, takewhile

from cagr_core.errors import PatternError
from cagr_core.globs import (
    ANY_PART,
    GLOB_CHARS,
    GLOBSTAR,
    PART_NAME,
    NamedNames,
    Names,
    PathMatcher,
    Piece,
    Place,
    brace_groups,
    part_names,
)

# wcmatch's flags, as numbers (tests/property/test_plain_globs.py checks them against wcmatch's):
# glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB | glob.FORCEUNIX | glob.CASE, with glob.MATCHBASE for
# FREE; fnmatch.DOTMATCH | fnmatch.FORCEUNIX | fnmatch.CASE for one folder or file name.
ANCHORED = 131905
FREE = 140097
_NAME = 131137
DOTGLOB = 64  # glob.DOTGLOB
_ESCAPED = re.compile(r"\\.", re.DOTALL)
MAX_EXPANSIONS = 1000  # per pattern, and for all the patterns of one list together
RESERVED_PARTS = ("dir", "name", "ext")  # a sibling target's own placeholders
Parts = str  # "none": no named parts; "bind": named parts that bind (paths); "fill": used (require)


_VALID: set[tuple[str, Parts]] = set()  # patterns checked in this process that passed


def check_pattern(pattern: str, parts: Parts = "none") -> None:
    """Raise PatternError, pointing at the bad part, for a pattern that would silently misbehave.

    `parts` says what a named part may be here: `none` (not at all), `bind` (a trigger path: it
    names what it matched, so it must be decided by the path) or `fill` (filled in from one).
    """
    # Validating a configuration and compiling it check each pattern, a sibling rule's target
    # once more: wcmatch's translation is most of a check, so a pattern that passed is not
    # checked again.
    if (pattern, parts) in _VALID:
        return
    _check_pattern(pattern, parts)
    _VALID.add((pattern, parts))


def _check_pattern(pattern: str, parts: Parts) -> None:
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
        _check_parts(pattern, bare, alternative, parts)
    _check_globstars(pattern, bare)
    try:
        glob_translate([body], ANCHORED, limit=None)
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


def _check_parts(pattern: str, bare: str, alternative: str, parts: Parts) -> None:
    """Each brace left in the alternative must be a named part, allowed here and, in a trigger
    path, decided by the path alone."""
    seen: set[str] = set()
    for start, end, name in brace_groups(alternative):
        where = bare.find("{" + name + "}")
        at = (where, where + len(name) + 2) if where != -1 else (0, len(pattern))
        if not PART_NAME.fullmatch(name) or name in RESERVED_PARTS:
            why = (
                f"{{{name}}} is a sibling target's placeholder, not a named part"
                if name in RESERVED_PARTS
                else f"{{{name}}} is neither braces with a comma ({{a,b}}), a range ({{1..3}}) nor"
                " a named part (a lowercase name: {app})"
            )
            raise PatternError(pattern, *at, f"{why}; write \\{{ for a literal brace")
        if parts == "none":
            raise PatternError(
                pattern,
                *at,
                f"a named part ({{{name}}}) is for a change rule's paths, require and target;"
                " here, write * (or \\{ for a literal brace)",
            )
        if parts != "bind":
            continue
        if name in seen:
            raise PatternError(
                pattern, *at, f"{{{name}}} is named twice in one pattern; name each part once"
            )
        seen.add(name)
        _check_place(pattern, at, alternative, (start, end, name))


def _check_place(
    pattern: str, at: tuple[int, int], alternative: str, part: tuple[int, int, str]
) -> None:
    """A part that binds must be decided by the path: alone with fixed text in its name, and
    not between two `**` (where it could be any of several folders)."""
    start, end, name = part
    folder_start = alternative.rfind("/", 0, start) + 1
    folder_end = alternative.find("/", end)
    component = alternative[folder_start : len(alternative) if folder_end == -1 else folder_end]
    rest = _ESCAPED.sub("\0\0", component.replace("{" + name + "}", "", 1))
    rest = re.sub(r"\[[^\]]*\]", "?", rest)  # a class is one character
    if "*" in rest or "{" in rest:
        raise PatternError(
            pattern,
            *at,
            f"{{{name}}} shares its folder or file name with another wildcard (* or a named"
            " part), so what it matched would be ambiguous; keep only fixed text (or ? and"
            " [...]) beside it",
        )
    before = alternative[:folder_start].split("/")
    after = alternative[end:].split("/")[1:]
    free = "/" not in alternative  # matches basenames: as if it began with **/
    if (free or GLOBSTAR in before) and GLOBSTAR in after:
        raise PatternError(
            pattern,
            *at,
            f"{{{name}}} stands between two ** and could be any of several folders of one"
            " path; anchor it at the start (apps/{app}/**) or the end (**/{app}/models.py)",
        )


def expand(pattern: str) -> list[str]:
    """The pattern's brace alternatives (escapes kept), as wcmatch expands them; PatternError
    when there are more than MAX_EXPANSIONS."""
    if _PLAIN.fullmatch(pattern):
        return [pattern]  # nothing to expand, as bracex says (tests/property/test_plain_globs.py)
    import bracex  # noqa: PLC0415  # only a pattern with braces or escapes needs it

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


def compile_matcher(patterns: Iterable[str], parts: Parts = "none") -> PathMatcher:
    """Check the patterns and compile them into one PathMatcher; PatternError for the first bad
    one, or when together they expand to more than MAX_EXPANSIONS alternatives. `parts`: what
    named parts may do here (see check_pattern)."""
    patterns = tuple(patterns)
    anchored: list[str] = []
    free: list[str] = []
    regexes: list[str] = []
    deep: list[Names] = []
    alternatives: list[Names | None] = []
    templates: list[NamedNames] = []
    for pattern in patterns:
        check_pattern(pattern, parts)
        body = pattern.removeprefix("/")
        for alternative in expand(body):
            relative = pattern.startswith("/") or "/" in alternative
            template = _template(alternative) if brace_groups(alternative) else None
            names = _names(alternative) if template is None else _wildcards(template)
            templates.append(template or _plain(names))
            if not relative:
                templates[-1] = (None, *templates[-1])
            alternatives.append(names if relative else None)
            if alternative.split("/").count(GLOBSTAR) >= 2:
                deep.append(names)  # as one expression it backtracks exponentially on deep paths
            elif template is not None:
                regexes.append(_whole(alternative, ANCHORED if relative else FREE))
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
    regexes = _translate(free, FREE) + _translate(anchored, ANCHORED) + regexes
    places = tuple(place for pattern in patterns for place in places_of(pattern))
    named = any(part_names(template) for template in templates)
    return PathMatcher(
        patterns,
        tuple(regexes),
        tuple(deep),
        tuple(alternatives),
        places,
        tuple(templates) if named else (),
        named
        and len({frozenset(part_names(template)) for template in templates}) == 1
        and (parts == "bind" or all(_binds(pattern) for pattern in patterns)),
    )


def _binds(pattern: str) -> bool:
    """Whether each named part of the pattern has one place in any match (as in `paths`)."""
    try:
        check_pattern(pattern, "bind")
    except PatternError:
        return False
    return True


def _marker(text: str) -> str:
    """A private-use character the text does not hold: it stands for a named part."""
    return next(chr(c) for c in range(0xE000, 0xF900) if chr(c) not in text)


def _marked(alternative: str) -> tuple[str, str, list[str]]:
    """The alternative with each named part replaced by one marker, the marker, and the parts'
    names in order."""
    marker = _marker(alternative)
    out, names, last = [], [], 0
    for start, end, name in brace_groups(alternative):
        out.append(alternative[last:start] + marker)
        names.append(name)
        last = end
    return "".join(out) + alternative[last:], marker, names


def _pieces(regex: str, marker: str, names: list[str]) -> Piece:
    """A translated expression cut at its markers, each gap naming its part."""
    cut = regex.split(marker)
    if len(cut) != len(names) + 1:
        raise ValueError(f"cannot translate named parts in {regex!r}")
    pieces: list[str] = []
    for text, name in zip(cut, [*names, None], strict=True):
        pieces.append(text)
        if name is not None:
            pieces.append(name)
    return tuple(pieces)


def _template(alternative: str) -> NamedNames:
    """One alternative with named parts, name by name (None for `**`)."""
    parts: list[Piece | None] = []
    for name in alternative.split("/"):
        if name == GLOBSTAR:
            if not parts or parts[-1] is not None:
                parts.append(None)
            continue
        marked, marker, names = _marked(name)
        (regex,) = name_translate([marked])
        parts.append(_pieces(regex, marker, names))
    return tuple(parts)


def _plain(names: Names) -> NamedNames:
    return tuple(None if name is None else (name,) for name in names)


def _wildcards(template: NamedNames) -> Names:
    """The names of an alternative with each named part matched as ANY_PART."""
    return tuple(
        None if piece is None else "".join(ANY_PART if i % 2 else t for i, t in enumerate(piece))
        for piece in template
    )


def _whole(alternative: str, flags: int) -> str:
    """One alternative with named parts as one expression, each part matched as ANY_PART."""
    marked, marker, names = _marked(alternative)
    (regex,) = glob_translate([marked], flags)
    pieces = _pieces(regex, marker, names)
    return "".join(ANY_PART if i % 2 else t for i, t in enumerate(pieces))


def matches(pattern: str, path: str) -> bool:
    """One pattern against one path (compiles each time; compile a matcher for loops)."""
    return compile_matcher([pattern]).matches(path)


def _translate(alternatives: list[str], flags: int) -> list[str]:
    return glob_translate(alternatives, flags) if alternatives else []


def _names(alternative: str) -> Names:
    """One brace-free alternative as a regular expression per name (None for `**`; consecutive
    `**` are one)."""
    parts: list[str | None] = []
    for name in alternative.split("/"):
        if name != GLOBSTAR:
            (regex,) = name_translate([name])
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
    from wcmatch import glob  # noqa: PLC0415  # braces: wcmatch's own expansion decides

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


# A pattern of letters, digits, `.`, `_`, `-`, `/` and the wildcards `*` (at most one per name)
# and `?` is translated here, to exactly wcmatch's expressions (tests/property/test_plain_globs.py
# holds the two to the same output over generated patterns); any other pattern by wcmatch, which
# is then imported: most configurations' globs never need its import (about 7 ms).
_PLAIN = re.compile(r"[A-Za-z0-9._/*?-]*")
_SIMPLE_NAME = re.compile(r"[A-Za-z0-9._?-]*(?:\*[A-Za-z0-9._?-]*)?")
_GLOBSTAR_RE = r"(?:(?!(?:[/]|^)(?:\.{1,2})(?:$|[/])).)*?"
_STAR_START = r"(?=[^/])(?!\.{1,2}(?:$|[/]))"
_QUESTION_START = r"(?!(?:(?<=[/])|(?<=^))(?:\.{1,2})(?:$|[/]))"


def _simple(pattern: str) -> bool:
    return all(
        part == GLOBSTAR or (part and _SIMPLE_NAME.fullmatch(part)) for part in pattern.split("/")
    )


def glob_translate(patterns: list[str], flags: int, limit: int | None = 0) -> list[str]:
    """wcmatch's `glob.translate(patterns, flags=flags, limit=limit)[0]`, flags ANCHORED or FREE."""
    if flags in (ANCHORED, FREE, ANCHORED | DOTGLOB) and all(map(_simple, patterns)):
        # each pattern once, as wcmatch gives them
        return [_glob_regex(pattern, free=flags == FREE) for pattern in dict.fromkeys(patterns)]
    from wcmatch import glob  # noqa: PLC0415

    if limit is None:
        return list(glob.translate(patterns, flags=flags)[0])
    return list(glob.translate(patterns, flags=flags, limit=limit)[0])


def name_translate(names: list[str]) -> list[str]:
    """wcmatch's `fnmatch.translate(names, flags=_NAME, limit=0)[0]`."""
    if all(_SIMPLE_NAME.fullmatch(name) for name in names):
        return [f"^(?s:{_name_body(name)})$" for name in dict.fromkeys(names)]
    from wcmatch import fnmatch  # noqa: PLC0415

    return list(fnmatch.translate(names, flags=_NAME, limit=0)[0])


def _name_body(name: str) -> str:
    out = ["(?=.)"] if name.startswith("*") else []
    for char in name:
        out.append(".*?" if char == "*" else "." if char == "?" else re.escape(char))
    return "".join(out)


def _glob_regex(pattern: str, free: bool) -> str:
    parts = pattern.split("/")
    if free and len(parts) == 1:
        parts = [GLOBSTAR, *parts]
    merged: list[str] = []
    for part in parts:
        if part != GLOBSTAR or not merged or merged[-1] != GLOBSTAR:
            merged.append(part)
    out = []
    for index, part in enumerate(merged):
        last = index == len(merged) - 1
        if part == GLOBSTAR:
            out.append(_GLOBSTAR_RE + ("(?:^|$|[/]+)" if last else "(?:^|[/]+)"))
            continue
        out.append(_component(part))
        if last:
            out.append("[/]*?")
        else:
            out.append("(?=[/])" if merged[index + 1] == GLOBSTAR else "[/]+")
    return f"^(?s:{''.join(out)})$"


def _component(part: str) -> str:
    out = []
    for index, char in enumerate(part):
        if char == "*":
            out.append((_STAR_START if index == 0 else "") + "[^/]*?")
        elif char == "?":
            out.append((_QUESTION_START if index == 0 else "") + "(?![/]).")
        else:
            out.append(re.escape(char))
    return "".join(out)
