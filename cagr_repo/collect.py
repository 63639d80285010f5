"""Collecting a ChangeSet from a checkout: merge base -> HEAD, or merge base -> working tree.

Nothing here writes anything: not the index, refs, objects or working tree, nor any cache. A
working-tree change is the baseline's tree against the trees the index would write (compared
where their ids differ), then the index against the files on disk. Whatever cannot be read
exactly is returned as an unchecked item on the ChangeSet, which the evaluator never turns
into a pass.
"""

from __future__ import annotations

import operator
import os
from pathlib import Path

from attrs import evolve

from cagr_core.changes import Change, ChangeSet, Range, Side, Stage, Unchecked
from cagr_core.errors import CagrError
from cagr_core.ruleset import RuleSet

from .attributes import Attributes
from .gitconfig import GitConfig, GitConfigError
from .gitdir import ref_text
from .gitrepo import RangeProblem, Repository, head_commit, merge_base, resolve_target
from .ignore import ignore_rules
from .index import IndexEntry, UnreadableIndex, read_index
from .objects import BLOB, TREE, DamagedObject, commit_tree, read_raw
from .target import missing_target_advice
from .trees import IndexTree, TreeEntry, diff_trees, index_tree
from .worktree import Unreadable, WorkTree

RawChange = tuple[bytes, TreeEntry | None, TreeEntry | None]
_STAGE = operator.attrgetter("stage")
MAX_CONTENT_BYTES = 1024 * 1024  # manifests read for selectors; the evaluator's cap by default


class BareRepository(CagrError):
    """A working-tree check was asked of a repository that has no working tree."""


def decode(path: bytes) -> str:
    return path.decode("utf-8", "surrogateescape")


def _tree_of(repo: Repository, commit: str) -> bytes:
    """The raw id of a commit's tree."""
    return commit_tree(repo.objects, commit)


def _incomplete(range_: Range | None, stage: Stage, message: str) -> ChangeSet:
    """A change set that could not be collected: empty, with the reason as unchecked."""
    return ChangeSet(range=range_, unchecked=(Unchecked(None, stage, message),))


def _problem_set(problem: RangeProblem) -> ChangeSet:
    return _incomplete(None, Stage.RANGE, f"{problem.message} {problem.fix}")


def _damaged(range_: Range | None, error: DamagedObject) -> ChangeSet:
    return _incomplete(range_, Stage.COLLECT, error.advice)


def _missing_object(error: KeyError) -> ChangeSet:
    return _problem_set(
        RangeProblem(
            f"an object is missing from this clone ({error}).",
            "Fetch the full history: `git fetch --unshallow` or `git fetch origin`.",
        )
    )


def _resolve(repo: Repository, name: str, committed: bool, chosen_by: str | None) -> Range:
    head = head_commit(repo)
    try:
        target = resolve_target(repo, name)
    except RangeProblem as problem:
        advice = missing_target_advice(chosen_by)
        if not advice:
            raise
        raise RangeProblem(problem.message, problem.fix + advice) from problem
    base = merge_base(repo, target, head)
    return Range(target.ref, target.sha, base, head if committed else None, chosen_by)


def collect_committed(
    repo: Repository,
    name: str,
    rules: RuleSet,
    max_content_bytes: int = MAX_CONTENT_BYTES,
    *,
    chosen_by: str | None = None,
) -> ChangeSet:
    """Merge base -> HEAD, tree to tree. `chosen_by` says which rule chose the target `name`."""
    if repo.problem is not None:
        return _incomplete(None, Stage.RANGE, repo.problem)
    try:
        range_ = _resolve(repo, name, True, chosen_by)
    except RangeProblem as problem:
        return _problem_set(problem)
    assert range_.head is not None
    try:
        raw = diff_trees(repo.objects, _tree_of(repo, range_.base), _tree_of(repo, range_.head))
    except KeyError as error:
        return _missing_object(error)
    except DamagedObject as error:
        return _damaged(range_, error)
    changes, unchecked = _to_changes(repo, raw, rules, None, max_content_bytes)
    return ChangeSet(tuple(changes), range_, unchecked=tuple(unchecked))


def collect_working_tree(
    repo: Repository,
    name: str,
    rules: RuleSet,
    max_content_bytes: int = MAX_CONTENT_BYTES,
    *,
    chosen_by: str | None = None,
) -> ChangeSet:
    """Merge base -> the working tree, retried once if it changes while being read."""
    if repo.bare:
        raise BareRepository("a bare repository has no working tree; use --committed")
    if repo.problem is not None:
        return _incomplete(None, Stage.RANGE, repo.problem)
    try:
        range_ = _resolve(repo, name, False, chosen_by)
    except RangeProblem as problem:
        return _problem_set(problem)
    return _read_working_tree(repo, range_, rules, max_content_bytes)


def _read_working_tree(
    repo: Repository, range_: Range, rules: RuleSet, max_content_bytes: int
) -> ChangeSet:
    """The base -> working tree change set of a resolved range, read again if it moved."""
    for _ in range(2):
        before = _index_signature(repo)
        try:
            result = _working_tree_once(repo, range_, rules, max_content_bytes)
        except KeyError as error:  # the base tree, or a tree below it, is not in this clone
            return _missing_object(error)
        except DamagedObject as error:
            return _damaged(range_, error)
        except GitConfigError as error:  # a setting the working tree needs, which git refuses
            return _incomplete(range_, Stage.COLLECT, f"{error}; git refuses it too. Repair it.")
        if isinstance(result, ChangeSet):
            return result  # could not be read at all: the set says why
        changeset, tree = result
        if _index_signature(repo) == before and tree.unchanged():
            return changeset
    return _incomplete(
        range_,
        Stage.COLLECT,
        "the working tree or index changed while cagr read it, twice."
        " Let other tools finish writing, then check again.",
    )


def count_uncommitted(repo: Repository, committed: ChangeSet) -> int | None:
    """How many paths the working tree holds otherwise than HEAD (edited, staged or not,
    deleted, or untracked and not ignored), next to a committed change set: what a committed
    check left out. None when there is no working tree or it cannot be read exactly.

    It compares the merge base's change to HEAD with its change to the working tree (about the
    cost of a working-tree check); where the two differ, so do HEAD and the working tree.
    """
    range_ = committed.range
    if repo.bare or range_ is None or range_.head is None or not committed.complete:
        return None
    try:
        if head_commit(repo) != range_.head:
            return None  # HEAD moved since: no count is better than a wrong one
    except RangeProblem:
        return None
    worktree = _read_working_tree(
        repo, evolve(range_, head=None), RuleSet.compile([]), MAX_CONTENT_BYTES
    )
    if worktree.unchecked:
        return None
    at_head = {c.path: (c.new.mode, c.new.oid) if c.new else None for c in committed.changes}
    in_tree = {c.path: (c.new.mode, c.new.oid) if c.new else None for c in worktree.changes}
    return sum(
        1
        for path in at_head.keys() | in_tree.keys()
        if path not in at_head or path not in in_tree or at_head[path] != in_tree[path]
    )


def _index_signature(repo: Repository) -> tuple[int, int, int, str | None]:
    try:
        st = os.stat(repo.index_path)
        signature = (st.st_size, st.st_mtime_ns, st.st_ino)
    except FileNotFoundError:
        signature = (0, 0, 0)
    return (*signature, ref_text(repo.checkout, "HEAD"))


def _read_index(repo: Repository) -> tuple[tuple[IndexEntry, ...], int]:
    """The index entries and the index file's mtime (none: an empty index)."""
    index_path = Path(repo.index_path)
    try:
        data = index_path.read_bytes()
        mtime_ns = index_path.stat().st_mtime_ns
    except FileNotFoundError:
        return (), 0
    return read_index(data).entries, mtime_ns


def _conflict_message(entries: tuple[IndexEntry, ...]) -> str | None:
    if not any(map(_STAGE, entries)):  # the usual answer, without a Python loop
        return None
    conflicts = sorted({decode(e.path) for e in entries if e.stage})
    more = f" and {len(conflicts) - 5} more" if len(conflicts) > 5 else ""
    return (
        f"unresolved conflicts in {', '.join(conflicts[:5])}{more}. Resolve them, then check again."
    )


def _work_tree(repo: Repository, index: IndexTree) -> WorkTree:
    """The work tree, read with this repository's file-mode and line-ending settings."""
    config = repo.config
    filemode = config.boolean("core", "fileMode", True)
    autocrlf = _autocrlf(config)
    attribute_files = sorted(
        folder + b"/.gitattributes" if folder else b".gitattributes"
        for folder, names in index.files.items()
        if b".gitattributes" in names
    )
    assert repo.root is not None
    info = Path(repo.commondir) / "info" / "attributes"
    attributes = Attributes(Path(repo.root), attribute_files, info, autocrlf)
    return WorkTree(repo.root, attributes, filemode)


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


def _working_tree_once(
    repo: Repository, range_: Range, rules: RuleSet, max_content_bytes: int
) -> tuple[ChangeSet, WorkTree] | ChangeSet:
    """One read of W; a ChangeSet alone when W cannot be read at all."""
    try:
        entries, index_mtime_ns = _read_index(repo)
    except (OSError, UnreadableIndex) as error:
        return _incomplete(range_, Stage.COLLECT, f"cannot read the index: {error}")
    conflicts = _conflict_message(entries)
    if conflicts is not None:
        return _incomplete(range_, Stage.COLLECT, conflicts)
    index = index_tree(entries)
    tree = _work_tree(repo, index)
    differs = _base_against_index(repo, _tree_of(repo, range_.base), index)
    assert repo.root is not None
    ignores = ignore_rules(repo.root, repo.commondir, repo.config, repo.environ)
    try:
        walk = tree.untracked(index, ignores)
    except Unreadable as error:
        return _incomplete(range_, Stage.COLLECT, f"the work tree {error.why}.")
    scan = tree.scan(entries, differs, index_mtime_ns, walk.replaced)
    if tree.folders_for_files:  # tracked files that are folders now: their files are untracked
        beneath = tree.untracked(index, ignores, tree.folders_for_files)
        walk.untracked.update(beneath.untracked)
        walk.unreadable.extend(beneath.unreadable)
    unchecked = [_unreadable(error) for error in (*scan.unreadable, *walk.unreadable)]
    untracked = walk.untracked
    raw = sorted(scan.changes + _untracked_changes(differs, index, untracked))
    changes, more = _to_changes(repo, raw, rules, tree, max_content_bytes)
    pending = tuple(sorted(decode(path) for path in scan.pending))
    return ChangeSet(tuple(changes), range_, pending, (*unchecked, *more)), tree


def _base_against_index(
    repo: Repository, base_tree: bytes, index: IndexTree
) -> dict[bytes, TreeEntry | None]:
    """The base's entry at every path where the base and the index differ (None: the base has
    none there), by diffing the base tree with the trees the index would write: folders whose
    trees are equal are never read, so the cost follows the change, not the repository."""
    written = index.trees

    def read(sha: bytes) -> bytes:
        raw = written.get(sha)
        return raw if raw is not None else read_raw(repo.objects, sha, TREE)

    return {path: old for path, old, _ in diff_trees(read, base_tree, index.root)}


def _unreadable(error: Unreadable) -> Unchecked:
    """One path (or a folder's contents: `folder/`) whose change is unknown; rules that never
    look at it are still decided."""
    path = decode(error.path)
    return Unchecked(None, Stage.COLLECT, f"{path}: {error.why}.", path)


def _autocrlf(config: GitConfig) -> bool:
    """Whether `core.autocrlf` converts line endings on the way in (`true` or `input`)."""
    value = config.get("core", "autocrlf")
    if value is not None and value.lower() == "input":
        return True
    return config.boolean("core", "autocrlf", False)


def _to_changes(
    repo: Repository,
    raw: list[RawChange],
    rules: RuleSet,
    worktree: WorkTree | None,
    max_content_bytes: int,
) -> tuple[list[Change], list[Unchecked]]:
    """Core Change values, with content loaded only for the paths a selector reads."""
    wanted = rules.content_paths(decode(path) for path, _, _ in raw)
    changes: list[Change] = []
    unchecked: list[Unchecked] = []
    limit = max_content_bytes + 1  # one byte over tells the evaluator "too big"
    for path, old, new in raw:
        name = decode(path)
        load = name in wanted
        try:
            old_side = _side(old, _blob(repo, old[1], limit) if load and old else None)
            if new is None:
                new_side = None
            elif not load:
                new_side = _side(new, None)
            elif worktree is None:
                new_side = _side(new, _blob(repo, new[1], limit))
            else:
                new_side = _side(new, _file(worktree, path, new, limit))
            changes.append(Change(name, old_side, new_side))
        except DamagedObject as error:
            unchecked.append(Unchecked(None, Stage.COLLECT, f"{name}: {error.advice}", name))
        except (KeyError, OSError, ValueError) as error:  # a missing blob, a file, a bad mode
            unchecked.append(Unchecked(None, Stage.COLLECT, f"cannot read {name}: {error}.", name))
    return changes, unchecked


def _side(entry: TreeEntry | None, content: bytes | None) -> Side | None:
    if entry is None:
        return None
    return Side(entry[0], entry[1].hex(), content)


def _blob(repo: Repository, sha: bytes, limit: int) -> bytes:
    return read_raw(repo.objects, sha, BLOB)[:limit]


def _file(tree: WorkTree, path: bytes, entry: TreeEntry, limit: int) -> bytes | None:
    if entry[0] not in (0o100644, 0o100755):
        return None  # symlinks are never followed; the evaluator reports them unchecked
    with open(tree.root + b"/" + path, "rb") as handle:
        return handle.read(limit)
