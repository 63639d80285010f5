"""A repository opened for reading: its format checked as git checks it, then refs, config,
the shallow list, objects and the commit-graph, each read by cagr's own readers.

Nothing here can write: no library's repository object is ever opened (one deletes refs when a
config names a reftable).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator, Mapping

from cagr_core.errors import CagrError

from .discover import Checkout
from .files import read_regular
from .gitconfig import GitConfig, GitConfigError, read_git_config, repository_settings
from .history import CommitGraph
from .objects import ObjectReader
from .refs import head_ref, read_ref
from .substitutes import NONE, SubstituteProblem, Substitutes, read_substitutes


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
        try:
            self._substitutes  # noqa: B018  # the same: `objects` reads them
        except SubstituteProblem as error:
            return f"{error}. Repair it, then check again."
        return None

    @functools.cached_property
    def _substitutes(self) -> Substitutes:
        """The replace refs and grafts git reads here; SubstituteProblem where git refuses them."""
        try:
            use = self.config.boolean("core", "useReplaceRefs", True)
        except (UnsupportedRepository, GitConfigError):
            use = True  # `problem` says why the configuration cannot be read
        return read_substitutes(self.checkout, self.environ, use)

    @functools.cached_property
    def objects(self) -> ObjectReader:
        """The objects, read as git reads them (with its replacements and grafts)."""
        try:
            substitutes = self._substitutes
        except SubstituteProblem:
            substitutes = NONE  # `problem` says why, and nothing is judged
        return ObjectReader(os.path.join(self.commondir, "objects"), substitutes)

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
        """The commit-graph, read as git reads it: not in a shallow clone, nor while replace refs
        or grafts are in force (the graph's parents are not the ones git reads), and as git's
        settings say (`core.commitGraph`; corrected commit dates from
        `commitGraph.generationVersion` 2, git's default)."""
        if self.shallow or self.objects.substitutes.active:
            return None
        if not self.config.boolean("core", "commitGraph", True):
            return None
        try:
            version = int(self.config.get("commitGraph", "generationVersion") or "2")
        except ValueError:
            version = 2
        objects = os.path.join(self.commondir, "objects")
        return CommitGraph.load(objects, corrected_dates=version >= 2)

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
