"""Which configuration judges a check, and what a report says when the working tree's cannot
stand for it.

A working-tree check is judged by the configuration on disk; a committed check by the one
committed at HEAD, read from git objects, as CI will judge the pull request. So a working tree
whose configuration is broken (a `pyproject.toml` mid-edit, turned into a folder or a FIFO)
stops only what reads it: a committed check still runs, and says the working tree's is
invalid. And a config file git has but the disk lacks (a sparse checkout, a `skip-worktree` or
`assume-unchanged` entry whose file is gone), or holds otherwise (an `assume-unchanged` file
edited), leaves a working-tree check *unchecked*, naming the file: git counts it as unchanged,
so its rules are in force, but cagr cannot read them.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from cagr_config.sources import FRAGMENTS, ROOT_FILE, is_config_source
from cagr_core.changes import ChangeSet, Stage, Unchecked
from cagr_core.errors import ConfigIssue
from cagr_core.report import UncommittedConfig
from cagr_core.values import replace, value
from cagr_git.discover import Checkout
from cagr_git.objects import DamagedObject
from cagr_git.refs import read_ref
from cagr_git.repository import Repository, open_repo
from cagr_git.worktree import blob_id

from .config import ConfigErrors, RepoConfig, config_from, load_config
from .config_changes import REGULAR_MODES, config_entries_at, config_files_at, uncommitted_config
from .config_files import ConfigFiles, find_config_files

TYPE_CHECKING = False  # not typing's: a check need not import it
if TYPE_CHECKING:
    from typing import TypeVar

    _T = TypeVar("_T")

_LISTED = 5  # problems or files named in one message


@value
class InvalidConfig:
    """A working tree's configuration that cannot be used: its files' digest (which the PR
    gate compares, and which needs no parsing) and every problem."""

    root: str
    raw_digest: str
    issues: tuple[ConfigIssue, ...]

    def errors(self) -> ConfigErrors:
        return ConfigErrors(list(self.issues))

    def listed(self) -> str:
        """The first problems, for one line."""
        return _listed(self.issues)


WorkingConfig = RepoConfig | InvalidConfig


def read_working_config(root: str, gitdir: str | None = None) -> WorkingConfig:
    """The configuration on disk at `root`, or why it cannot be used (with the checkout's git
    directory, read through the compiled configuration kept there; see load_config)."""
    try:
        return load_config(root, gitdir)
    except ConfigErrors as errors:
        return InvalidConfig(root, find_config_files(root).digest(), tuple(errors.issues))


@value
class CommittedConfig:
    """What judges a committed check: HEAD's configuration (`config`; the working tree's when
    both are the same, or when there is no HEAD to read), or None when HEAD's is invalid
    (`head_issues` lists why). `seen_digest` is the working tree's config files' digest, the one
    the PR gate compares; `differs` is what the report says of a working tree whose
    configuration is not HEAD's (an Unchecked when it may hold rules HEAD lacks, which would
    judge nothing)."""

    config: RepoConfig | None
    seen_digest: str
    from_head: bool = False
    differs: UncommittedConfig | Unchecked | None = None
    head_issues: tuple[ConfigIssue, ...] = ()

    def invalid_head(self) -> Unchecked:
        """The unchecked item for a HEAD whose configuration is invalid."""
        return Unchecked(
            None,
            Stage.CONFIG,
            f"the configuration committed at HEAD is invalid ({_listed(self.head_issues)}), so"
            " HEAD cannot be"
            " judged by its own rules. Commit a valid configuration, then check again.",
        )


def committed_config(
    working: WorkingConfig, checkout: Checkout, commit: str | None = None
) -> CommittedConfig:
    """The configuration a committed check of `checkout` is judged by: HEAD's, or `commit`'s
    (a pushed branch that is not checked out)."""
    seen = working.raw_digest
    files = _at_head(checkout, config_files_at, commit)
    if files is None:  # no commit yet, or unreadable: the collection says so
        fallback = working if isinstance(working, RepoConfig) else _no_rules(working.root)
        return CommittedConfig(fallback, seen)
    if isinstance(working, RepoConfig) and files.digest() == working.raw_digest:
        return CommittedConfig(working, seen)
    try:
        head = config_from(working.root, files)
    except ConfigErrors as errors:
        return CommittedConfig(None, seen, head_issues=tuple(errors.issues))
    not_on_disk = tuple(name for name, _ in files.sources() if _absent(working.root, name))
    return CommittedConfig(head, seen, True, _differs(head, working, not_on_disk))


def _no_rules(root: str) -> RepoConfig:
    return config_from(root, ConfigFiles())


def _differs(
    head: RepoConfig, working: WorkingConfig, not_on_disk: tuple[str, ...]
) -> UncommittedConfig | Unchecked | None:
    """What a committed check says of a working tree's configuration that is not HEAD's: rules
    only in the working tree, with none at HEAD, leave it unchecked (they would judge nothing,
    and a pass would be taken for theirs); so does an unreadable one, which may hold rules;
    other differences are said first."""
    missing = (
        f"{_names(not_on_disk)} {_is(not_on_disk)} committed but not in the working tree"
        if not_on_disk
        else None
    )
    if isinstance(working, InvalidConfig):
        invalid = f"it is invalid: {working.listed()}; fix it before you commit"
        if not head.rules.rules:
            return Unchecked(
                None,
                Stage.CONFIG,
                f"HEAD has no change rules committed, and the working tree's configuration is"
                f" invalid ({working.listed()}), so whether rules should judge this check is"
                " unknown. Fix the configuration and commit it, then check again.",
            )
        return UncommittedConfig(note="; ".join(n for n in (invalid, missing) if n))
    if not head.rules.rules and working.rules.rules:
        ids = [compiled.id for compiled in working.rules.rules]
        shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        return Unchecked(
            None,
            Stage.CONFIG,
            f"HEAD has no change rules committed, but the working tree's configuration has"
            f" {len(ids)} rule(s) ({shown}). Rules that are not committed do not judge a"
            " committed check (CI reads HEAD's): commit your rules (cagr.toml, .cagr/ or"
            " [tool.cagr] in pyproject.toml), then check again.",
        )
    differs = uncommitted_config(head, working)
    if missing is None:
        return differs
    return replace(differs or UncommittedConfig(), note=missing)


@value
class UnlikeGit:
    """Config files where the disk is not git's view of the working tree: `absent`, git has
    them and the disk does not (git trusts a skip-worktree or assume-unchanged entry without
    looking); `differs`, the disk holds other bytes than git's view (an assume-unchanged file
    edited), so the rules cagr read are not the ones git has."""

    absent: tuple[str, ...] = ()
    differs: tuple[str, ...] = ()

    def unchecked(self) -> Unchecked | None:
        """The unchecked item that says so, naming each file (None: the disk is git's view)."""
        said = []
        if self.absent:
            said.append(
                f"{_names(self.absent)} {_is(self.absent)} tracked but not in the working tree"
            )
        if self.differs:
            said.append(
                f"{_names(self.differs)} {_is(self.differs)} not what git has in the working tree"
                " (its index entry is trusted without a look)"
            )
        if not said:
            return None
        return Unchecked(
            None,
            Stage.CONFIG,
            f"{'; '.join(said)}: a sparse checkout, or an index entry marked skip-worktree or"
            " assume-unchanged. git counts such a file as unchanged, so the rules in force are"
            " ones cagr cannot read, and this check cannot say whether they pass. Bring the"
            " files back as git has them (`git sparse-checkout add` their folder, or `git"
            " update-index --no-skip-worktree --no-assume-unchanged FILE`, then `git status`),"
            " or judge the commits with `cagr rules check --committed`.",
        )


def config_unlike_git(repo: Repository, changes: ChangeSet, root: str) -> UnlikeGit:
    """Compare the config files on disk with git's view of them in the working tree: the merge
    base's, unless the change set changes them. Costs a few tree reads and the hashing of the
    config files, not another pass over the index."""
    if changes.range is None:
        return UnlikeGit()
    try:
        in_git = dict(config_entries_at(repo, changes.range.base))
    except (KeyError, DamagedObject):
        return UnlikeGit()  # the collection could not have read the base either: it says so
    for change in changes.changes:
        if not is_config_source(change.path):
            continue
        if change.new is None:
            in_git.pop(change.path, None)
        else:
            in_git[change.path] = (change.new.mode, bytes.fromhex(change.new.oid))
    on_disk = dict(find_config_files(root).read)
    absent = tuple(sorted(name for name in in_git if _absent(root, name)))
    differs = tuple(
        sorted(
            name
            for name, (mode, oid) in in_git.items()
            if name in on_disk and mode in REGULAR_MODES and not _same_blob(on_disk[name], oid)
        )
    )
    return UnlikeGit(absent, differs)


def _same_blob(data: bytes, oid: bytes) -> bool:
    """Whether `data` is the blob `oid`, as written or with CRLF line ends made LF (what
    `core.autocrlf` and `text`/`eol` attributes do on the way into git)."""
    return blob_id(data) == oid or (
        b"\r\n" in data and blob_id(data.replace(b"\r\n", b"\n")) == oid
    )


def committed_not_on_disk(checkout: Checkout, root: str) -> tuple[str, ...]:
    """The config files HEAD holds that the disk lacks (a few tree reads), whether the working
    tree deletes them or git keeps them without a file: rules that what reads the disk misses."""
    return tuple(
        name for name, _ in _at_head(checkout, config_entries_at) or () if _absent(root, name)
    )


def committed_otherwise_on_disk(checkout: Checkout, root: str) -> tuple[str, ...]:
    """The config files HEAD holds that the disk lacks or holds otherwise: where a working tree
    without rules on disk may still have rules in force, which only a check can tell."""
    on_disk = dict(find_config_files(root).read)
    return tuple(
        name
        for name, (_, oid) in _at_head(checkout, config_entries_at) or ()
        if name not in on_disk or not _same_blob(on_disk[name], oid)
    )


def _at_head(
    checkout: Checkout, read: Callable[[Repository, str], _T], commit: str | None = None
) -> _T | None:
    """`read` of HEAD's commit (or `commit`); None when there is no commit yet, or it cannot be
    read (what collects the change says so)."""
    with open_repo(checkout) as repo:
        head = commit or read_ref(checkout, "HEAD")
        if head is None or repo.problem is not None:
            return None
        try:
            return read(repo, head)
        except (KeyError, DamagedObject):
            return None


def _listed(issues: tuple[ConfigIssue, ...]) -> str:
    shown = "; ".join(str(issue) for issue in issues[:_LISTED])
    more = len(issues) - _LISTED
    return shown + (f"; and {more} more" if more > 0 else "")


def _names(names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")


def _is(names: tuple[str, ...]) -> str:
    return "is" if len(names) == 1 else "are"


def _absent(root: str, name: str) -> bool:
    return not os.path.lexists(os.path.join(root, name))


@value
class UnreadConfig:
    """Config files where cagr does not read them: a `cagr.toml` or `.cagr/` fragment below
    the root (only the root's are sources)."""

    root: str
    names: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.names)

    def describe(self) -> str:
        return (
            f"{_names(self.names)} {_is(self.names)} not read: cagr reads cagr.toml,"
            " .cagr/**/*.toml and [tool.cagr] in pyproject.toml at the repository's root"
            f" ({self.root}) only,"
            " so no rule there judges anything. Move the rules to the root to have them count."
        )


def unread_config(checkout: Checkout, start: str | None = None) -> UnreadConfig:
    """Config files below the root (tracked, or in the folder cagr was run from) that no check
    reads. Costs a read of the index: asked only when no rules were found."""
    from cagr_git.index import UnreadableIndex, tracked_paths  # noqa: PLC0415  # only then

    root = checkout.root or checkout.gitdir
    try:
        tracked = tracked_paths(checkout.gitdir)
    except UnreadableIndex:
        tracked = []
    found = {path for path in tracked if _misplaced(path)}
    if start is not None and checkout.root is not None and start != root:
        here = os.path.relpath(start, root).replace(os.sep, "/")
        for name in (ROOT_FILE, FRAGMENTS):
            if not here.startswith("..") and os.path.lexists(os.path.join(start, name)):
                found.add(f"{here}/{name}")
    return UnreadConfig(root, tuple(sorted(found)))


def _misplaced(path: str) -> bool:
    """A path that would be a config source at the root but lies below it."""
    folder, _, name = path.rpartition("/")
    if not folder:
        return False
    below = f"/{FRAGMENTS}/" in path and not path.startswith(f"{FRAGMENTS}/")
    return name == ROOT_FILE or (below and name.endswith(".toml"))
