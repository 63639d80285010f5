"""Recent first-parent history against git's own answer (`git rev-list --first-parent` and
`git diff --raw --no-renames C^1 C` for each commit)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cagr_git.discover import find_checkout
from cagr_git.log import CommitChange, first_parent_log
from cagr_git.repository import open_repo
from tests.support.git import _parse_raw, commit, git, write

Rows = set[tuple[bytes, str | None, str | None, str | None, str | None]]


def log(root: Path, limit: int = 100) -> list[CommitChange]:
    with open_repo(find_checkout(str(root))) as repo:
        head = repo.ref("HEAD")
        assert head is not None
        return first_parent_log(repo, head, limit)


def rows(entry: CommitChange) -> Rows:
    return {
        (
            path,
            f"{old[0]:06o}" if old else None,
            f"{new[0]:06o}" if new else None,
            old[1].hex() if old else None,
            new[1].hex() if new else None,
        )
        for path, old, new in entry.changes
    }


def git_rows(root: Path, sha: str) -> Rows:
    raw = git(root, "diff", "--raw", "--no-abbrev", "--no-renames", "-z", f"{sha}^1", sha)
    return {
        (
            path,
            None if status == "A" else old_mode,
            None if status == "D" else new_mode,
            None if status == "A" else old_id,
            None if status == "D" else new_id,
        )
        for path, status, old_mode, new_mode, old_id, new_id in _parse_raw(raw)
    }


@pytest.fixture
def history(repo: Path) -> Path:
    """main with edits, a deletion, a mode change, a symlink, odd names and two merges."""
    write(repo, "a.txt", "a")
    write(repo, "d/e/f.txt", "f")
    commit(repo, "root")
    write(repo, "a.txt", "a2")
    write(repo, "sp ace/é\tx", "odd")
    commit(repo, "edit")
    for index in range(2):
        git(repo, "checkout", "-q", "-b", f"side{index}")
        write(repo, f"side{index}.txt", "s")
        commit(repo, "side one")
        os.unlink(repo / "d/e/f.txt") if index == 0 else os.chmod(repo / "a.txt", 0o755)
        commit(repo, "side two")
        git(repo, "checkout", "-q", "main")
        write(repo, f"main{index}.txt", "m")
        commit(repo, "main meanwhile")
        git(repo, "merge", "-q", "--no-ff", "-m", "merge", f"side{index}")
    os.symlink("a.txt", repo / "link")
    commit(repo, "link")
    return repo


def test_each_commit_equals_git(history: Path) -> None:
    expected = git(history, "rev-list", "--first-parent", "HEAD").decode().split()[:-1]  # no root
    found = log(history)
    assert [entry.commit for entry in found] == expected
    for entry in found:
        assert rows(entry) == git_rows(history, entry.commit)
    merge = found[1]
    assert {row[0] for row in rows(merge)} == {b"side1.txt", b"a.txt"}  # what the merge brought


def test_the_limit(history: Path) -> None:
    assert len(log(history, 2)) == 2
    assert log(history, 0) == []


def test_a_shallow_clone_stops_at_its_boundary(history: Path, tmp_path: Path) -> None:
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "3", f"file://{history}", str(clone))
    found = log(clone)
    visible = git(clone, "rev-list", "--first-parent", "HEAD").decode().split()
    assert [entry.commit for entry in found] == visible[:-1]  # the boundary has no parent here
    assert len(found) < len(log(history))


def test_a_missing_object_ends_the_walk_with_what_was_read(history: Path) -> None:
    parent = git(history, "rev-parse", "HEAD~1").decode().strip()
    os.unlink(history / ".git/objects" / parent[:2] / parent[2:])
    assert log(history) == []  # HEAD's parent is gone: HEAD cannot be compared with it


def test_each_commit_names_its_author_as_git_does(history: Path) -> None:
    write(history, "bot.txt", "1\n")
    git(history, "add", "-A")
    git(history, "commit", "-q", "-m", "bump", "--author", "github-actions[bot] <41898+x@example>")
    found = log(history)
    for entry in found:
        assert entry.author == git(history, "log", "-1", "--format=%an <%ae>", entry.commit).strip()
    assert found[0].author == b"github-actions[bot] <41898+x@example>"
