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
_BINARY_SCAN = 8_000  # git's buffer_is_binary looks this far for a NUL
# Inside a line, whitespace is git's isspace() but the newline: space, tab, carriage return.
_RUN = re.compile(rb"[ \t\r]+")
_AT_EOL = re.compile(rb"[ \t\r]+(?=\n|\Z)")


def only_whitespace(old: bytes, new: bytes, mode: Whitespace) -> bool:
    """Whether `git diff` with `mode`'s option would show nothing between `old` and `new`."""
    if old == new:
        return True
    if b"\0" in old[:_BINARY_SCAN] or b"\0" in new[:_BINARY_SCAN]:
        return False
    # git matches line to line, so a line added, even a blank one, is shown
    return _lines(old, mode) == _lines(new, mode)


def _lines(data: bytes, mode: Whitespace) -> list[bytes]:
    """The lines as git's diff counts them (a last line without a newline is still a line),
    each without the whitespace `mode` ignores: all of it, or at its end with each other run
    made one space, or at its end only."""
    if mode is Whitespace.ALL_SPACE:
        normal = data.translate(None, b" \t\r")
    else:
        normal = _AT_EOL.sub(b"", data)
        if mode is Whitespace.SPACE_CHANGE:
            normal = _RUN.sub(b" ", normal)
    lines = normal.split(b"\n")  # the newlines are all still there: as many lines as in data
    if data.endswith(b"\n") or not data:
        lines.pop()
    return lines
