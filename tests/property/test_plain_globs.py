"""cagr_config.globs translates plain patterns itself (letters, digits, `.`, `_`, `-`, `/`, `?`
and one `*` per name) and leaves the rest to wcmatch: its expressions must be exactly
wcmatch's, so the compiled form is the same whichever translated it."""

from __future__ import annotations

import bracex
from hypothesis import given
from hypothesis import strategies as st
from wcmatch import fnmatch, glob

from cagr_config import globs

_NAME_CHARS = st.sampled_from(list("ab.-_Z09?*"))
name = st.text(_NAME_CHARS, min_size=1, max_size=6)
part = st.one_of(name, name, st.just("**"))
pattern = st.lists(part, min_size=1, max_size=4).map("/".join)


def test_the_flags_are_wcmatchs() -> None:
    common = glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB | glob.FORCEUNIX | glob.CASE
    assert common == globs.ANCHORED
    assert common | glob.MATCHBASE == globs.FREE
    assert globs._NAME == fnmatch.DOTMATCH | fnmatch.FORCEUNIX | fnmatch.CASE
    assert globs.DOTGLOB == glob.DOTGLOB


@given(st.lists(pattern, min_size=1, max_size=3))
def test_a_pattern_translates_as_wcmatch_translates_it(patterns: list[str]) -> None:
    for flags in (globs.ANCHORED, globs.FREE, globs.ANCHORED | glob.DOTGLOB):
        assert (
            globs.glob_translate(patterns, flags)
            == glob.translate(patterns, flags=flags, limit=0)[0]
        )
        assert (
            globs.glob_translate(patterns, flags, limit=None)
            == glob.translate(patterns, flags=flags)[0]
        )


@given(st.lists(name, min_size=1, max_size=3))
def test_a_name_translates_as_wcmatch_translates_it(names: list[str]) -> None:
    assert globs.name_translate(names) == fnmatch.translate(names, flags=globs._NAME, limit=0)[0]


@given(st.text(st.sampled_from(list("ab./*?-_9")), max_size=12))
def test_a_pattern_without_braces_expands_to_itself_as_bracex_says(text: str) -> None:
    assert globs.expand(text) == bracex.expand(
        text, keep_escapes=True, limit=globs.MAX_EXPANSIONS, return_empty=True
    )
