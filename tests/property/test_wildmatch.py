"""Properties of git's pattern matcher (cagr_git.patterns): what a loose pre-filter must never
rule out, and the literal prefix dir.c compares before wildmatch. git itself is the oracle for
the matcher's answers (tests/git/test_ignore_oracle.py); these hold for any pattern and text."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from cagr_git.patterns import Pattern, loose_regex, match_pathname, wildmatch

# Pattern pieces, each with texts it may match (a text is built beside its pattern, so that
# most examples match and the properties are tested where they bite).
_PIECES = {
    "a": ["a"], "b": ["b"], "/": ["/"], ".": ["."], "*": ["", "ab", "a/b"], "**": ["", "a/", "a/b/"],
    "?": ["a", "/"], "[ab]": ["a", "b"], "[!a]": ["b", "/"], "[a-c]": ["c", "B"], "[]]": ["]"],
    "[": ["["], "\\": ["\\"], "\\*": ["*"], "\\/": ["/"], "\\a": ["a"],
    "**/": ["", "a/", "a/b/"], "/**/": ["/", "/a/"],
}  # fmt: skip
texts = st.text(st.sampled_from("ab/.*[]\\"), max_size=8).map(str.encode)


@st.composite
def pattern_and_text(draw: st.DrawFn) -> tuple[bytes, bytes]:
    pieces = draw(st.lists(st.sampled_from(sorted(_PIECES)), max_size=7))
    pattern = "".join(pieces).encode()
    if draw(st.booleans()):
        return pattern, draw(texts)
    return pattern, "".join(draw(st.sampled_from(_PIECES[p])) for p in pieces).encode()


patterns = pattern_and_text().map(lambda pair: pair[0])


class TestLoosePreFilter:
    """Whatever wildmatch matches, the loose regular expression matches too."""

    @given(pattern_and_text(), st.booleans(), st.booleans())
    def test_never_rules_out_a_match(
        self, pair: tuple[bytes, bytes], pathname: bool, fold: bool
    ) -> None:
        pattern, text = pair
        if wildmatch(pattern, text, pathname=pathname, fold=fold):
            flags = re.DOTALL | (re.IGNORECASE if fold else 0)
            assert re.fullmatch(loose_regex(pattern, pathname), text, flags) is not None

    @given(pattern_and_text(), st.sampled_from([b"", b"a", b"a/b"]), st.booleans())
    def test_never_rules_out_a_path_match(
        self, pair: tuple[bytes, bytes], base: bytes, fold: bool
    ) -> None:
        pattern, text = pair
        parsed = Pattern(pattern, base)
        path = base + b"/" + text if base else text
        if match_pathname(path, base, parsed.text, parsed.literal, fold):
            stripped = parsed.text.removeprefix(b"/")
            regex = (re.escape(base + b"/") if base else b"") + loose_regex(stripped, True)
            flags = re.DOTALL | (re.IGNORECASE if fold else 0)
            assert re.fullmatch(regex, path, flags) is not None


class TestWildmatch:
    """Plain facts of git's matcher."""

    @given(texts)
    def test_a_lone_double_star_matches_everything(self, text: bytes) -> None:
        assert wildmatch(b"**", text, pathname=True)

    @given(texts)
    def test_a_star_never_crosses_a_slash_with_pathname(self, text: bytes) -> None:
        assert wildmatch(b"*", text, pathname=True) == (b"/" not in text)

    @given(texts)
    def test_an_escaped_text_matches_only_itself(self, text: bytes) -> None:
        escaped = b"".join(b"\\" + bytes([c]) for c in text)
        assert wildmatch(escaped, text, pathname=True)
        assert not wildmatch(escaped, text + b"a", pathname=True)
