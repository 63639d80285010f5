"""The working tree against a base tree, as git would see it: what differs, entry by entry.

The base's tree is diffed with the trees the index would write (compared where their ids
differ), then the index with the files on disk, then the untracked files that are not ignored.
Nothing is written: the index is parsed from its bytes and never refreshed. What cannot be read
exactly is listed per path, never skipped; what makes the whole tree unknown (an unreadable
index, unresolved conflicts, a work tree that cannot be listed) is a StatusProblem.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable

from cagr_core.errors import CagrError
from cagr_core.values import value

from .attributes import AttributeFileProblem, AttributeRules
from .collector import paused_collector
from .convert import Checkin
from .ignore import IgnoreFileProblem, ignore_rules
from .index import Index, IndexEntry, UnreadableIndex, index_file, unvouched_positions
from .objects import BLOB, TREE, commit_tree, read_raw
from .refs import ref_text
from .repository import Repository
from .trees import IndexTree, TreeEntry, diff_trees, index_tree
from .worktree import StatCheck, Unreadable, WorkTree

RawChange = tuple[bytes, TreeEntry | None, TreeEntry | None]  # path, base entry, W's entry
_STAGE = operator.attrgetter("stage")


class StatusProblem(CagrError):
    """The working tree cannot be compared at all; the message says why and what to do."""


@value
class Status:
    """The base -> working tree difference: changed entries (sorted by path), paths whose staged
    content differs from both ends, paths whose content cannot be known, and the work tree
    read (to read files from, and to tell whether it moved meanwhile)."""

    changes: list[RawChange]
    pending: list[bytes]
    unreadable: list[Unreadable]
    tree: WorkTree


def index_signature(repo: Repository) -> tuple[int, int, int, str | None]:
    """What changes when the index or HEAD is rewritten: read before and after a status."""
    try:
        st = os.stat(repo.index_path)
        signature = (st.st_size, st.st_mtime_ns, st.st_ino)
    except FileNotFoundError:
        signature = (0, 0, 0)
    return (*signature, ref_text(repo.checkout, "HEAD"))


def working_tree_status(repo: Repository, base_tree: bytes | None) -> Status:
    """One read of the work tree against `base_tree` (a raw tree id; None: no tree, so every
    file of the work tree, tracked or untracked and not ignored, reads as added).

    StatusProblem when the tree cannot be compared; KeyError for a missing object,
    DamagedObject for a damaged one, GitConfigError for a setting git refuses.
    """
    with paused_collector():  # 40-120 ms of a 100,000-file tree's status was collecting
        return _read_status(repo, base_tree)


def _read_status(repo: Repository, base_tree: bytes | None) -> Status:
    try:
        file = index_file(repo.gitdir)
    except UnreadableIndex as error:
        raise StatusProblem(f"cannot read the index: {error}") from error
    assert repo.root is not None
    filemode = repo.config.boolean("core", "fileMode", True)
    parse = _no_index if file is None else file.parse
    quick = None
    if file is not None:
        data, mtime_ns = file.data, file.mtime_ns

        def quick(root: bytes, exec_bit: int) -> tuple[list[int], int] | None:
            found = unvouched_positions(data, root, exec_bit, mtime_ns)
            return None if found is None else (found, mtime_ns)

    # The stat check starts before the index is parsed: a child process reads it too.
    count = file.count if file else 0
    check = StatCheck(lambda: _entries(parse), count, repo.root, filemode, quick)
    try:
        entries, index_mtime_ns = _entries(parse)
        _refuse_conflicts(entries)
        entries = _present_outside_sparse_checkout(repo, entries)
        return _status(repo, base_tree, entries, index_mtime_ns, check)
    finally:
        check.close()


def _no_index() -> tuple[Index, int]:
    return Index((), frozenset()), 0


def _entries(parse: Callable[[], tuple[Index, int]]) -> tuple[tuple[IndexEntry, ...], int]:
    """The index entries (a split index joined) and the mtime before which their stat data
    can be trusted (none: an empty index)."""
    try:
        index, mtime_ns = parse()
    except UnreadableIndex as error:
        raise StatusProblem(f"cannot read the index: {error}") from error
    return index.entries, mtime_ns


def _status(
    repo: Repository,
    base_tree: bytes | None,
    entries: tuple[IndexEntry, ...],
    index_mtime_ns: int,
    check: StatCheck,
) -> Status:
    index = index_tree(entries)
    blobs = _IndexBlobs(repo, entries, index)
    assert repo.root is not None
    try:
        tree = _work_tree(repo, blobs)
        ignores = ignore_rules(
            repo.root, repo.commondir, repo.config, repo.environ, blobs.skip_worktree_file
        )
    except (AttributeFileProblem, IgnoreFileProblem) as error:
        raise StatusProblem(f"{error}. Repair it, then check again.") from error
    differs = _base_against_index(repo, base_tree, index)
    head_tree = _head_tree(repo)
    staged = differs.keys() if head_tree == base_tree else _staged(repo, head_tree, index)
    try:
        walk = tree.untracked(index, ignores)
    except Unreadable as error:
        raise StatusProblem(f"the work tree {error.why}.") from error
    unvouched = check.result(entries, index_mtime_ns)
    scan = tree.scan(entries, differs, index_mtime_ns, walk.replaced, staged, unvouched=unvouched)
    if tree.folders_for_files:  # tracked files that are folders now: their files are untracked
        beneath = tree.untracked(index, ignores, tree.folders_for_files)
        walk.untracked.update(beneath.untracked)
        walk.unreadable.extend(beneath.unreadable)
    raw = sorted(scan.changes + _untracked_changes(differs, index, walk.untracked))
    return Status(raw, scan.pending, [*scan.unreadable, *walk.unreadable], tree)


def _present_outside_sparse_checkout(
    repo: Repository, entries: tuple[IndexEntry, ...]
) -> tuple[IndexEntry, ...]:
    """The entries as git 2.37 and later reads them in a sparse checkout: a skip-worktree file
    that is present on disk anyway is an ordinary tracked file again (unless
    `sparse.expectFilesOutsideOfPatterns`). Outside a sparse checkout the bit holds."""
    config = repo.config
    if not config.boolean("core", "sparseCheckout", False):
        return entries
    if config.boolean("sparse", "expectFilesOutsideOfPatterns", False):
        return entries
    root = os.fsencode(repo.root or "") + b"/"
    return tuple(
        entry._replace(skip_worktree=False)
        if entry.skip_worktree and os.path.lexists(root + entry.path)
        else entry
        for entry in entries
    )


class _IndexBlobs:
    """Blobs the index names, read on demand: a `.gitattributes` missing from the work tree, a
    skip-worktree `.gitignore`, the index's version of a file whose line endings may convert."""

    def __init__(self, repo: Repository, entries: tuple[IndexEntry, ...], index: IndexTree) -> None:
        self.repo = repo
        self.entries = entries
        self.index = index
        self.by_path: dict[bytes, IndexEntry] | None = None

    def blob(self, sha: bytes) -> bytes | None:
        """A blob's content; None when the store lacks it (git then reads nothing too)."""
        try:
            return read_raw(self.repo.objects, sha, BLOB)
        except KeyError:
            return None

    def _entry(self, path: bytes) -> IndexEntry | None:
        if not self.index.tracks(path):
            return None  # the usual answer, without indexing every entry by path
        if self.by_path is None:
            self.by_path = {entry.path: entry for entry in self.entries}
        return self.by_path.get(path)

    def tracked_file(self, path: bytes) -> bytes | None:
        """The index's version of `path` (None: it has none)."""
        entry = self._entry(path)
        return None if entry is None else self.blob(entry.sha)

    def kept_when_missing(self, path: bytes) -> bool:
        """Whether git keeps the index's `path` as it is while the file is missing from disk
        (skip-worktree or assume-unchanged), rather than seeing it deleted."""
        entry = self._entry(path)
        return entry is not None and (entry.skip_worktree or entry.assume_valid)

    def skip_worktree_file(self, path: bytes) -> bytes | None:
        """The index's version of `path` if it is skip-worktree (git reads a `.gitignore`
        from the index only then)."""
        entry = self._entry(path)
        return self.blob(entry.sha) if entry is not None and entry.skip_worktree else None


def _refuse_conflicts(entries: tuple[IndexEntry, ...]) -> None:
    if not any(map(_STAGE, entries)):  # the usual answer, without a Python loop
        return
    conflicts = sorted({e.path.decode("utf-8", "surrogateescape") for e in entries if e.stage})
    more = f" and {len(conflicts) - 5} more" if len(conflicts) > 5 else ""
    raise StatusProblem(
        f"unresolved conflicts in {', '.join(conflicts[:5])}{more}. Resolve them, then check again."
    )


def _work_tree(repo: Repository, blobs: _IndexBlobs) -> WorkTree:
    """The work tree, read with this repository's attributes and settings (file modes,
    symlinks, line endings, filters). GitConfigError for a setting git refuses."""
    config = repo.config
    assert repo.root is not None
    sparse_cone = config.boolean("core", "sparseCheckout", False) and config.boolean(
        "core", "sparseCheckoutCone", False
    )
    attributes = AttributeRules(
        repo.root,
        repo.commondir,
        config,
        repo.environ,
        index_blob=blobs.tracked_file,
        sparse_cone=sparse_cone,
        kept_when_missing=blobs.kept_when_missing,
    )
    return WorkTree(
        repo.root,
        Checkin(attributes, config),
        filemode=config.boolean("core", "fileMode", True),
        symlinks=config.boolean("core", "symlinks", True),
        read_blob=blobs.blob,
    )


def _untracked_changes(
    differs: dict[bytes, TreeEntry | None], index: IndexTree, untracked: dict[bytes, TreeEntry]
) -> list[RawChange]:
    """Base paths the index dropped (deleted, or back as untracked files) and new files."""
    raw: list[RawChange] = []
    for path, old in differs.items():
        if old is not None and not index.tracks(path):
            now = untracked.pop(path, None)
            if now != old:
                raw.append((path, old, now))
    raw.extend((path, None, now) for path, now in untracked.items())
    return raw


def _base_against_index(
    repo: Repository, base_tree: bytes | None, index: IndexTree
) -> dict[bytes, TreeEntry | None]:
    """The base's entry at every path where the base and the index differ (None: the base has
    none there), by diffing the base tree with the trees the index would write: folders whose
    trees are equal are never read, so the cost follows the change, not the repository."""
    written = index.trees

    def read(sha: bytes) -> bytes:
        raw = written.get(sha)
        return raw if raw is not None else read_raw(repo.objects, sha, TREE)

    return {path: old for path, old, _ in diff_trees(read, base_tree, index.root)}


def _head_tree(repo: Repository) -> bytes | None:
    """HEAD's tree (None on an unborn branch, where everything in the index is staged)."""
    head = repo.ref("HEAD")
    return None if head is None else commit_tree(repo.objects, head)


def _staged(repo: Repository, head_tree: bytes | None, index: IndexTree) -> set[bytes]:
    """The paths whose staged content differs from HEAD's (what `git diff --cached` lists)."""
    return set(_base_against_index(repo, head_tree, index))
