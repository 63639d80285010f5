"""Opening a repository with dulwich, resolving the target and the merge base.

Everything here only reads. Problems that make a range impossible to know exactly (no target,
no or several merge bases, a shallow or incomplete history) become `RangeProblem`s, which the
collectors report as unchecked with an instruction, never as a fallback range.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from pathlib import Path

from attrs import frozen
from dulwich.refs import Ref
from dulwich.repo import Repo

from cagr_core.errors import CagrError, ErrorWithFix

from .gitdir import Checkout, is_sha, unsupported
from .history import CommitGraph, History, merge_bases
from .objects import COMMIT, DamagedObject, ObjectReader, read_raw
from .revisions import RevisionProblem, resolve_revision


class RangeProblem(ErrorWithFix):
    """The range cannot be known exactly; the message says what to do."""


@frozen
class Target:
    """The resolved target: the name asked for, the ref it resolved through (or the revision,
    when it is not a ref: `HEAD~2`, a commit id), and its commit."""

    name: str
    ref: str
    sha: str


class UnsupportedRepository(CagrError):
    """A repository cagr cannot read exactly (SHA-256 object ids); the message says so."""


class Repository(Repo):
    """A repository opened with dulwich (refs, config, ignore rules), whose objects cagr reads
    with its own reader (`objects`)."""

    @functools.cached_property
    def objects(self) -> ObjectReader:
        return ObjectReader(os.path.join(self.commondir(), "objects"))

    @functools.cached_property
    def commit_graph(self) -> CommitGraph | None:
        """The commit-graph, read as git reads it: not in a shallow clone (its parents are not
        the graph's), and as git's settings say (`core.commitGraph`; corrected commit dates
        from `commitGraph.generationVersion` 2, git's default)."""
        if self.get_shallow():
            return None
        config = self.get_config_stack()
        if not config.get_boolean((b"core",), b"commitGraph", True):
            return None
        try:
            version = int(config.get((b"commitGraph",), b"generationVersion"))
        except (KeyError, ValueError):
            version = 2
        return CommitGraph.load(Path(self.commondir()) / "objects", corrected_dates=version >= 2)

    def close(self) -> None:
        if "objects" in self.__dict__:
            self.objects.close()
        super().close()


@contextlib.contextmanager
def open_repo(checkout: Checkout) -> Iterator[Repository]:
    """The checkout's repository, opened and closed afterwards."""
    problem = unsupported(checkout)
    if problem is not None:
        raise UnsupportedRepository(problem)
    repo = Repository(checkout.root if checkout.root is not None else checkout.gitdir)
    try:
        yield repo
    finally:
        repo.close()


def head_commit(repo: Repo) -> str:
    """HEAD's commit id; RangeProblem when HEAD is unborn (no commit yet) or holds junk."""
    try:
        value = repo.refs[Ref(b"HEAD")]
    except KeyError as error:
        raise RangeProblem(
            "HEAD has no commit yet, so there is no branch baseline.",
            "Commit something first, then check again.",
        ) from error
    text = value.decode("ascii", "replace")
    if not is_sha(text):
        raise RangeProblem(
            f"HEAD (or the branch it is on) holds {text[:50]!r}, which is not a commit id.",
            "Repair the ref (`git reflog` shows where it was), then check again.",
        )
    return text


def resolve_target(repo: Repository, name: str) -> Target:
    """The commit a target names: a branch (`origin/<name>`, then the local `<name>`), or any
    revision git resolves to a commit (tag, full or short id, `HEAD~2`, `main^`)."""
    try:
        resolved = resolve_revision(repo, name)
    except RevisionProblem as problem:
        raise RangeProblem(problem.message, problem.fix) from problem
    return Target(name, resolved.ref, resolved.sha)


def merge_base(repo: Repository, target: Target, head: str) -> str:
    """The unique merge base of the target and HEAD; RangeProblem when it is not one commit.

    Computed every time: a remembered base could not be checked without the walk it would save,
    and a wrong one (written by hand, say) would hide the branch's commits.
    """
    shallow = {bytes.fromhex(s.decode("ascii")) for s in repo.get_shallow()}
    history = History(lambda oid: read_raw(repo.objects, oid, COMMIT), repo.commit_graph, shallow)
    try:
        bases = merge_bases(history, bytes.fromhex(target.sha), bytes.fromhex(head))
    except KeyError as error:
        raise RangeProblem(
            "the history between the target and HEAD is incomplete (a commit is missing).",
            "Fetch the full history: `git fetch --unshallow` or `git fetch origin`.",
        ) from error
    except DamagedObject as error:
        raise RangeProblem(
            "the history between the target and HEAD cannot be read:", error.advice
        ) from error
    if not bases:
        if shallow:
            raise RangeProblem(
                f"this is a shallow clone and its history stops before the merge base of"
                f" {target.name} and HEAD.",
                "Fetch more history: `git fetch --unshallow` (in CI: fetch-depth: 0).",
            )
        raise RangeProblem(
            f"HEAD and {target.name} share no history, so there is no merge base.",
            "Check the target with --base.",
        )
    if shallow and bases not in ([bytes.fromhex(target.sha)], [bytes.fromhex(head)]):
        # Below a shallow cut-off, a nearer common ancestor may hide: only "one side contains
        # the other" is certain in a cut history.
        raise RangeProblem(
            f"this is a shallow clone, so the merge base of {target.name} and HEAD cannot be"
            " known exactly (a nearer one may lie below the history's cut-off).",
            "Fetch the full history: `git fetch --unshallow` (in CI: fetch-depth: 0).",
        )
    if len(bases) > 1:
        listed = ", ".join(sorted(b.hex()[:7] for b in bases))
        raise RangeProblem(
            f"HEAD and {target.name} have {len(bases)} merge bases ({listed}), so the branch"
            " baseline is ambiguous.",
            f"Merge or rebase onto {target.name} so there is one merge base.",
        )
    return bases[0].hex()
