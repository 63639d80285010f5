"""Opening a repository for reading, resolving the target and the merge base.

Everything here only reads. Problems that make a range impossible to know exactly (no target,
no or several merge bases, a shallow or incomplete history) become `RangeProblem`s, which the
collectors report as unchecked with an instruction, never as a fallback range.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from attrs import frozen

from cagr_core.errors import CagrError, ErrorWithFix

from .files import read_regular
from .gitconfig import GitConfig, GitConfigError, read_git_config, repository_settings
from .gitdir import Checkout, head_ref, is_sha, read_ref, ref_text
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
    """A repository cagr cannot read exactly (SHA-256 object ids, refs in a reftable, an
    extension git itself would need to know, an unreadable config); the message says so."""


# Extensions git honours in a repository of format 0 (it ignores all others there), and those
# of format 1 that cagr reads as git does, with the values it can read (None: any value).
_FORMAT_0_EXTENSIONS = frozenset(("noop", "preciousobjects", "partialclone", "worktreeconfig"))
_READABLE_EXTENSIONS: dict[str, frozenset[str] | None] = {
    **dict.fromkeys(_FORMAT_0_EXTENSIONS),
    "noop-v1": None,
    "relativeworktrees": None,
    "objectformat": frozenset(("sha1",)),
    "compatobjectformat": None,
    "refstorage": frozenset(("files",)),
}
_FORMAT_1_ONLY = frozenset(_READABLE_EXTENSIONS) - _FORMAT_0_EXTENSIONS


def unsupported(checkout: Checkout) -> str | None:
    """Why cagr cannot read this repository exactly, or None. git reads a repository's format
    from its own config file alone (no includes): format 0 ignores extensions it does not know
    and refuses format-1 ones, format 1 refuses unknown ones, and SHA-256 object ids or a
    reftable are formats cagr does not read."""
    where = checkout.commondir
    try:
        settings = repository_settings(where)
    except GitConfigError as error:
        return f"git cannot read this repository's configuration: {error}. Repair it first."
    text = settings.get("core", "repositoryFormatVersion") or "0"
    try:
        version = int(text, 0)
    except ValueError:
        version = -1
    if version == 0:
        for section, subsection, name in settings.values:
            if section == "extensions" and subsection is None and name in _FORMAT_1_ONLY:
                return (
                    f"{where} names `extensions.{name}` in a repository of format 0, which git"
                    " refuses (a format-1 extension). Remove the line, or set"
                    " core.repositoryFormatVersion to 1 if the repository really is of format 1."
                )
        return None  # git ignores extensions it does not know in a format-0 repository
    if version != 1:
        return (
            f"{where} has repository format version {text}, which cagr (like this git) does"
            " not read. Run cagr in a repository of format 0 or 1."
        )
    for section, subsection, name in settings.values:
        if section != "extensions" or subsection is not None:
            continue
        value = (settings.get(section, name) or "").lower()
        if name not in _READABLE_EXTENSIONS:
            return (
                f"{where} needs the repository extension `extensions.{name}`, which cagr does not"
                " know, so it cannot read this repository exactly."
            )
        allowed = _READABLE_EXTENSIONS[name]
        if allowed is None or value in allowed:
            continue
        if name == "refstorage":
            return (
                f"{where} keeps its refs in a {value} (`extensions.refStorage`), which cagr does"
                " not read yet. Run cagr in a clone that keeps refs in files, or convert this one"
                " (`git refs migrate --ref-format=files`)."
            )
        shown = value.upper().replace("SHA", "SHA-")
        return (
            f"{where} is a repository with {shown} object ids, which cagr does not read yet."
            " Run cagr in a SHA-1 repository."
        )
    return None


class Repository:
    """One repository as cagr reads it: refs and HEAD from their files, objects with cagr's own
    reader, config with cagr's own parser. Nothing here can write to the repository."""

    def __init__(self, checkout: Checkout, environ: Mapping[str, str] | None = None) -> None:
        self.checkout = checkout
        self.root = checkout.root
        self.gitdir = checkout.gitdir
        self.commondir = checkout.commondir
        self.bare = checkout.bare
        self.environ = os.environ if environ is None else environ
        self.index_path = os.path.join(checkout.gitdir, "index")

    @functools.cached_property
    def problem(self) -> str | None:
        """Why cagr cannot read this repository exactly (its format, its config), or None."""
        problem = unsupported(self.checkout)
        if problem is not None:
            return problem
        try:
            self.config  # noqa: B018  # read once here, so later reads cannot fail
        except UnsupportedRepository as error:
            return str(error)
        return None

    @functools.cached_property
    def objects(self) -> ObjectReader:
        return ObjectReader(os.path.join(self.commondir, "objects"))

    @functools.cached_property
    def config(self) -> GitConfig:
        """git's configuration here; UnsupportedRepository when git would refuse to read it."""
        head = head_ref(self.checkout)
        branch = head[len("refs/heads/") :] if head and head.startswith("refs/heads/") else None
        try:
            return read_git_config(self.gitdir, self.commondir, branch, self.environ)
        except GitConfigError as error:
            raise UnsupportedRepository(
                f"git cannot read this repository's configuration: {error}. Repair it"
                " (`git config --list` shows the same problem), then check again."
            ) from error

    @functools.cached_property
    def shallow(self) -> frozenset[str]:
        """The commits where a shallow clone's history stops (hex ids)."""
        data = read_regular(os.path.join(self.commondir, "shallow"), 256 * 1024 * 1024) or b""
        return frozenset(line.strip().decode("ascii", "replace") for line in data.splitlines())

    @functools.cached_property
    def commit_graph(self) -> CommitGraph | None:
        """The commit-graph, read as git reads it: not in a shallow clone (its parents are not
        the graph's), and as git's settings say (`core.commitGraph`; corrected commit dates
        from `commitGraph.generationVersion` 2, git's default)."""
        if self.shallow:
            return None
        if not self.config.boolean("core", "commitGraph", True):
            return None
        try:
            version = int(self.config.get("commitGraph", "generationVersion") or "2")
        except ValueError:
            version = 2
        return CommitGraph.load(Path(self.commondir) / "objects", corrected_dates=version >= 2)

    def ref(self, name: str) -> str | None:
        """The object id a ref (or HEAD, or a `*_HEAD` file) names; None when it names none."""
        return read_ref(self.checkout, name)

    def close(self) -> None:
        if "objects" in self.__dict__:
            self.objects.close()


@contextlib.contextmanager
def open_repo(checkout: Checkout) -> Iterator[Repository]:
    """The checkout's repository, opened for reading and closed afterwards. A repository cagr
    cannot read exactly says why in `problem`; the collectors report it as unchecked."""
    repo = Repository(checkout)
    try:
        yield repo
    finally:
        repo.close()


def head_commit(repo: Repository) -> str:
    """HEAD's commit id; RangeProblem when HEAD is unborn (no commit yet) or holds junk."""
    head = repo.ref("HEAD")
    if head is not None:
        return head
    text = ref_text(repo.checkout, "HEAD")
    if text is None:
        raise RangeProblem(
            "HEAD has no commit yet, so there is no branch baseline.",
            "Commit something first, then check again.",
        )
    raise RangeProblem(
        f"HEAD (or the branch it is on) holds {text[:50]!r}, which is not a commit id.",
        "Repair the ref (`git reflog` shows where it was), then check again.",
    )


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
    shallow = {bytes.fromhex(sha) for sha in repo.shallow if is_sha(sha)}
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
