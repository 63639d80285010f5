"""Properties of layout rules' name conventions (docs/rules.md, Layout rules): a name written in
a convention follows it, whatever its extensions and folder; a name of two or more words written
in one convention follows no other."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cagr_core.layout import CONVENTIONS, follows, name_regex, stem
from tests.property.strategies import name_word

WRITE = {
    "snake_case": "_".join,
    "kebab-case": "-".join,
    "camelCase": lambda words: words[0] + "".join(w.capitalize() for w in words[1:]),
    "PascalCase": lambda words: "".join(w.capitalize() for w in words),
    "SCREAMING_SNAKE_CASE": lambda words: "_".join(w.upper() for w in words),
}
extensions = st.lists(st.sampled_from(["py", "test", "d", "ts", "tsx"]), max_size=2).map(
    lambda exts: "".join(f".{e}" for e in exts)
)


class TestConventions:
    """The stem is the name up to its first dot after the first character."""

    @given(
        st.sampled_from(sorted(CONVENTIONS)),
        st.lists(name_word, min_size=1, max_size=4),
        extensions,
    )
    def test_a_name_written_in_a_convention_follows_it(
        self, convention: str, words: list[str], ext: str
    ) -> None:
        name = WRITE[convention](words)
        path = f"src/some_dir/{name}{ext}"
        assert stem(path) == name
        assert follows(name_regex(convention), path)

    @given(
        st.sampled_from(sorted(CONVENTIONS)),
        st.sampled_from(sorted(CONVENTIONS)),
        st.lists(name_word.filter(lambda w: len(w) > 1 and w.isalpha()), min_size=2, max_size=4),
    )
    def test_two_words_in_one_convention_follow_no_other(
        self, written: str, other: str, words: list[str]
    ) -> None:
        name = WRITE[written](words)
        assert follows(name_regex(other), f"{name}.py") is (written == other)

    @given(st.text(alphabet="aB_-.0", min_size=1, max_size=8))
    def test_a_regex_convention_is_the_pattern_matched_whole(self, name: str) -> None:
        assert follows(name_regex("regex:[a-z0-9_]+"), name) is all(
            c in "abcdefghijklmnopqrstuvwxyz0123456789_" for c in stem(name)
        )
