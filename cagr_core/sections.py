"""PR-description sections, shared by `pr_body` rules and `[review].pr_sections`.

A description arrives parsed: cagr_markdown makes the Document (the headings GitHub renders,
and the visible lines of every other block). A section is named `Risk` (level 2) or with its
marks, `### AI usage` (level 3); it starts at a heading of that level whose visible text equals
the name (case-insensitive; `## **Risk**` is Risk) and ends at the next heading of that level or
a higher one. What counts as substance: visible text that is not a comment, a blank line, a
subheading, a line of placeholders only (TODO, TBD, N/A, None, ..., or a rule's own words;
compared after compatibility normalisation and a fold of look-alike letters, so a full-width
or Cyrillic TODO is TODO) or, with a marker, the marker repeated alone; and visible means at
least one letter or number (Unicode categories L and N) once entities are decoded and format,
control and default-ignorable characters removed. A zero-width space, a direction mark, a
Hangul filler, a Braille blank, a dash or a full stop after `Dependency reason:` is no
explanation. A rule with `checklist` also wants a task-list item in the section (the Document
counts them per block: a list item that starts with `[ ]`, `[x]` or `[X]` and white space), so
a checklist's heading kept over prose is no checklist kept.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable

from .values import value

PLACEHOLDER_WORDS = frozenset({"todo", "tbd", "tba", "n/a", "na", "none", "fixme", "xxx", "wip"})
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

    `ended`: a next heading of its level or a higher one closes the section, so the text did
    not simply run out inside it (what makes a verdict on a cut copy of a description hold).
    """

    name: str
    found: Found
    lines: tuple[str, ...] = ()
    ended: bool = False
    rendered: bool = False  # missing, but a setext or HTML heading of the name is there
    # missing, but the name is there otherwise: a heading of another level (`### Risk`) or a
    # line of text that is only the name (`**Risk**`, `Risk:`), as written, for the message
    near: str = ""
    tasks: int = 0  # its task-list items (checkboxes), subsections' included

    def decided_by_cut_text(self) -> bool:
        """Whether a cut copy of the description decides this lookup: a duplicate seen in it
        stays a duplicate; one section decides only when a next heading ends it."""
        return self.found is Found.DUPLICATE or (self.found is Found.FOUND and self.ended)


class Problem(enum.Enum):
    """Why a section does not satisfy a requirement."""

    MISSING = "missing"
    NOT_ATX = "not-atx"
    DUPLICATE = "duplicate"
    EMPTY = "empty"
    NO_MARKER = "no-marker"
    MARKER_ALONE = "marker-alone"
    NO_CHECKLIST = "no-checklist"


def visible_text(text: str) -> str:
    """`text` without what renders as nothing: control and format characters (categories Cc
    and Cf; tabs and line breaks stay) and Unicode's default-ignorable code points."""
    text = _CONTROL.sub("", _IGNORABLE.sub("", text))
    if text.isascii():
        return text
    import unicodedata  # noqa: PLC0415  # only for text beyond ASCII

    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def _folded(run: str) -> str:
    """A run of letters and numbers as placeholder detection compares it: compatibility form
    (NFKC: full-width and mathematical letters, superscripts), look-alike letters folded to
    Latin, case folded. Only letters and numbers stay: a mark NFKC turns into a letter (U+0345
    into an iota) was none to begin with."""
    if run.isascii():
        return run.casefold()
    import unicodedata  # noqa: PLC0415  # only for text beyond ASCII

    from .lookalikes import LOOKALIKES  # noqa: PLC0415

    folded = unicodedata.normalize("NFKC", run).translate(LOOKALIKES).casefold()
    return "".join(char for char in folded if char.isalnum())


def _runs(line: str) -> list[str]:
    """The runs of letters and numbers of a line (categories L and N; `isalnum` is exactly
    those), without the characters that render as nothing, each folded."""
    runs: list[str] = []
    current: list[str] = []
    for char in [*_IGNORABLE.sub("", line), " "]:
        if char.isalnum():
            current.append(char)
        elif current:
            folded = _folded("".join(current))
            if folded:
                runs.append(folded)
            current = []
    return runs


def _words_of(words: Iterable[str]) -> frozenset[str]:
    """Placeholder words as lines are compared with them: their letters and numbers, folded."""
    return frozenset(folded for word in words if (folded := "".join(_runs(word))))


_DEFAULT_WORDS = _words_of(PLACEHOLDER_WORDS)
_KNOWN_WORDS: dict[tuple[str, ...], frozenset[str]] = {}


def placeholder_words(words: tuple[str, ...] | None) -> frozenset[str]:
    """A rule's placeholder words as compared (None: the default ones)."""
    if words is None:
        return _DEFAULT_WORDS
    known = _KNOWN_WORDS.get(words)
    if known is None:
        known = _KNOWN_WORDS[words] = _words_of(words)
    return known


def _normalize_name(text: str) -> str:
    return _SPACE.sub(" ", visible_text(text)).strip().casefold()


def _near_miss(document: Document, level: int, wanted: str) -> str:
    """For a section that is missing, the first place its name is written otherwise: an ATX
    heading of another level (`### Risk`), or a line of text that is only the name (`Risk`,
    `Risk:`, as `**Risk**` reads); "" when there is none."""
    for block in document:
        if isinstance(block, Heading):
            if block.atx and block.level != level and _normalize_name(block.text) == wanted:
                return f"{'#' * block.level} {block.text}"
            continue
        for line in block.lines:
            short = len(line) <= 2 * len(wanted) + 8  # most lines, at once
            if short and _normalize_name(line).rstrip(": ") == wanted:
                return line.strip()
    return ""


def is_placeholder(line: str, words: frozenset[str] = _DEFAULT_WORDS) -> bool:
    """A line with nothing to read: no letter or number, or only placeholders (`words`: as
    placeholder_words gives them), each alone or spelt with punctuation between its letters
    (N/A, T.B.D.), between punctuation and invisible characters: `TODO`, `TODO / TBD`."""
    runs = _runs(line)
    if not runs:
        return True
    longest = max((len(word) for word in words), default=0)
    # ends[i]: the runs from i on are placeholders, one after another.
    ends = [False] * len(runs) + [True]
    for start in range(len(runs) - 1, -1, -1):
        joined = ""
        for stop in range(start, len(runs)):
            joined += runs[stop]
            if len(joined) > longest:
                break
            if ends[stop + 1] and joined in words:
                ends[start] = True
                break
    return ends[0]


@value
class Heading:
    """A heading of a parsed description: its level (1 to 6), its visible text, and whether it
    is an ATX heading (`## Risk`) rather than a setext one (underlined)."""

    level: int
    text: str
    atx: bool = True


@value
class Content:
    """The text of a block that is not a heading, line by line, as a reader sees it, and how
    many task-list items (`- [ ] ...`, `- [x] ...`: the checkboxes GitHub renders) it holds."""

    lines: tuple[str, ...]
    tasks: int = 0


Document = tuple[Heading | Content, ...]  # a parsed description's top-level blocks, in order


_MARKS = re.compile(r"(#+)(.*)\Z", re.DOTALL)


class HeadingError(ValueError):
    """A section name whose marks say no heading level (`#######`, `##Risk`)."""


def heading_level(name: str) -> tuple[int, str]:
    """A section's level and name: `Risk` is level 2, `### AI usage` level 3 (1 to 6 `#`,
    then a space); HeadingError for marks that name no level."""
    stripped = name.strip()
    marked = _MARKS.match(stripped)
    if marked is None:
        return 2, stripped
    marks, rest = marked.groups()
    if len(marks) > 6:
        raise HeadingError(f"{marks} is no heading: a heading has 1 to 6 #")
    if not rest[:1].isspace() or not rest.strip():
        raise HeadingError(
            f"write a space between the marks and the name ({marks} {rest.strip() or 'Risk'}),"
            " or the name alone for a level-2 heading"
        )
    return len(marks), rest.strip()


def heading_text(name: str) -> str:
    """A section's name without its marks: `AI usage` for `### AI usage`."""
    return heading_level(name)[1]


def heading_marks(name: str) -> str:
    """A section as a heading is written: `## Risk` for `Risk`."""
    level, text = heading_level(name)
    return f"{'#' * level} {text}"


def find_section(document: Document, name: str) -> Section:
    """The one section called `name` (`Risk` is level 2, `### AI usage` level 3): from its ATX
    heading to the next heading of that level or a higher one.

    Every heading GitHub renders (setext, `<h2>`) ends a section and counts as a second one of
    its name, but only an ATX heading starts one (the proposal's rule): a section written
    otherwise is missing, and `rendered` says a heading of its name is there in another form.
    """
    level, text = heading_level(name)
    wanted = _normalize_name(text)
    bodies: list[list[str]] = []
    tasks: list[int] = []  # each body's task-list items
    rendered = 0  # headings of the name in another form than ATX
    current: list[str] | None = None
    ended = False
    for block in document:
        if isinstance(block, Heading):
            if block.level > level:
                continue  # a subheading is structure: no text of the section
            if current is not None:
                ended = True
            current = None
            if block.level == level and _normalize_name(block.text) == wanted:
                if block.atx:
                    current = []
                    bodies.append(current)
                    tasks.append(0)
                else:
                    rendered += 1
        elif current is not None:
            current.extend(block.lines)
            tasks[-1] += block.tasks
    if len(bodies) + rendered > 1:
        return Section(name, Found.DUPLICATE)
    if not bodies:
        near = "" if rendered else _near_miss(document, level, wanted)
        return Section(name, Found.MISSING, rendered=rendered > 0, near=near)
    lines = (visible_text(line).strip() for line in bodies[0])
    return Section(name, Found.FOUND, tuple(line for line in lines if line), ended, tasks=tasks[0])


_PROBLEMS = {
    Problem.MISSING: "the PR body has no `{heading}` section",
    Problem.NOT_ATX: (
        "the PR body has no `{heading}` section (its {section} heading is underlined or HTML:"
        " write it as `{heading}`)"
    ),
    Problem.DUPLICATE: "the PR body has more than one `{heading}` section",
    Problem.EMPTY: "{section} has no text beyond placeholders",
    Problem.NO_MARKER: "{section} lacks `{contains}`",
    Problem.MARKER_ALONE: "{section} has `{contains}` with no explanation after it",
    Problem.NO_CHECKLIST: (
        "`{heading}` has no checklist: keep the template's `- [ ]` items (tick the ones done)"
    ),
}


def describe_problem(
    problem: Problem,
    section: str,
    contains: str | None,
    empty_body: bool = False,
    found: Section | None = None,
) -> str:
    """What is wrong, for a message: 'Risk lacks `Dependency reason:`'; `found`, the lookup,
    tells an empty section from one of placeholders and names a near miss."""
    if empty_body:
        return "the PR body is empty"
    heading = heading_marks(section)
    said = _PROBLEMS[problem].format(
        section=heading_text(section), heading=heading, contains=contains
    )
    if found is None:
        return said
    if problem is Problem.EMPTY and not found.lines:
        return f"{heading_text(section)} is empty"
    if problem is Problem.MISSING and found.near.startswith("#"):
        level = len(found.near) - len(found.near.lstrip("#"))
        return f"{said} (it has `{found.near}`, a level-{level} heading: write `{heading}`)"
    if problem is Problem.MISSING and found.near:
        return f"{said} (`{found.near}` is a line of text there, not a heading: write `{heading}`)"
    return said


def check_section(
    section: Section,
    contains: str | None,
    placeholders: tuple[str, ...] | None = None,
    *,
    checklist: bool = False,
) -> Problem | None:
    """None when the section has substance (after `contains`, when given) and, with
    `checklist`, at least one task-list item; else the problem. `placeholders`: the rule's own
    placeholder words (None: the default ones)."""
    if section.found is Found.MISSING:
        return Problem.NOT_ATX if section.rendered else Problem.MISSING
    if section.found is Found.DUPLICATE:
        return Problem.DUPLICATE
    if checklist and not section.tasks:
        return Problem.NO_CHECKLIST
    words = placeholder_words(placeholders)
    if contains is None:
        substantive = any(not is_placeholder(line, words) for line in section.lines)
        return None if substantive else Problem.EMPTY
    text = "\n".join(section.lines)
    contains = visible_text(contains)  # a marker written with invisible characters reads the same
    where = text.find(contains)
    if where == -1:
        return Problem.NO_MARKER
    after = text[where + len(contains) :].replace(contains, "\n")
    substantive = any(not is_placeholder(line, words) for line in after.splitlines())
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
