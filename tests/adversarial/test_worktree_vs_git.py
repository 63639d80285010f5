"""The working tree against git on the states where cagr disagreed with it: each recipe's
change set must equal git's own (`git diff --raw --no-renames -z B` plus untracked files)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest

from cagr_git import worktree
from tests.support.adversarial import Outcome
from tests.support.git import collect, commit, git, oracle, rows, write

Cagr = Callable[..., Outcome]


def _agrees_with_git(root: Path) -> list[tuple[str, str]]:
    base = git(root, "merge-base", "main", "HEAD").decode().strip()
    changes = collect(root)
    assert changes.unchecked == ()
    assert rows(changes) == oracle(root, base)
    with mock.patch.object(worktree, "PARALLEL_FROM", 1):  # the stat check in a forked child
        assert collect(root) == changes
    return [(row[1], row[0]) for row in rows(changes)]


@pytest.fixture
def folder_d(repo: Path) -> Path:
    """`mkdir d; echo a>d/x; git add d; git commit -qm i`"""
    write(repo, "d/x", "a\n")
    commit(repo, "i")
    return repo


def test_21_folder_replaced_by_a_file(folder_d: Path, cagr: Cagr) -> None:
    shutil.rmtree(folder_d / "d")
    write(folder_d, "d", "f\n")
    assert _agrees_with_git(folder_d) == [("A", "d"), ("D", "d/x")]
    outcome = cagr(folder_d, "changes")
    assert outcome.code == 0
    assert [line.split()[0] for line in outcome.out.splitlines()[1:]] == ["A", "D"]


def test_21_file_replaced_by_a_folder(repo: Path) -> None:
    write(repo, "d", "f\n")
    commit(repo, "i")
    (repo / "d").unlink()
    write(repo, "d/x", "a\n")
    assert _agrees_with_git(repo) == [("D", "d"), ("A", "d/x")]


def test_22_negated_pattern_under_an_ignored_folders_contents(repo: Path, cagr: Cagr) -> None:
    write(repo, "a", "a\n")
    commit(repo, "i")
    write(repo, ".gitignore", "dir/*\n!dir/keep\n")
    write(repo, "dir/keep", "k\n")
    write(repo, "dir/other", "o\n")
    assert _agrees_with_git(repo) == [("A", ".gitignore"), ("A", "dir/keep")]
    assert "dir/keep" in cagr(repo, "changes").out


def test_22_an_excluded_folder_cannot_be_re_included_beneath(repo: Path) -> None:
    write(repo, "a", "a\n")
    commit(repo, "i")
    write(repo, ".gitignore", "dir/\n!dir/keep\n")
    write(repo, "dir/keep", "k\n")
    assert _agrees_with_git(repo) == [("A", ".gitignore")]


def test_23_folder_replaced_by_a_link_to_a_folder(folder_d: Path, cagr: Cagr) -> None:
    (folder_d / "d").rename(folder_d / "d2")
    os.symlink("d2", folder_d / "d")
    assert _agrees_with_git(folder_d) == [("A", "d"), ("D", "d/x"), ("A", "d2/x")]
    with (folder_d / "d2" / "x").open("a") as handle:
        handle.write("b\n")
    assert _agrees_with_git(folder_d) == [("A", "d"), ("D", "d/x"), ("A", "d2/x")]
    data = json.loads(cagr(folder_d, "changes", "--format", "json").out)
    assert [c["new"]["kind"] if c["new"] else None for c in data["changes"]] == [
        "symlink",
        None,
        "regular",
    ]


def test_23_folder_replaced_by_a_dangling_link(folder_d: Path) -> None:
    shutil.rmtree(folder_d / "d")
    os.symlink("nowhere", folder_d / "d")
    assert _agrees_with_git(folder_d) == [("A", "d"), ("D", "d/x")]


def test_24_binary_file_under_text_auto_is_exact(repo: Path, cagr: Cagr) -> None:
    write(repo, ".gitattributes", "* text=auto eol=lf\n")
    write(repo, "bin.dat", b"a\0b\r\nc")
    commit(repo, "i")
    write(repo, "bin.dat", b"a\0b\r\nc2")
    assert _agrees_with_git(repo) == [("M", "bin.dat")]
    outcome = cagr(repo, "changes")
    assert outcome.code == 0
    assert outcome.out.splitlines()[1].startswith("M ")


@pytest.mark.parametrize(
    "content",
    [b"a\r\nb", b"a\r\nb\rc", b"\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\r\n"],
    ids=["text", "lone-cr", "mostly-unprintable"],
)
def test_24_line_endings_convert_as_git_converts_them(repo: Path, content: bytes) -> None:
    # Text with CRLF is stored with LF; a lone CR or mostly unprintable bytes make git call
    # the file binary, as a NUL does, and then it is stored as it is.
    write(repo, ".gitattributes", "* text=auto\n")
    write(repo, "f.dat", b"x")
    commit(repo, "i")
    write(repo, "f.dat", content)
    _agrees_with_git(repo)


def test_24_explicit_text_converts_binary_files_too(repo: Path) -> None:
    write(repo, ".gitattributes", "* text eol=lf\n")
    write(repo, "bin.dat", b"x")
    commit(repo, "i")
    write(repo, "bin.dat", b"a\0b\r\nc")
    assert _agrees_with_git(repo) == [("M", "bin.dat")]
    (change,) = collect(repo).changes
    assert change.new is not None
    assert change.new.oid == git(repo, "hash-object", "--stdin", stdin=b"a\0b\nc").decode().strip()


def test_25_committed_content_edited_again_is_not_called_staged(repo: Path, cagr: Cagr) -> None:
    """An edit of a file the branch committed, never staged, after a checkout that left every
    entry's stat data stale: the index holds HEAD's content, so nothing is pending."""
    write(repo, "f", "base\n")
    write(repo, "g", "base\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "f", "committed\n")
    write(repo, "g", "committed\n")
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "feature")
    for name in ("f", "g"):  # stat-dirty: git would hash them again, and find them equal
        os.utime(repo / name, (1, 1))
    write(repo, "f", "working\n")
    assert git(repo, "diff", "--cached", "--name-only") == b""  # nothing is staged
    changes = cagr(repo, "changes", "--format", "json")
    assert json.loads(changes.out)["pending_staged"] == []
    assert "staged" not in cagr(repo, "changes").out
    assert "staged" not in cagr(repo, "rules", "check").out


def test_25_staged_then_edited_is_pending(repo: Path, cagr: Cagr) -> None:
    write(repo, "f", "base\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, "f", "staged\n")
    git(repo, "add", "f")
    write(repo, "f", "working\n")
    assert cagr(repo, "changes").out.splitlines()[-1] == (
        "staged, then edited again (the working tree's version was checked; the index holds"
        " another, which `git commit` would record): f"
    )
    check = cagr(repo, "rules", "check").out.replace("\n", " ")
    assert "f is staged, then edited again: the index holds a version" in check
