"""A split index (`core.splitIndex`, `git update-index --split-index`) read as git reads it:
the entries are `git ls-files --stage`'s, and the working-tree change set is `git diff --raw`'s.
git is the oracle throughout."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cagr_core.changes import Stage
from cagr_git.index import load_index
from tests.support.git import collect, commit, git, oracle, rows, write

_NAMES = ["a", "b", "c/d", "c/e", "f g", "h/i/j", "k"]


def _staged(root: Path) -> list[tuple[str, str, int, str]]:
    """git's entries: mode, id, stage and path of each (`git ls-files --stage -z`)."""
    out = []
    for line in git(root, "ls-files", "--stage", "-z").split(b"\0"):
        if line:
            meta, path = line.split(b"\t", 1)
            mode, oid, stage = meta.decode().split(" ")
            out.append((mode, oid, int(stage), path.decode("utf-8", "surrogateescape")))
    return out


def _ours(root: Path) -> list[tuple[str, str, int, str]]:
    entries = load_index(str(root / ".git"))[0].entries
    return [
        (f"{e.mode:06o}", e.sha.hex(), e.stage, e.path.decode("utf-8", "surrogateescape"))
        for e in entries
    ]


def _split(root: Path) -> None:
    git(root, "config", "core.splitIndex", "true")
    git(root, "config", "splitIndex.maxPercentChange", "100")  # keep the shared index as it is
    git(root, "update-index", "--split-index")


def _agrees_with_git(root: Path) -> None:
    assert list((root / ".git").glob("sharedindex.*"))
    assert _ours(root) == _staged(root)
    base = git(root, "merge-base", "main", "HEAD").decode().strip()
    changes = collect(root)
    assert changes.unchecked == ()
    assert rows(changes) == oracle(root, base)


def test_edits_deletions_and_additions_staged_in_a_split_index(repo: Path) -> None:
    for name in _NAMES:
        write(repo, name, f"{name}\n")
    commit(repo, "base")
    _split(repo)
    write(repo, "b", "edited and staged\n")  # replaces b's shared entry
    write(repo, "c/d", "edited, not staged\n")
    git(repo, "rm", "-q", "--cached", "c/e")  # deletes a shared entry
    git(repo, "rm", "-q", "k")
    write(repo, "c/new", "added\n")  # an entry of this file's own
    write(repo, "0first", "sorts before every shared entry\n")
    git(repo, "add", "b", "c/new", "0first")
    write(repo, "untracked", "not added\n")
    _agrees_with_git(repo)


def test_a_shared_index_rewritten_and_a_null_link(repo: Path) -> None:
    for name in _NAMES:
        write(repo, name, f"{name}\n")
    commit(repo, "base")
    _split(repo)
    git(repo, "config", "splitIndex.maxPercentChange", "0")  # every write makes a new shared one
    write(repo, "a", "edited\n")
    git(repo, "add", "a")
    _agrees_with_git(repo)


def test_a_missing_shared_index_is_unchecked(repo: Path) -> None:
    for name in _NAMES:
        write(repo, name, f"{name}\n")
    commit(repo, "base")
    _split(repo)
    for shared in (repo / ".git").glob("sharedindex.*"):
        shared.unlink()
    assert git(repo, "status", check=False) == b""  # git cannot read it either
    changes = collect(repo)
    assert [u.stage for u in changes.unchecked] == [Stage.COLLECT]
    assert "sharedindex." in changes.unchecked[0].message


_OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["edit", "stage", "remove", "add-new", "unstage", "intent"]),
        st.sampled_from(_NAMES),
    ),
    min_size=1,
    max_size=8,
)


@settings(
    max_examples=int(os.environ.get("CAGR_ORACLE_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(_OPERATIONS, st.sampled_from(["0", "20", "100"]), st.sampled_from(["2", "4"]))
def test_any_split_index_reads_as_git_reads_it(
    operations: list[tuple[str, str]], percent: str, version: str
) -> None:
    root = Path(tempfile.mkdtemp())
    try:
        git(root, "init", "-q", "-b", "main")
        for name in _NAMES:
            write(root, name, f"{name}\n")
        commit(root, "base")
        git(root, "config", "core.splitIndex", "true")
        git(root, "config", "splitIndex.maxPercentChange", percent)
        git(root, "update-index", f"--index-version={version}")
        git(root, "update-index", "--split-index")
        for number, (operation, name) in enumerate(operations):
            path = root / name
            if operation == "edit" and path.exists():
                write(root, name, f"edit {number}\n")
            elif operation == "stage" and path.exists():
                write(root, name, f"staged {number}\n")
                git(root, "add", name)
            elif operation == "remove":
                git(
                    root, "rm", "-q", "-f", "--cached", "--ignore-unmatch", name
                )  # -f: staged and edited too
            elif operation == "add-new":
                write(root, f"{name}.new", f"new {number}\n")
                git(root, "add", f"{name}.new")
            elif operation == "unstage":
                git(root, "reset", "-q", "--", name)
            elif operation == "intent" and not path.exists():
                write(root, name, "back\n")
                git(root, "add", "-N", name)
        git(root, "update-index", "--split-index")  # split still, whatever the writes did
        _agrees_with_git(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
