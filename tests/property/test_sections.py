"""Properties of the PR-description section parser."""

from hypothesis import given
from hypothesis import strategies as st

from cagr_core.sections import Body, Found, check_section

from .strategies import heading_name, substantive_line

MARKER = "Reason:"


def section(name: str, lines: list[str]) -> str:
    return "\n".join([f"## {name}", "", *lines, ""])


class TestOutsideText:
    """Text outside any heading never satisfies a section."""

    @given(st.lists(substantive_line, max_size=5), heading_name)
    def test_preamble_never_satisfies(self, lines: list[str], name: str) -> None:
        body = Body.parse("\n\n".join(f"{MARKER} {line}" for line in lines))
        assert body.section(name).found is Found.MISSING
        assert check_section(body.section(name), MARKER) is not None
        assert check_section(body.section(name), None) is not None


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
        first = Body.parse("\n".join(section(n, sections[n]) for n in names))
        second = Body.parse("\n".join(section(n, sections[n]) for n in shuffled))
        for name in names:
            one, other = first.section(name), second.section(name)
            assert (one.found, one.lines) == (other.found, other.lines)
            if one.found is Found.FOUND:  # only where it stands: no heading ends the last one
                assert one.ended == (name != names[-1])
                assert other.ended == (name != shuffled[-1])


class TestFences:
    """Headings inside fenced code never count."""

    @given(heading_name, substantive_line, st.sampled_from(["```", "~~~", "````"]))
    def test_fenced_heading_is_not_a_section(self, name: str, line: str, fence: str) -> None:
        body = Body.parse(f"{fence}\n## {name}\n{MARKER} {line}\n{fence}\n")
        assert body.section(name).found is Found.MISSING


class TestSubstance:
    """A marker needs real text after it; placeholders and comments are not text."""

    @given(heading_name, substantive_line)
    def test_marker_with_text_passes(self, name: str, line: str) -> None:
        body = Body.parse(section(name, [f"{MARKER} {line}"]))
        assert check_section(body.section(name.lower()), MARKER) is None

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
        body = Body.parse(section(name, [MARKER, *lines]))
        assert check_section(body.section(name), MARKER) is not None

    @given(heading_name, substantive_line, st.integers(min_value=2, max_value=3))
    def test_duplicates_are_reported(self, name: str, line: str, copies: int) -> None:
        body = Body.parse("\n".join(section(name, [line]) for _ in range(copies)))
        assert body.section(name).found is Found.DUPLICATE

    @given(st.text(max_size=200), heading_name)
    def test_any_text_parses(self, text: str, name: str) -> None:
        found = Body.parse(text).section(name)
        assert found.found in (Found.FOUND, Found.MISSING, Found.DUPLICATE)
