"""Where the index files patterns, and that it answers exactly as the matchers do."""

import itertools

import pytest

from cagr_config.globs import ANCHORED, FREE, _alternatives, compile_matcher, places_of
from cagr_core.rule_index import RuleIndex


class TestPlaces:
    """Each pattern files under a literal part every path it matches has, or nowhere."""

    @pytest.mark.parametrize(
        ("pattern", "places"),
        [
            ("/CHANGELOG.md", [("path", "CHANGELOG.md")]),
            ("docs/index.md", [("path", "docs/index.md")]),
            ("package.json", [("name", "package.json")]),
            ("src/**", [("folder", "src")]),
            ("/pkg/src/**/*.ts", [("folder", "pkg/src")]),
            ("*.ts", [("end", ".ts")]),
            ("**/*.test.ts", [("end", ".test.ts")]),
            ("/*.md", [("end", ".md")]),
            ("**/migrations/**", [("part", "migrations")]),
            ("*.{ts,tsx}", [("end", ".ts"), ("end", ".tsx")]),
            ("{src,lib}/**", [("folder", "lib"), ("folder", "src")]),
            ("{a,b/c}", [("name", "a"), ("path", "b/c")]),  # a slash makes it root-relative
            ("a{b}c", [("end", "c")]),  # one alternative: wcmatch keeps the braces literally
            ("*", [None]),
            ("test_*", [None]),
            ("src*/x/**", [("part", "x")]),
            ("\\*.ts", [None]),  # escapes are left to the matcher
            ("a{1..3}", [None]),  # a range: wcmatch expands it, this index does not
            ("x/{a,}", [None, ("path", "x/a")]),  # an empty alternative leaves x/ (odd)
        ],
    )
    def test_place(self, pattern: str, places: list[tuple[str, str] | None]) -> None:
        assert sorted(places_of(pattern), key=str) == sorted(places, key=str)

    def test_alternatives_are_accepted_only_when_wcmatch_agrees(self) -> None:
        assert _alternatives("{a,{b,c}}/x", ANCHORED) == ["a/x", "b/x", "c/x"]
        assert _alternatives("{a..c}", FREE) is None
        assert _alternatives("a{1..3}", FREE) is None
        assert _alternatives("x\\{a,b}", FREE) is None


# Paths git never produces, but a Change or an unreadable path may name: wcmatch matches
# `a//b` like `a/b` and never matches `.` or `..` components, so the index must ask it.
ODD_PATHS = ["a//b", "a//x.ts", "./x.ts", "a/./x.ts", "../b", "a/../a/b", "a/.", "x.ts/.."]
PATTERNS = ["a/b", "/a/b", "b", "x.ts", "{x,y}.ts", "*.ts", "a/**", "**/b", "a/*", "*/b", "**"]


@pytest.mark.parametrize("path", ODD_PATHS)
def test_odd_paths_are_left_to_the_matchers(path: str) -> None:
    matchers = [compile_matcher([pattern]) for pattern in PATTERNS]
    found = RuleIndex.build(matchers).match([path])
    for matcher in matchers:
        assert found.positions(matcher) == ([0] if matcher.matches(path) else [])


def test_every_pattern_against_every_path() -> None:
    paths = ["a/b", "b", "a/x.ts", "x.ts", "a/a/b", "y.ts", "c/b", ".a/b", "CHANGELOG.md"]
    groups = [p for n in (1, 2) for p in itertools.combinations(PATTERNS, n)]
    matchers = [compile_matcher(group) for group in groups]
    found = RuleIndex.build(matchers).match(paths)
    for matcher in matchers:
        expected = [n for n, path in enumerate(paths) if matcher.matches(path)]
        assert found.positions(matcher) == expected, matcher.patterns


def test_a_pathological_pattern_is_not_tried_on_a_path_it_cannot_match() -> None:
    # wcmatch takes about a minute on this pair; the path does not end in b, so the index
    # never asks it. (A regression here shows as a very slow test, not a failure.)
    matcher = compile_matcher(["**/a*/**/a*/**/a*/**/a*/**/a*/**/b"])
    deep = "/".join(["a"] * 80 + ["c"])
    shallow = "a/a/a/a/a/b"
    assert matcher.matches(shallow)
    assert RuleIndex.build([matcher]).match([deep, shallow]).positions(matcher) == [1]
