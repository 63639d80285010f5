"""Properties of guards' word patterns (docs/hooks.md, Command guards): the program as written
or by its base name, then each later word of the pattern at a later word of the command, in order, `*` matching
any run of characters within a word; against a matcher written the naive way."""

from __future__ import annotations

import posixpath
from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from cagr_core.guards import compile_pattern
from tests.property.strategies import guard_pattern_word, guard_word


def _glob(pattern: str, word: str) -> bool:
    """`*` any run, anything else itself: by recursion over both strings."""

    @cache
    def at(i: int, j: int) -> bool:
        if i == len(pattern):
            return j == len(word)
        if pattern[i] == "*":
            return at(i + 1, j) or (j < len(word) and at(i, j + 1))
        return j < len(word) and pattern[i] == word[j] and at(i + 1, j + 1)

    return at(0, 0)


def _naive(pattern: list[str], words: list[str]) -> bool:
    """Any increasing choice of later words for the later pattern words (every choice tried)."""
    if not words:
        return False
    if not _glob(pattern[0], words[0]) and not _glob(pattern[0], posixpath.basename(words[0])):
        return False

    def rest(p: int, w: int) -> bool:
        if p == len(pattern):
            return True
        return any(_glob(pattern[p], words[k]) and rest(p + 1, k + 1) for k in range(w, len(words)))

    return rest(1, 1)


class TestWordPatterns:
    """A pattern matches a command exactly when some in-order choice of its words does."""

    @given(st.lists(guard_pattern_word, min_size=1, max_size=4), st.lists(guard_word, max_size=6))
    def test_the_matcher_agrees_with_the_naive_one(
        self, pattern: list[str], words: list[str]
    ) -> None:
        compiled = compile_pattern(" ".join(pattern))
        assert compiled.matches(tuple(words)) is _naive(pattern, words)

    @given(st.lists(guard_word, min_size=1, max_size=5), st.lists(guard_word, max_size=3))
    def test_a_command_matches_the_pattern_of_its_own_words_with_others_between(
        self, words: list[str], between: list[str]
    ) -> None:
        spread = [words[0], *between, *words[1:]]
        assert compile_pattern(" ".join(words)).matches(tuple(spread))

    @given(st.lists(guard_word, min_size=2, max_size=4))
    def test_order_matters(self, words: list[str]) -> None:
        pattern = compile_pattern(" ".join(words))
        flipped = (words[0], *reversed(words[1:]))
        assert pattern.matches(flipped) is _naive(words, list(flipped))
