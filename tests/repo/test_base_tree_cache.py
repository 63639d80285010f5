"""The base-tree cache saves reading tree objects, and is believed only where each cached tree
hashes to its id: a cache for another tree, a damaged one or one written by hand is read again."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from cagr_repo.gitdir import find_checkout
from cagr_repo.gitrepo import open_repo
from cagr_repo.state import BASE_TREE, state_path
from cagr_repo.trees import flatten, flatten_cached

from .gitutil import commit, git, write

MAGIC = b"cagr base trees 3\n"


@pytest.fixture
def trees(repo: Path) -> tuple[Path, bytes, bytes]:
    write(repo, "a/b/c.txt", "one\n")
    write(repo, "d.txt", "d\n")
    commit(repo, "base")
    base = bytes.fromhex(git(repo, "rev-parse", "HEAD^{tree}").decode().strip())
    write(repo, "a/b/c.txt", "two\n")
    commit(repo, "next")
    head = bytes.fromhex(git(repo, "rev-parse", "HEAD^{tree}").decode().strip())
    return repo, base, head


def _raw(repo: Path, tree: bytes) -> bytes:
    return git(repo, "cat-file", "tree", tree.hex())


def _flattened(repo: Path, tree: bytes) -> dict:
    checkout = find_checkout(str(repo))
    with open_repo(checkout) as opened:
        return flatten_cached(opened.objects, tree, checkout.gitdir)


def test_a_written_cache_is_used(trees: tuple[Path, bytes, bytes]) -> None:
    repo, base, _ = trees
    expected = _flattened(repo, base)
    checkout = find_checkout(str(repo))

    class NoObjects:
        def get_raw(self, sha: bytes) -> None:  # noqa: ARG002  # the store interface
            raise AssertionError("read from the repository although the cache holds it")

    assert flatten_cached(NoObjects(), base, checkout.gitdir) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("damage", ["other-tree", "truncated", "junk", "missing-subtree"])
def test_a_cache_that_cannot_vouch_is_read_again(
    trees: tuple[Path, bytes, bytes], damage: str
) -> None:
    repo, base, head = trees
    checkout = find_checkout(str(repo))
    with open_repo(checkout) as opened:
        truth = flatten(opened.objects, base)
    records = {
        "other-tree": struct.pack(">20sL", base, len(_raw(repo, head))) + _raw(repo, head),
        "truncated": struct.pack(">20sL", base, 500) + _raw(repo, base)[:10],
        "junk": b"\xff" * 7,
        "missing-subtree": struct.pack(">20sL", base, len(_raw(repo, base))) + _raw(repo, base),
    }
    Path(state_path(checkout.gitdir, BASE_TREE)).parent.mkdir(exist_ok=True)
    Path(state_path(checkout.gitdir, BASE_TREE)).write_bytes(MAGIC + records[damage])
    assert _flattened(repo, base) == truth
    assert _flattened(repo, head) != truth
