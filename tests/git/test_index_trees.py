"""The trees the index would write, against `git write-tree` (git is the oracle): a working-tree
check compares them with the baseline's tree by id, so only folders that differ are read."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cagr_git.index import read_index
from cagr_git.trees import index_tree
from tests.support.git import collect, commit, git, oracle, rows, write

# Names around '/' in byte order (" ", "!", "-", "." sort before it, "0" and letters after), so
# folders and files that share a prefix land where git's tree order puts them.
_NAMES = ["a", "a b", "a!", "a-b", "a.txt", "a0", "b", "sp ace", "é", "\udcff"]


def _written(root: Path) -> bytes:
    """git's own answer, written into this test repository's objects."""
    return bytes.fromhex(git(root, "write-tree").decode().strip())


def _ours(root: Path) -> bytes:
    return index_tree(read_index((root / ".git" / "index").read_bytes()).entries).root


def test_folders_and_files_sharing_a_prefix(repo: Path) -> None:
    for name in _NAMES:
        write(repo, name.encode("utf-8", "surrogateescape") + b".f", "file\n")
        write(repo, f"a/{name}".encode("utf-8", "surrogateescape"), "nested\n")
        write(repo, f"a/{name}-dir/deeper/x", "deep\n")
    write(repo, "run.sh", "#!/bin/sh\n", 0o755)
    os.symlink("a.txt.f", repo / "link")
    commit(repo, "tree")
    sub = git(repo, "rev-parse", "HEAD").decode().strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sub},vendor/sub")
    write(repo, "later.txt", "added with intent\n")
    git(repo, "add", "-N", "later.txt")  # left out of the written tree, as git leaves it out
    assert _ours(repo) == _written(repo)


def test_an_empty_index(repo: Path) -> None:
    assert index_tree(()).root == _written(repo)


@settings(
    max_examples=int(os.environ.get("CAGR_ORACLE_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(
        st.lists(st.sampled_from(_NAMES), min_size=1, max_size=4).map("/".join),
        min_size=1,
        max_size=12,
        unique=True,
    )
)
def test_any_tree_equals_git_write_tree(paths: list[str]) -> None:
    root = Path(tempfile.mkdtemp())
    try:
        git(root, "init", "-q")
        for path in paths:  # a path that is a folder of another is skipped, as a file can't be
            try:
                write(root, path.encode("utf-8", "surrogateescape"), "x\n")
            except (IsADirectoryError, NotADirectoryError, FileExistsError):
                continue
        git(root, "add", "-A")
        assert _ours(root) == _written(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


# Modes other tools write into trees: git reads them as `canon_mode` does (any folder mode is a
# tree, a regular mode is 100755 only when its owner may execute it, a symlink mode 120000, any
# other a submodule); `git diff --raw` is the oracle.
_ODD_MODES = ["100645", "100600", "100744", "100711", "120777", "170000", "0"]


def test_tree_entries_of_odd_modes_read_as_git_reads_them(repo: Path) -> None:
    write(repo, "d/f", "in a folder\n")
    write(repo, "g", "a file\n")
    base = commit(repo, "base")
    blob = bytes.fromhex(git(repo, "rev-parse", "HEAD:g").decode().strip())
    folder = bytes.fromhex(git(repo, "rev-parse", "HEAD:d").decode().strip())
    entries = [(b"40755", b"d", folder), (b"040000", b"e", folder), (b"100654", b"g", blob)]
    entries += [(m.encode(), f"m{n}".encode(), blob) for n, m in enumerate(_ODD_MODES)]
    entries.sort(key=lambda entry: entry[1])
    raw = b"".join(mode + b" " + name + b"\0" + oid for mode, name, oid in entries)
    tree = git(repo, "hash-object", "-t", "tree", "-w", "--literally", "--stdin", stdin=raw)
    head = git(repo, "commit-tree", tree.decode().strip(), "-p", base, "-m", "odd").decode()
    changes = collect(repo, "main", committed=True, head=head.strip())
    assert changes.unchecked == ()
    assert rows(changes) == oracle(repo, base, head.strip())
