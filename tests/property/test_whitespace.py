"""`only_whitespace` against git's own diff: for generated pairs of contents, an edit counts as
whitespace only exactly when `git diff --no-index --quiet` with the mode's option exits 0."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cagr_core.whitespace import Whitespace, only_whitespace

_OPTION = {
    Whitespace.ALL_SPACE: "-w",
    Whitespace.SPACE_CHANGE: "-b",
    Whitespace.SPACE_AT_EOL: "--ignore-space-at-eol",
}
_PIECES = [b"a", b"b", b" ", b"  ", b"\t", b"\n", b"\r", b"\r\n", b"\v", b"\f", b"\0", b"\xa0"]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=14).map(b"".join)
# git looks for a NUL in the first 8,000 bytes only: put some content across that line
_LONG = st.tuples(st.integers(7_990, 8_005), _TEXT).map(lambda p: b"x" * p[0] + p[1])
_CONTENT = _TEXT | _LONG


def _git_sees_nothing(root: Path, old: bytes, new: bytes, mode: Whitespace) -> bool:
    (root / "old").write_bytes(old)
    (root / "new").write_bytes(new)
    done = subprocess.run(
        ["git", "diff", "--no-index", "--quiet", _OPTION[mode], "old", "new"],
        cwd=root,
        capture_output=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode == 0


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("whitespace")


@settings(max_examples=int(os.environ.get("CAGR_ORACLE_EXAMPLES", "150")), deadline=None)
@given(_CONTENT, st.booleans(), _CONTENT)
@example(b"add_index :t, [:a, :b]\n", True, b"")  # rubocop's array brackets
@example(b"end", False, b"end\n")  # the newline at the end of the file
@example(b"", False, b"\n")
def test_whitespace_only_is_what_git_diff_shows_nothing_for(
    folder: Path, old: bytes, respaced: bool, other: bytes
) -> None:
    new = _respace(old) if respaced else other  # often only the whitespace differs, often more
    for mode in Whitespace:
        expected = _git_sees_nothing(folder, old, new, mode)
        assert only_whitespace(old, new, mode) is expected, (mode, old, new)


def _respace(data: bytes) -> bytes:
    """A formatter's kind of edit: spaces around brackets, trailing space, tabs for spaces."""
    return (
        data.replace(b"[", b"[ ")
        .replace(b"]", b" ]")
        .replace(b"\n", b"  \n")
        .replace(b"  ", b"\t")
        .removesuffix(b"\n")
    )


@pytest.mark.parametrize("mode", list(Whitespace))
def test_a_binary_side_is_never_whitespace_only(mode: Whitespace) -> None:
    assert not only_whitespace(b"a\0 b", b"a\0b", mode)
    assert not only_whitespace(b"a\0b", b"a\0b ", mode)
