"""Which configuration judges a check, and what a report says when the working tree's cannot
stand for it.

A working-tree check is judged by the configuration on disk; a committed check by the one
committed at HEAD, read from git objects, as CI will judge the pull request. So a working tree
whose configuration is broken (a `pyproject.toml` mid-edit, turned into a folder or a FIFO)
stops only what reads it: a committed check still runs, and says the working tree's is
invalid. And a config file git has but the disk lacks (a sparse checkout, a `skip-worktree` or
`assume-unchanged` entry whose file is gone) leaves a working-tree check *unchecked*, naming
the file: git counts it as unchanged, so its rules are in force, but cagr cannot read them.
"""

from __future__ import annotations

import os
from pathlib import Path

from attrs import evolve, frozen

from cagr_core.changes import ChangeSet, Stage, Unchecked
from cagr_core.config import ConfigIssue
from cagr_core.report import UncommittedConfig
from cagr_git.discover import Checkout
from cagr_git.objects import DamagedObject
from cagr_git.refs import read_ref
from cagr_git.repository import Repository, open_repo

from .config import ConfigErrors, RepoConfig, config_from, load_config
from .config_changes import config_entries_at, config_files_at, uncommitted_config
from .config_files import ConfigFiles, find_config_files, is_config_source

_LISTED = 5  # problems or files named in one message


@frozen
class InvalidConfig:
    """A working tree's configuration that cannot be used: its files' digest (which the PR
    gate compares, and which needs no parsing) and every problem."""

    root: Path
    raw_digest: str
    issues: tuple[ConfigIssue, ...]

    def errors(self) -> ConfigErrors:
        return ConfigErrors(list(self.issues))

    def listed(self) -> str:
        """The first problems, for one line."""
        shown = "; ".join(str(issue) for issue in self.issues[:_LISTED])
        more = len(self.issues) - _LISTED
        return shown + (f"; and {more} more" if more > 0 else "")


WorkingConfig = RepoConfig | InvalidConfig


def read_working_config(root: Path) -> WorkingConfig:
    """The configuration on disk at `root`, or why it cannot be used."""
    try:
        return load_config(root)
    except ConfigErrors as errors:
        return InvalidConfig(root, find_config_files(str(root)).digest(), tuple(errors.issues))


@frozen
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
        listed = InvalidConfig(Path(), "", self.head_issues).listed()
        return Unchecked(
            None,
            Stage.CONFIG,
            f"the configuration committed at HEAD is invalid ({listed}), so HEAD cannot be"
            " judged by its own rules. Commit a valid configuration, then check again.",
        )


def committed_config(working: WorkingConfig, checkout: Checkout) -> CommittedConfig:
    """The configuration a committed check of `checkout` is judged by."""
    seen = working.raw_digest
    with open_repo(checkout) as repo:
        files = _files_at_head(repo, checkout)
    if files is None:  # no commit yet, or unreadable: the collection says so
        fallback = working if isinstance(working, RepoConfig) else _no_rules(working.root)
        return CommittedConfig(fallback, seen)
    if isinstance(working, RepoConfig) and files.digest() == working.raw_digest:
        return CommittedConfig(working, seen)
    try:
        head = config_from(working.root, files)
    except ConfigErrors as errors:
        return CommittedConfig(None, seen, head_issues=tuple(errors.issues))
    not_on_disk = tuple(name for name, _ in files.read if _absent(working.root, name))
    return CommittedConfig(head, seen, True, _differs(head, working, not_on_disk))


def _files_at_head(repo: Repository, checkout: Checkout) -> ConfigFiles | None:
    head = read_ref(checkout, "HEAD")
    if head is None or repo.problem is not None:
        return None
    try:
        return config_files_at(repo, head)
    except (KeyError, DamagedObject):
        return None  # the collection reports unreadable objects itself


def _no_rules(root: Path) -> RepoConfig:
    return config_from(root, ConfigFiles())


def _differs(
    head: RepoConfig, working: WorkingConfig, not_on_disk: tuple[str, ...]
) -> UncommittedConfig | Unchecked | None:
    """What a committed check says of a working tree's configuration that is not HEAD's: rules
    only in the working tree, with none at HEAD, leave it unchecked (they would judge nothing,
    and a pass would be taken for theirs); so does an unreadable one, which may hold rules;
    other differences are said first."""
    missing = (
        f"{_names(not_on_disk)} {'is' if len(not_on_disk) == 1 else 'are'} committed but not in"
        " the working tree"
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
        ids = [compiled.rule.id for compiled in working.rules.rules]
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
    return evolve(differs or UncommittedConfig(), note=missing)


def absent_config_sources(repo: Repository, changes: ChangeSet, root: Path) -> tuple[str, ...]:
    """Config files in git's view of the working tree that are not on disk: in the merge base
    and not deleted since, or added, yet absent (git trusts a skip-worktree or
    assume-unchanged entry without looking). Read from the merge base's tree and the change
    set, so it costs a few tree reads, not another pass over the index."""
    if changes.range is None:
        return ()
    gone = {c.path for c in changes.changes if c.new is None}
    added = {c.path for c in changes.changes if c.new is not None and is_config_source(c.path)}
    try:
        at_base = {name for name, _ in config_entries_at(repo, changes.range.base)}
    except (KeyError, DamagedObject):
        return ()  # the collection could not have read the base either: it says so
    in_git = (at_base - gone) | added
    return tuple(sorted(name for name in in_git if _absent(root, name)))


def committed_not_on_disk(checkout: Checkout, root: Path) -> tuple[str, ...]:
    """The config files HEAD holds that the disk lacks (a few tree reads), whether the working
    tree deletes them or git keeps them without a file: rules that what reads the disk misses."""
    with open_repo(checkout) as repo:
        head = read_ref(checkout, "HEAD")
        if head is None or repo.problem is not None:
            return ()
        try:
            entries = config_entries_at(repo, head)
        except (KeyError, DamagedObject):
            return ()
    return tuple(name for name, _ in entries if _absent(root, name))


def absent_unchecked(names: tuple[str, ...]) -> Unchecked:
    """The unchecked item for config files git has and the disk lacks."""
    one = len(names) == 1
    return Unchecked(
        None,
        Stage.CONFIG,
        f"{_names(names)} {'is' if one else 'are'} tracked but not in the working tree (a sparse"
        " checkout, or an index entry marked skip-worktree or assume-unchanged whose file is"
        f" gone), so {'its' if one else 'their'} rules were not read and this check cannot say"
        " whether they pass. Bring the files back (`git sparse-checkout add` their folder, or"
        " `git update-index --no-skip-worktree --no-assume-unchanged FILE` and `git checkout --"
        " FILE`), or judge the commits with `cagr rules check --committed`.",
    )


def _names(names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")


def _absent(root: Path, name: str) -> bool:
    return not os.path.lexists(os.path.join(root, name))
