"""Shell word expansion as data: bash is the oracle for what one word becomes."""

from __future__ import annotations

import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

from cagr_hooks.shell_words import expand, split_commands

VARIABLES = {"V": "a b", "E": "", "G": "gh", "T": " lead and trail "}

_plain = st.text(st.sampled_from("abgh019_./-=:@%+,"), min_size=1, max_size=6)
_single = _plain.map(lambda text: f"'{text} {text}'")
_double_char = st.sampled_from(["a", " ", "'", '\\"', "\\\\", "\\$", "${V}", "${G}", "${E}", "x"])
_double = st.lists(_double_char, max_size=5).map(lambda parts: '"' + "".join(parts) + '"')
_ansi_part = st.sampled_from(["a", "\\x67", "\\150", "\\n", "\\t", "\\\\", "\\'", "\\u00e9", " "])
_ansi = st.lists(_ansi_part, max_size=5).map(lambda parts: "$'" + "".join(parts) + "'")
_escaped = st.sampled_from(["\\a", "\\ ", "\\'", '\\"', "\\\\", "\\$"])
_variable = st.sampled_from(["${V}", "${E}", "${G}", "${T}"])  # braced: no name runs on
_word = st.lists(
    st.one_of(_plain, _single, _double, _ansi, _escaped, _variable), min_size=1, max_size=5
).map("".join)


def bash_fields(word: str) -> list[str]:
    assignments = "; ".join(f"{name}={value!r}" for name, value in VARIABLES.items())
    script = f"{assignments}; printf '%s\\0' START {word}"  # START: printf's format runs once
    result = subprocess.run(["bash", "-c", script], capture_output=True, check=True)
    out = result.stdout.decode("utf-8", "surrogateescape")
    return out.split("\0")[1:-1]


class TestExpand:
    """`expand` gives the fields bash gives: quotes removed, `$'...'` decoded, known
    variables substituted, and unquoted expansions split at blanks."""

    @settings(max_examples=150)  # each example runs bash
    @given(_word)
    def test_fields_are_the_fields_bash_makes(self, word: str) -> None:
        (command,) = split_commands(f"printf x {word}")
        assert [w.raw for w in command.words[2:]] == [word]  # one word to the scanner too
        assert expand(word, VARIABLES) == bash_fields(word)

    @settings(max_examples=100)
    @given(_word)
    def test_a_word_is_unknown_exactly_when_it_needs_a_variable(self, word: str) -> None:
        """bash with `set -u` is the oracle: it refuses to expand a variable it does not have."""
        result = subprocess.run(
            ["bash", "-uc", f"printf '%s\\0' START {word}"], capture_output=True, check=False
        )
        assert (expand(word, {}) is None) == (result.returncode != 0)
