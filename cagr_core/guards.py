"""Command guards' word patterns: a program, then words that must follow it in that order.

`git push --force` matches a simple command whose program is `git` (as written, or its base
name: `/usr/bin/git` too) and whose later words include `push` and, after it, `--force`, with
anything between them. `*` in a word matches any run of characters (`--force*`, `-*f*`);
nothing else is special. The shell reader (cagr_hooks) turns a command line into simple commands
and their words as the shell would run them; this module only matches words.
"""

from __future__ import annotations

import posixpath
import re

from .data import array, table, text, text_or_none, texts
from .values import value

TYPE_CHECKING = False  # not typing's: every agent shell command may read guards
if TYPE_CHECKING:
    from typing import Any

BUILT_IN = ("guard.no-verify", "guard.force-push-target", "guard.cagr-state")
_compiled: dict[str, re.Pattern[str]] = {}


def word_regex(word: str) -> str:
    """One pattern word as a regular expression matched whole: `*` any run, the rest literal."""
    return ".*".join(re.escape(piece) for piece in word.split("*"))


def pattern_words(pattern: str) -> tuple[str, ...]:
    """A `commands` entry's words, split at white space (quotes are not special)."""
    return tuple(pattern.split())


@value
class GuardPattern:
    """One `commands` entry: its text, and each word's regular expression, program first."""

    source: str
    regexes: tuple[str, ...]

    def matches(self, words: tuple[str | None, ...]) -> bool:
        """Whether a simple command's words (program first) match: the program as written or
        by its base name, then each later pattern word at a later word, in order. A None word
        is one the shell computes, which may be anything: it matches any later pattern word
        (so `terraform $(echo destroy)` may match `terraform destroy`)."""
        if not words or not self.regexes or words[0] is None:
            return False
        program = self.regexes[0]
        if not _full(program, words[0]) and not _full(program, posixpath.basename(words[0])):
            return False
        at = 1
        for regex in self.regexes[1:]:
            while at < len(words) and not _may_be(regex, words[at]):
                at += 1
            if at == len(words):
                return False
            at += 1
        return True

    @property
    def program(self) -> str:
        """The program word as written (for telling whether a line may name it)."""
        return pattern_words(self.source)[0]


@value
class Guard:
    """A configured guard: its id, why (the deny's text), and its patterns (any one denies)."""

    id: str
    reason: str
    patterns: tuple[GuardPattern, ...]
    note: str | None = None

    def matches(self, words: tuple[str | None, ...]) -> bool:
        return any(pattern.matches(words) for pattern in self.patterns)


def compile_pattern(pattern: str) -> GuardPattern:
    """A `commands` entry as its word expressions."""
    return GuardPattern(pattern, tuple(word_regex(word) for word in pattern_words(pattern)))


def _may_be(regex: str, word: str | None) -> bool:
    return word is None or _full(regex, word)


def _full(regex: str, word: str) -> bool:
    compiled = _compiled.get(regex)
    if compiled is None:
        compiled = _compiled[regex] = re.compile(regex, re.DOTALL)
    return compiled.fullmatch(word) is not None


def guard_data(guard: Guard) -> dict[str, Any]:
    """One configured guard as JSON-ready data (the kept configuration and the hook's guard
    file keep it so)."""
    return {
        "id": guard.id,
        "reason": guard.reason,
        "note": guard.note,
        "patterns": [[p.source, list(p.regexes)] for p in guard.patterns],
    }


def guard_from_data(value: object) -> Guard:
    """The guard `guard_data` wrote; Damaged otherwise."""
    item = table(value)
    patterns = []
    for entry in array(item["patterns"]):
        source, regexes = array(entry)
        patterns.append(GuardPattern(text(source), texts(regexes)))
    return Guard(
        text(item["id"]), text(item["reason"]), tuple(patterns), text_or_none(item["note"])
    )
