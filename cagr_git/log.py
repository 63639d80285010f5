"""Recent history along first parents, as `git log --first-parent --raw --no-renames` lists it:
each commit's changed entries against its first parent (a merge counts as the whole change it
brought in). Only reads.

The walk stops at `limit` commits, at a root commit, at a shallow clone's boundary, and at an
object this clone does not have or cannot read (what was read so far is returned).
"""

from __future__ import annotations

from cagr_core.values import value

from .history import parse_commit
from .objects import COMMIT, DamagedObject, read_raw
from .repository import Repository
from .trees import TreeEntry, diff_trees


@value
class CommitChange:
    """One commit's changes against its first parent: (path, old entry, new entry) with
    `/`-separated paths as git stores them; an entry is (mode, raw id), None where absent; and
    its author as the `author` header names them (`Name <email>`, no date; empty when absent)."""

    commit: str
    changes: tuple[tuple[bytes, TreeEntry | None, TreeEntry | None], ...]
    author: bytes = b""


def _tree_and_first_parent(raw: bytes) -> tuple[bytes, bytes | None]:
    tree, parents, _ = parse_commit(raw)
    return tree, parents[0] if parents else None


def _author(raw: bytes) -> bytes:
    """The identity of a raw commit's `author` header (`Name <email>`, its date left off):
    the first header line starting `author `, before the blank line that ends the headers."""
    headers = raw.partition(b"\n\n")[0]
    for line in headers.split(b"\n"):
        if line.startswith(b"author "):
            identity = line[len(b"author ") :]
            end = identity.rfind(b">")
            return identity[: end + 1] if end >= 0 else identity
    return b""


def first_parent_log(repo: Repository, start: str, limit: int) -> list[CommitChange]:
    """Up to `limit` commits from `start` (hex) along first parents, newest first, each with
    the entries it changed. A root commit (an import of everything) is no change of its own."""
    shallow = repo.shallow
    out: list[CommitChange] = []
    commit = bytes.fromhex(start)
    try:
        while len(out) < limit and commit.hex() not in shallow:
            raw = read_raw(repo.objects, commit, COMMIT)
            tree, parent = _tree_and_first_parent(raw)
            if parent is None:
                break
            parent_tree, _ = _tree_and_first_parent(read_raw(repo.objects, parent, COMMIT))
            changed = diff_trees(repo.objects, parent_tree, tree)
            out.append(CommitChange(commit.hex(), tuple(changed), _author(raw)))
            commit = parent
    except (KeyError, ValueError, DamagedObject):
        pass  # history this clone lacks or cannot read: the commits read so far are the answer
    return out


@value
class Commit:
    """A commit as a pull request would have been: its id, its first parent (None: a root
    commit), its message (decoded, undecodable bytes kept as escapes) and its author as the
    `author` header names them (`Name <email>`)."""

    sha: str
    parent: str | None
    message: str
    author: bytes = b""

    @property
    def subject(self) -> str:
        """The message's first line."""
        return self.message.strip().partition("\n")[0]


def read_commit(repo: Repository, sha: str) -> Commit:
    """The commit `sha` (hex); KeyError when it is missing, ValueError or DamagedObject when it
    cannot be read."""
    raw = read_raw(repo.objects, bytes.fromhex(sha), COMMIT)
    _, parent = _tree_and_first_parent(raw)
    _, _, message = raw.partition(b"\n\n")
    return Commit(
        sha,
        parent.hex() if parent is not None else None,
        message.decode("utf-8", "surrogateescape"),
        _author(raw),
    )


def first_parents(repo: Repository, start: str, limit: int) -> list[Commit]:
    """Up to `limit` commits from `start` along first parents, newest first; the walk stops at
    a root commit's parent, a shallow boundary, or history this clone lacks."""
    out: list[Commit] = []
    sha: str | None = start
    try:
        while sha is not None and len(out) < limit and sha not in repo.shallow:
            commit = read_commit(repo, sha)
            out.append(commit)
            sha = commit.parent
    except (KeyError, ValueError, DamagedObject):
        pass  # history this clone lacks or cannot read: the commits read so far are the answer
    return out
