"""Ignore rules against git's own answer: random nested files and random ignore files (`**`,
`***`, negations, trailing slashes, escapes, trailing spaces, a byte order mark, CRLF, comments,
`core.ignoreCase`), in every place git reads them. cagr's working-tree set must equal
`git diff --raw` plus `git ls-files -o --exclude-standard`, file for file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.git import collect, commit, git, oracle, rows, write

_NAMES = ["a", "b", "ab", "A", "x.log", "a b", "#c", "!d", "e*", "f ", "[g]"]
_TOKENS = ["a", "b", "ab", "A", "log", ".", "*", "**", "***", "?", "[ab]", "[!a]", "[a-c]"]
_TOKENS += ["[[:alpha:]]", "\\*", "\\ ", "\\!", "\\#", "\\[g]", "g]", " ", "\\"]


@st.composite
def patterns(draw: st.DrawFn) -> bytes:
    parts = draw(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=4))
    glue = draw(st.lists(st.sampled_from(["", "/"]), min_size=len(parts), max_size=len(parts)))
    text = "".join(g + p for g, p in zip(glue, parts, strict=True))
    text = draw(st.sampled_from(["", "!", "#", "\\!", "\\#", "/"])) + text
    text += draw(st.sampled_from(["", "/", " ", "  ", "\\ ", "/ "]))
    return text.encode()


@st.composite
def ignore_files(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(patterns(), min_size=1, max_size=5))
    end = draw(st.sampled_from([b"\n", b"\r\n"]))
    data = end.join(lines) + draw(st.sampled_from([end, b""]))
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + data


paths = st.lists(st.sampled_from(_NAMES), min_size=1, max_size=3).map("/".join)
places = st.sampled_from([".gitignore", "a/.gitignore", "a/b/.gitignore", "ab/.gitignore"])


@st.composite
def layouts(draw: st.DrawFn) -> dict:
    return {
        "tracked": draw(st.lists(paths, max_size=4)),
        "untracked": draw(st.lists(paths, min_size=1, max_size=8)),
        "ignores": draw(st.dictionaries(places, ignore_files(), max_size=3)),
        "exclude": draw(st.none() | ignore_files()),
        "user": draw(st.none() | ignore_files()),
        "fold": draw(st.booleans()),
    }


def _put(root: Path, path: str, content: bytes) -> None:
    absolute = root / path
    try:
        if absolute.is_dir():
            return
        write(root, path, content)
    except (FileExistsError, NotADirectoryError, IsADirectoryError):
        pass  # a file where this layout wants a folder, or the other way round


@pytest.fixture(scope="module")
def scratch() -> Path:
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


class TestIgnoreRulesAgainstGit:
    """Whatever the ignore files say, cagr lists the untracked files git lists."""

    @settings(
        max_examples=int(os.environ.get("CAGR_ORACLE_EXAMPLES", "60")),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(layouts())
    def test_untracked_files_equal_git(self, scratch: Path, layout: dict) -> None:
        root = Path(tempfile.mkdtemp(dir=scratch))
        try:
            git(root, "init", "-q", "-b", "main")
            for path in layout["tracked"]:
                _put(root, path, b"tracked\n")
            commit(root, "base")
            if layout["fold"]:
                git(root, "config", "core.ignoreCase", "true")
            for path in layout["untracked"]:
                _put(root, path, b"untracked\n")
            for place, content in layout["ignores"].items():
                _put(root, place, content)
            if layout["exclude"] is not None:
                write(root, ".git/info/exclude", layout["exclude"])
            if layout["user"] is not None:
                write(root, ".git/user-excludes", layout["user"])
                git(root, "config", "core.excludesFile", ".git/user-excludes")
            changes = collect(root)
            assert changes.unchecked == ()
            assert rows(changes) == oracle(root, "HEAD")
        finally:
            shutil.rmtree(root, ignore_errors=True)


def test_reading_the_working_tree_loads_no_dulwich(repo: Path) -> None:
    """The working tree is read on every agent turn: only cagr's own, import-light readers."""
    write(repo, ".gitignore", "*.log\n")
    write(repo, ".gitattributes", "* text=auto\n")
    commit(repo, "base")
    write(repo, "new.txt", "a\r\n")
    code = (
        "import sys; from tests.support.git import collect; "
        f"changes = collect({str(repo)!r}, base='HEAD'); "
        "print([c.path for c in changes.changes], 'dulwich' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert result.stdout.strip() == "['new.txt'] False"
