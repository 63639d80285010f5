"""Whether an edit changes only whitespace: what `add_only`'s `ignore_whitespace` lets through.

Each mode is one of git's, and means exactly what it means to `git diff`: the edit passes when
`git diff` with that option would show nothing. Whitespace is git's: space, tab, newline and
carriage return (not form feed or vertical tab). A file with a NUL byte in its first 8,000 bytes
is binary to git, whose whitespace options never apply to it; here neither.
"""

from __future__ import annotations

import enum
import re


class Whitespace(enum.Enum):
    """Which whitespace an `add_only` rule does not count as an edit, named as git's options."""

    ALL_SPACE = "all-space"  # git diff -w: any whitespace, even where the other side has none
    SPACE_CHANGE = "space-change"  # git diff -b: the amount of whitespace, and whitespace at eol
    SPACE_AT_EOL = "space-at-eol"  # git diff --ignore-space-at-eol: whitespace at line ends

    @property
    def git_option(self) -> str:
        """The `git diff` option that ignores the same whitespace."""
        return _GIT_OPTION[self]


_GIT_OPTION = {
    Whitespace.ALL_SPACE: "-w",
    Whitespace.SPACE_CHANGE: "-b",
    Whitespace.SPACE_AT_EOL: "--ignore-space-at-eol",
}
_SPACE = b" \t\n\r"  # git's isspace()
_RUN = re.compile(rb"[ \t\n\r]+")
_BINARY_SCAN = 8_000  # git's buffer_is_binary looks this far for a NUL


def only_whitespace(old: bytes, new: bytes, mode: Whitespace) -> bool:
    """Whether `git diff` with `mode`'s option would show nothing between `old` and `new`."""
    if old == new:
        return True
    if b"\0" in old[:_BINARY_SCAN] or b"\0" in new[:_BINARY_SCAN]:
        return False
    before, after = _lines(old), _lines(new)
    if len(before) != len(after):
        return False  # git matches line to line: a line added, even a blank one, is shown
    same = _NORMAL[mode]
    return all(a == b or same(a) == same(b) for a, b in zip(before, after, strict=True))


def _lines(data: bytes) -> list[bytes]:
    """The lines as git's diff counts them (a last line without a newline is still a line)."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def _without_space(line: bytes) -> bytes:
    return line.translate(None, _SPACE)


def _one_space_per_run(line: bytes) -> bytes:
    return _RUN.sub(b" ", line.rstrip(_SPACE))


def _without_trailing_space(line: bytes) -> bytes:
    return line.rstrip(_SPACE)


_NORMAL = {
    Whitespace.ALL_SPACE: _without_space,
    Whitespace.SPACE_CHANGE: _one_space_per_run,
    Whitespace.SPACE_AT_EOL: _without_trailing_space,
}
