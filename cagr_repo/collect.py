"""Collecting a ChangeSet from a checkout: merge base -> HEAD, or merge base -> working tree.

Nothing here writes anything: not the index, refs, objects or working tree, nor any cache. A
working-tree change is the baseline's tree against the trees the index would write (compared
where their ids differ), then the index against the files on disk. Whatever cannot be read
exactly is returned as an unchecked item on the ChangeSet, which the evaluator never turns
into a pass.
"""

from __future__ import annotations

from cagr_core.changes import MAX_CONTENT_BYTES, Change, ChangeSet, Range, Side, Stage, Unchecked
from cagr_core.errors import CagrError
from cagr_core.ruleset import RuleSet
from cagr_core.values import replace
from cagr_git.collector import paused_collector
from cagr_git.gitconfig import GitConfigError
from cagr_git.objects import BLOB, DamagedObject, commit_tree, read_raw
from cagr_git.repository import Repository
from cagr_git.status import RawChange, StatusProblem, index_signature, working_tree_status
from cagr_git.trees import TreeEntry, diff_trees
from cagr_git.worktree import Unreadable, WorkTree

from .range import RangeProblem, head_commit, merge_base, resolve_target
from .target import missing_target_advice, own_branch_problem

TYPE_CHECKING = False  # not typing's
if TYPE_CHECKING:
    from collections.abc import Callable


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


def _resolve(  # noqa: PLR0913  # the range's parts, each as the caller gave it
    repo: Repository,
    name: str,
    committed: bool,
    chosen_by: str | None,
    own_branch: str | None,
    *,
    head: str | None = None,
) -> Range:
    head = head or head_commit(repo)
    try:
        target = resolve_target(repo, name)
    except RangeProblem as problem:
        advice = missing_target_advice(chosen_by)
        if not advice:
            raise
        raise RangeProblem(problem.message, problem.fix + advice) from problem
    # A guessed target that is the branch being checked, under any remote, is no target: a
    # clone made while its source was on `feature` names origin/feature as origin/HEAD, and the
    # change would be only the unpushed commits. The local branch itself leaves the working
    # tree's edits to judge, but no commit.
    base = None
    if own_branch and target.ref in _own_refs(repo, own_branch):
        base = merge_base(repo, target, head)
        if target.ref != f"refs/heads/{own_branch}" or (committed and base == head):
            raise RangeProblem(*own_branch_problem(name, target.ref, chosen_by or "default"))
    base = base or merge_base(repo, target, head)
    return Range(target.ref, target.sha, base, head if committed else None, chosen_by)


def _own_refs(repo: Repository, branch: str) -> frozenset[str]:
    """The refs that are `branch` itself: the local branch and its copy under each remote git
    knows (so its upstream too, when that has its name). An upstream of another name is what
    the branch merges into (`git checkout -b feature origin/main` tracks main): a target."""
    config = repo.config
    remotes = {"origin"} | {sub for sec, sub, _ in config.values if sec == "remote" and sub}
    return frozenset({f"refs/heads/{branch}", *(f"refs/remotes/{r}/{branch}" for r in remotes)})


def collect_committed(  # noqa: PLR0913  # keyword-only options, each with a default
    repo: Repository,
    name: str,
    rules: RuleSet,
    *,
    chosen_by: str | None = None,
    own_branch: str | None = None,
    head: str | None = None,
) -> ChangeSet:
    """Merge base -> HEAD (or the commit `head`), tree to tree. `chosen_by` says which rule
    chose the target `name`; a target that resolves to the branch `own_branch` (local or
    origin's) is unchecked."""
    if repo.problem is not None:
        return _incomplete(None, Stage.RANGE, repo.problem)
    try:
        range_ = _resolve(repo, name, True, chosen_by, own_branch, head=head)
    except RangeProblem as problem:
        return _problem_set(problem)
    assert range_.head is not None
    with paused_collector():  # 8,000 changed files: 101 -> 84 ms without collecting
        return _committed(repo, range_, rules)


def _committed(repo: Repository, range_: Range, rules: RuleSet) -> ChangeSet:
    assert range_.head is not None
    try:
        raw = diff_trees(repo.objects, _tree_of(repo, range_.base), _tree_of(repo, range_.head))
    except KeyError as error:
        return _missing_object(error)
    except DamagedObject as error:
        return _damaged(range_, error)
    changes, unchecked = _to_changes(repo, raw, rules, None)
    return ChangeSet(tuple(changes), range_, unchecked=tuple(unchecked))


def collect_working_tree(
    repo: Repository,
    name: str,
    rules: RuleSet,
    *,
    chosen_by: str | None = None,
    own_branch: str | None = None,
) -> ChangeSet:
    """Merge base -> the working tree, retried once if it changes while being read (the
    target as for collect_committed)."""
    if repo.bare:
        raise BareRepository("a bare repository has no working tree; use --committed")
    if repo.problem is not None:
        return _incomplete(None, Stage.RANGE, repo.problem)
    try:
        range_ = _resolve(repo, name, False, chosen_by, own_branch)
    except RangeProblem as problem:
        return _problem_set(problem)
    return _read_working_tree(repo, range_, rules)


def _read_working_tree(repo: Repository, range_: Range, rules: RuleSet) -> ChangeSet:
    """The base -> working tree change set of a resolved range, read again if it moved."""
    for _ in range(2):
        before = index_signature(repo)
        try:
            status = working_tree_status(repo, _tree_of(repo, range_.base))
        except StatusProblem as problem:
            return _incomplete(range_, Stage.COLLECT, str(problem))
        except KeyError as error:  # the base tree, or a tree below it, is not in this clone
            return _missing_object(error)
        except DamagedObject as error:
            return _damaged(range_, error)
        except GitConfigError as error:  # a setting the working tree needs, which git refuses
            return _incomplete(range_, Stage.COLLECT, f"{error}; git refuses it too. Repair it.")
        changes, unreadable = _to_changes(repo, status.changes, rules, status.tree)
        unchecked = [_unreadable(error) for error in status.unreadable]
        pending = tuple(sorted(decode(path) for path in status.pending))
        if index_signature(repo) == before and status.tree.unchanged():
            return ChangeSet(tuple(changes), range_, pending, (*unchecked, *unreadable))
    return _incomplete(
        range_,
        Stage.COLLECT,
        "the working tree or index changed while cagr read it, twice."
        " Let other tools finish writing, then check again.",
    )


def collect_snapshot(
    repo: Repository,
    rules: RuleSet,
    paths: tuple[str, ...] | None = None,
) -> ChangeSet:
    """The working tree's files, each as if added (no baseline: a snapshot judges no change):
    every tracked file present and every untracked file that is not ignored, or those at or
    under `paths` (repo-relative), read again if the tree moves while being read."""
    if repo.bare:
        raise BareRepository("a bare repository has no working tree to check")
    if repo.problem is not None:
        return _incomplete(None, Stage.RANGE, repo.problem)
    range_ = Range.of_snapshot()
    for _ in range(2):
        before = index_signature(repo)
        try:
            status = working_tree_status(repo, None)
        except StatusProblem as problem:
            return _incomplete(range_, Stage.COLLECT, str(problem))
        except KeyError as error:
            return _missing_object(error)
        except DamagedObject as error:
            return _damaged(range_, error)
        except GitConfigError as error:
            return _incomplete(range_, Stage.COLLECT, f"{error}; git refuses it too. Repair it.")
        raw: list[RawChange] = [
            (path, None, new)
            for path, _, new in status.changes
            if new is not None and (paths is None or _within(decode(path), paths))
        ]
        changes, unreadable = _to_changes(repo, raw, rules, status.tree)
        unchecked = [
            _unreadable(error)
            for error in status.unreadable
            if paths is None or _within(decode(error.path), paths)
        ]
        if index_signature(repo) == before and status.tree.unchanged():
            return ChangeSet(tuple(changes), range_, (), (*unchecked, *unreadable))
    return _incomplete(
        range_,
        Stage.COLLECT,
        "the working tree or index changed while cagr read it, twice."
        " Let other tools finish writing, then check again.",
    )


def _within(path: str, paths: tuple[str, ...]) -> bool:
    """Whether `path` is one of `paths` or inside one of them (`.`: everything)."""
    return any(p in ("", ".") or path == p or path.startswith(p.rstrip("/") + "/") for p in paths)


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
    worktree = _read_working_tree(repo, replace(range_, head=None), RuleSet.of(()))
    if worktree.unchecked:
        return None
    at_head = {c.path: (c.new.mode, c.new.oid) if c.new else None for c in committed.changes}
    in_tree = {c.path: (c.new.mode, c.new.oid) if c.new else None for c in worktree.changes}
    return sum(
        1
        for path in at_head.keys() | in_tree.keys()
        if path not in at_head or path not in in_tree or at_head[path] != in_tree[path]
    )


def _unreadable(error: Unreadable) -> Unchecked:
    """One path (or a folder's contents: `folder/`) whose change is unknown; rules that never
    look at it are still decided."""
    path = decode(error.path)
    return Unchecked(None, Stage.COLLECT, f"{path}: {error.why}.", path)


def _to_changes(
    repo: Repository,
    raw: list[RawChange],
    rules: RuleSet,
    worktree: WorkTree | None,
) -> tuple[list[Change], list[Unchecked]]:
    """Core Change values, with content loaded only for the paths a selector reads."""
    wanted = rules.content_paths(decode(path) for path, _, _ in raw)
    read = _reader(rules) if wanted else None
    changes: list[Change] = []
    unchecked: list[Unchecked] = []
    limit = MAX_CONTENT_BYTES + 1  # one byte over tells the reader "too big"
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
                new_side = _side(new, worktree.read(path, new[0], limit))
            change = Change(name, old_side, new_side)
            if load and read is not None:
                change = read(change)
            changes.append(change)
        except DamagedObject as error:
            unchecked.append(Unchecked(None, Stage.COLLECT, f"{name}: {error.advice}", name))
        except (KeyError, OSError, ValueError) as error:  # a missing blob, a file, a bad mode
            unchecked.append(Unchecked(None, Stage.COLLECT, f"cannot read {name}: {error}.", name))
    return changes, unchecked


def _reader(rules: RuleSet) -> Callable[[Change], Change] | None:
    """What reads a loaded change for the dependency and code rules (None: no rule does, and
    an add_only rule that compares whitespace reads the bytes themselves): the manifest
    readers and ast-grep load only for a change such a rule reads."""
    if not any(c.when.reads_manifests or c.kind == "code" for c in rules.rules):
        return None
    from cagr_code import read_change as search_code  # noqa: PLC0415
    from cagr_manifests import read_change  # noqa: PLC0415

    return lambda change: search_code(rules, read_change(rules, change, MAX_CONTENT_BYTES))


def _side(entry: TreeEntry | None, content: bytes | None) -> Side | None:
    if entry is None:
        return None
    return Side(entry[0], entry[1].hex(), content)


def _blob(repo: Repository, sha: bytes, limit: int) -> bytes:
    return read_raw(repo.objects, sha, BLOB)[:limit]
