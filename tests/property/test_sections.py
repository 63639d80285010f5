"""Properties of the PR-description section parser."""

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from cagr_core.sections import (
    Found,
    Problem,
    check_section,
    find_section,
    missing_sections,
    visible_text,
)
from tests.property.strategies import heading_name, substantive_line
from tests.support.evaluation import document, section_of

MARKER = "Reason:"
_TASK_LINE_SHAPE = re.compile(r"(?:[-*+]|1[.)]) \[[ xX]\] ")


def section(name: str, lines: list[str]) -> str:
    return "\n".join([f"## {name}", "", *lines, ""])


class TestOutsideText:
    """Text outside any heading never satisfies a section."""

    @given(st.lists(substantive_line, max_size=5), heading_name)
    def test_preamble_never_satisfies(self, lines: list[str], name: str) -> None:
        body = document("\n\n".join(f"{MARKER} {line}" for line in lines))
        assert find_section(body, name).found is Found.MISSING
        assert check_section(find_section(body, name), MARKER) is not None
        assert check_section(find_section(body, name), None) is not None


class TestOrder:
    """Reordering unrelated sections changes nothing about the one looked up but whether a
    next heading ends it."""

    @given(
        st.dictionaries(
            heading_name, st.lists(substantive_line, max_size=3), min_size=1, max_size=5
        ),
        st.randoms(use_true_random=False),
    )
    def test_reordering_sections(self, sections: dict[str, list[str]], rng: object) -> None:
        names = list(sections)
        shuffled = names[:]
        rng.shuffle(shuffled)  # type: ignore[attr-defined]
        first = document("\n".join(section(n, sections[n]) for n in names))
        second = document("\n".join(section(n, sections[n]) for n in shuffled))
        for name in names:
            one, other = find_section(first, name), find_section(second, name)
            assert (one.found, one.lines) == (other.found, other.lines)
            if one.found is Found.FOUND:  # only where it stands: no heading ends the last one
                assert one.ended == (name != names[-1])
                assert other.ended == (name != shuffled[-1])


class TestFences:
    """Headings inside fenced code never count."""

    @given(heading_name, substantive_line, st.sampled_from(["```", "~~~", "````"]))
    def test_fenced_heading_is_not_a_section(self, name: str, line: str, fence: str) -> None:
        body = document(f"{fence}\n## {name}\n{MARKER} {line}\n{fence}\n")
        assert find_section(body, name).found is Found.MISSING


class TestSubstance:
    """A marker needs real text after it; placeholders and comments are not text."""

    @given(heading_name, substantive_line)
    def test_marker_with_text_passes(self, name: str, line: str) -> None:
        body = document(section(name, [f"{MARKER} {line}"]))
        assert check_section(find_section(body, name.lower()), MARKER) is None

    @given(
        heading_name,
        st.lists(
            st.sampled_from(
                ["TODO", "tbd", "N/A", "None.", "- [ ] TODO", "<!-- fill in -->", MARKER]
            ),
            max_size=6,
        ),
    )
    def test_placeholders_never_pass(self, name: str, lines: list[str]) -> None:
        body = document(section(name, [MARKER, *lines]))
        assert check_section(find_section(body, name), MARKER) is not None

    @given(heading_name, substantive_line, st.integers(min_value=2, max_value=3))
    def test_duplicates_are_reported(self, name: str, line: str, copies: int) -> None:
        body = document("\n".join(section(name, [line]) for _ in range(copies)))
        assert find_section(body, name).found is Found.DUPLICATE

    @given(st.text(max_size=200), heading_name)
    def test_any_text_parses(self, text: str, name: str) -> None:
        found = section_of(text, name)
        assert found.found in (Found.FOUND, Found.MISSING, Found.DUPLICATE)


# Characters that render as nothing or as a mark without meaning, and never start Markdown
# syntax that could hide what follows them (a comment, a link definition, a code fence) or
# show an entity as written (a backslash before it).
_INVISIBLE = st.one_of(
    st.characters(categories=("Cf", "Mn", "Me", "Zs")),
    st.sampled_from("\u3164\uffa0\u115f\u1160\u2800\u2014\u00b7\u3002.,;:!?-'\"\x00\x07"),
    st.sampled_from(["&#8203;", "&nbsp;", "&shy;", "&#12644;", "&zwj;"]),
)
_READABLE = st.characters(categories=("L", "N")).filter(
    lambda c: c not in "\u3164\uffa0\u115f\u1160"
)


class TestVisibleText:
    """Substance is at least one letter or number (categories L and N) after entity decoding
    and removal of format, control and default-ignorable characters; the Hangul fillers are
    letters (Lo) that render as nothing, so they are not substance."""

    @given(st.characters())
    def test_letters_and_numbers_are_categories_l_and_n(self, char: str) -> None:
        assert char.isalnum() == (unicodedata.category(char)[0] in "LN")

    @given(st.text())
    def test_visible_text_drops_format_and_control_characters_only(self, text: str) -> None:
        kept = visible_text(text)
        assert all(c in "\t\n" or unicodedata.category(c) not in ("Cc", "Cf") for c in kept)
        removed = iter(text)
        assert all(any(c == d for d in removed) for c in kept)  # the rest, in order

    @given(st.text(alphabet=st.characters(exclude_categories=("L", "N"))), heading_name)
    def test_no_letter_or_number_never_passes(self, after: str, name: str) -> None:
        """Whatever Markdown the text makes, it cannot make a letter: entities need them."""
        body = document(section(name, [f"{MARKER} {after}"]))
        assert check_section(find_section(body, name), MARKER) is not None
        alone = document(section(name, [after]))
        assert check_section(find_section(alone, name), None) is not None

    @given(st.lists(_INVISIBLE, max_size=6).map("".join), heading_name)
    def test_invisible_characters_and_fillers_never_pass(self, after: str, name: str) -> None:
        body = document(section(name, [f"{MARKER} {after}"]))
        assert check_section(find_section(body, name), MARKER) is not None

    @given(
        st.lists(_INVISIBLE, max_size=3).map("".join),
        _READABLE,
        st.lists(_INVISIBLE, max_size=3).map("".join),
        heading_name,
    )
    def test_one_readable_character_among_them_passes(
        self, before: str, char: str, after: str, name: str
    ) -> None:
        body = document(section(name, [f"{MARKER} {before}{char}{after}"]))
        assert check_section(find_section(body, name), MARKER) is None

    @given(heading_name, st.lists(_INVISIBLE.filter(lambda c: c.strip()), max_size=3))
    def test_both_checks_find_a_heading_through_invisible_characters(
        self, name: str, inserted: list[str]
    ) -> None:
        hidden = "".join(c for c in inserted if unicodedata.category(c[0]) == "Cf")
        body = document(f"## {name[:1]}{hidden}{name[1:]}\nok\n")
        found = find_section(body, name).found is Found.FOUND
        assert found == (missing_sections(body, [name]) == [])
        assert found


_WORDS = substantive_line.map(lambda text: text.strip() or "x")
_TASK_LINE = st.builds(
    "{} [{}] {}".format,
    st.sampled_from(["-", "*", "+", "1.", "1)"]),
    st.sampled_from(" xX"),
    _WORDS,
)
_OTHER_LINE = st.one_of(
    _WORDS,
    _WORDS.map("- {}".format),  # a list item without a box
    _WORDS.map("[ ] {}".format),  # a box outside a list
    _WORDS.map("- [x]{}".format),  # no space after the box
    _WORDS.map("- [y] {}".format),
    st.sampled_from(["TODO", "- [ ] TODO", "<!-- - [ ] a -->", "```\n- [ ] fenced\n```"]),
)


class TestChecklist:
    """With `checklist`, a section must also hold a task-list item (a list item starting with
    `[ ]`, `[x]` or `[X]` and a space); without it, the verdict is the text's alone."""

    @given(heading_name, st.lists(st.one_of(_TASK_LINE, _OTHER_LINE), max_size=6))
    def test_a_checklist_is_a_task_item_on_top_of_substance(
        self, name: str, lines: list[str]
    ) -> None:
        found = find_section(document("\n\n".join([f"## {name}", *lines, ""])), name)
        tasks = sum(1 for line in lines if _TASK_LINE_SHAPE.match(line))
        assert found.tasks == tasks
        plain = check_section(found, None)
        if tasks:
            assert check_section(found, None, checklist=True) is plain
        else:
            assert check_section(found, None, checklist=True) is Problem.NO_CHECKLIST

    @given(heading_name, st.lists(_TASK_LINE, min_size=1, max_size=3), substantive_line)
    def test_a_checklist_elsewhere_does_not_count(
        self, name: str, tasks: list[str], line: str
    ) -> None:
        other = "Z" + name  # never the same name
        text = "\n".join([f"# Top\n- [x] {line}", f"## {name}", line, f"## {other}", *tasks])
        assert section_of(text, name).tasks == 0
        assert section_of(text, other).tasks == len(tasks)
