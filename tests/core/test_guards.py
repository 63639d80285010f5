"""Guards' word patterns: the program by its base name, then each word later, in order; `*`
within a word; and their codec, both ways."""

from __future__ import annotations

import pytest

from cagr_core.data import Damaged
from cagr_core.guards import Guard, compile_pattern, guard_data, guard_from_data


def _words(line: str) -> tuple[str, ...]:
    return tuple(line.split())


@pytest.mark.parametrize(
    ("pattern", "line", "matches"),
    [
        ("git push --force", "git push --force", True),
        ("git push --force", "/usr/bin/git push origin --force", True),
        ("git push --force", "git --force push", False),  # in that order
        ("git push --force", "git push", False),
        ("git push --force*", "git push --force-with-lease", True),
        ("terraform destroy", "terraform -chdir=x destroy -auto-approve", True),
        ("terraform destroy", "terraformx destroy", False),
        ("kubectl delete ns *", "kubectl delete ns prod", True),
        ("kubectl delete ns *", "kubectl delete ns", False),
        ("npm* publish", "npm-cli publish", True),
        ("rm -rf /", "rm -rf /tmp", False),  # words match whole
        ("a.b", "axb", False),  # no other character is special
    ],
)
def test_word_patterns(pattern: str, line: str, matches: bool) -> None:
    assert compile_pattern(pattern).matches(_words(line)) is matches


def test_no_words_match_nothing() -> None:
    assert not compile_pattern("git").matches(())


def test_the_codec_reads_back_what_it_wrote_and_refuses_anything_else() -> None:
    guard = Guard("no-tf", "Ask a person.", (compile_pattern("terraform destroy"),), "a note")
    assert guard_from_data(guard_data(guard)) == guard
    damaged = guard_data(guard) | {"patterns": [["x", [1]]]}
    with pytest.raises(Damaged):
        guard_from_data(damaged)
