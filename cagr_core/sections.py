"""PR-description sections, shared by `pr_body` rules and `[review].pr_sections`.

A description arrives parsed: cagr_markdown makes the Document (its headings, and the visible
lines of every other block). A section starts at an ATX level-2 heading whose visible text
equals the name (case-insensitive; `## **Risk**` is Risk) and ends at the next level 1 or 2
heading. What counts as substance: visible text that is not a comment, a blank line, a
subheading, a standalone placeholder (TODO, TBD, N/A, None, ...) or, with a marker, the marker
repeated alone; and visible means at least one letter or number (Unicode categories L and N)
once entities are decoded and format, control and default-ignorable characters removed. A
zero-width space, a direction mark, a Hangul filler, a Braille blank, a dash or a full stop
after `Dependency reason:` is no explanation.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable

from .values import value

PLACEHOLDER_WORDS = frozenset({"todo", "tbd", "tba", "n/a", "na", "none", "fixme", "xxx", "wip"})
_PLACEHOLDERS = frozenset(word.replace("/", "") for word in PLACEHOLDER_WORDS)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # category Cc but tab and line feed
# Unicode's Default_Ignorable_Code_Point: characters that render as nothing. Four of them are
# letters (category Lo: the Hangul fillers), so "a letter" alone would count them as text.
_IGNORABLE = re.compile(
    r"[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    r"\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    r"\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
_SPACE = re.compile(r"\s+")


class Found(enum.Enum):
    """How a section lookup came out."""

    FOUND = "found"
    MISSING = "missing"
    DUPLICATE = "duplicate"


@value
class Section:
    """The outcome of looking up one section: its visible content lines when found once.

    `ended`: a next level 1 or 2 heading closes the section, so the text did not simply run out
    inside it (what makes a verdict on a cut copy of a description hold).
    """

    name: str
    found: Found
    lines: tuple[str, ...] = ()
    ended: bool = False

    def decided_by_cut_text(self) -> bool:
        """Whether a cut copy of the description decides this lookup: a duplicate seen in it
        stays a duplicate; one section decides only when a next heading ends it."""
        return self.found is Found.DUPLICATE or (self.found is Found.FOUND and self.ended)


class Problem(enum.Enum):
    """Why a section does not satisfy a requirement."""

    MISSING = "missing"
    DUPLICATE = "duplicate"
    EMPTY = "empty"
    NO_MARKER = "no-marker"
    MARKER_ALONE = "marker-alone"


def visible_text(text: str) -> str:
    """`text` without what renders as nothing: control and format characters (categories Cc
    and Cf; tabs and line breaks stay) and Unicode's default-ignorable code points."""
    text = _CONTROL.sub("", _IGNORABLE.sub("", text))
    if text.isascii():
        return text
    import unicodedata  # noqa: PLC0415  # only for text beyond ASCII

    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def _words(line: str) -> str:
    """The letters and numbers of a line (categories L and N; `isalnum` is exactly those),
    without the ones that render as nothing."""
    return "".join(c for c in _IGNORABLE.sub("", line) if c.isalnum())


def _normalize_name(text: str) -> str:
    return _SPACE.sub(" ", visible_text(text)).strip().casefold()


def is_placeholder(line: str) -> bool:
    """A line with nothing to read: no letter or number, or only a standalone TODO, TBD, N/A,
    None, ... between punctuation and invisible characters."""
    words = _words(line).casefold()
    return not words or words in _PLACEHOLDERS


@value
class Heading:
    """A heading of a parsed description: its level (1 to 6), its visible text, and whether it
    is an ATX heading (`## Risk`) rather than a setext one (underlined)."""

    level: int
    text: str
    atx: bool = True


@value
class Content:
    """The text of a block that is not a heading, line by line, as a reader sees it."""

    lines: tuple[str, ...]


Document = tuple[Heading | Content, ...]  # a parsed description's top-level blocks, in order


def find_section(document: Document, name: str) -> Section:
    """The one level-2 section called `name`: from its ATX heading to the next heading of
    level 1 or 2."""
    wanted = _normalize_name(name)
    bodies: list[list[str]] = []
    current: list[str] | None = None
    ended = False
    for block in document:
        if isinstance(block, Heading):
            if block.level > 2:
                continue  # a subheading is structure: no text of the section
            if current is not None:
                ended = True
            current = None
            if block.level == 2 and block.atx and _normalize_name(block.text) == wanted:
                current = []
                bodies.append(current)
        elif current is not None:
            current.extend(block.lines)
    if not bodies:
        return Section(name, Found.MISSING)
    if len(bodies) > 1:
        return Section(name, Found.DUPLICATE)
    lines = (visible_text(line).strip() for line in bodies[0])
    return Section(name, Found.FOUND, tuple(line for line in lines if line), ended)


_PROBLEMS = {
    Problem.MISSING: "the PR body has no `## {section}` section",
    Problem.DUPLICATE: "the PR body has more than one `## {section}` section",
    Problem.EMPTY: "{section} has no text beyond placeholders",
    Problem.NO_MARKER: "{section} lacks `{contains}`",
    Problem.MARKER_ALONE: "{section} has `{contains}` with no explanation after it",
}


def describe_problem(
    problem: Problem, section: str, contains: str | None, empty_body: bool = False
) -> str:
    """What is wrong, for a message: 'Risk lacks `Dependency reason:`'."""
    if empty_body:
        return "the PR body is empty"
    return _PROBLEMS[problem].format(section=section, contains=contains)


def check_section(section: Section, contains: str | None) -> Problem | None:
    """None when the section has substance (after `contains`, when given); else the problem."""
    if section.found is Found.MISSING:
        return Problem.MISSING
    if section.found is Found.DUPLICATE:
        return Problem.DUPLICATE
    if contains is None:
        return None if any(not is_placeholder(line) for line in section.lines) else Problem.EMPTY
    text = "\n".join(section.lines)
    contains = visible_text(contains)  # a marker written with invisible characters reads the same
    where = text.find(contains)
    if where == -1:
        return Problem.NO_MARKER
    after = text[where + len(contains) :].replace(contains, "\n")
    substantive = any(not is_placeholder(line) for line in after.splitlines())
    return None if substantive else Problem.MARKER_ALONE


def missing_sections(document: Document, names: Iterable[str]) -> list[tuple[str, Problem]]:
    """`[review].pr_sections`: each heading must be present once; its content is not judged."""
    problems = []
    for name in names:
        found = find_section(document, name).found
        if found is Found.MISSING:
            problems.append((name, Problem.MISSING))
        elif found is Found.DUPLICATE:
            problems.append((name, Problem.DUPLICATE))
    return problems
