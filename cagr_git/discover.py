"""Finding a checkout's git directories, with the standard library only.

This is the one place that decides which repository a folder belongs to, the way git does:
walking up from the folder, a `.git` file points at a git directory (linked worktrees,
submodules), a `.git` folder counts only when it really is a git directory (an empty or fake
`.git` folder is passed over, as git passes over it), and a folder that is itself a git directory
is a bare repository. The gate's fast path uses it too, so it imports nothing outside the
standard library and cagr's exception base.
"""

from __future__ import annotations

import os

from cagr_core.errors import CagrError
from cagr_core.values import value

from .files import read_regular, read_text
from .object_ids import is_sha


class NotARepository(CagrError):
    """The folder is not inside a git repository, or its `.git` file is broken (exit 2)."""


@value
class Checkout:
    """Where a repository lives: its work tree (None when bare), this worktree's git directory
    (`.git`, or `.git/worktrees/NAME` for a linked worktree) and the common git directory."""

    root: str | None
    gitdir: str
    commondir: str

    @property
    def bare(self) -> bool:
        return self.root is None


def _common_dir(gitdir: str) -> str:
    data = read_regular(os.path.join(gitdir, "commondir"), 4096)
    if data is None:
        return gitdir
    pointer = data.decode("utf-8", "surrogateescape").strip()
    return os.path.normpath(os.path.join(gitdir, pointer))


def is_git_directory(path: str) -> bool:
    """git's own test: a valid HEAD, and `objects` and `refs` folders (in the common directory)."""
    common = _common_dir(path)
    if not (os.path.isdir(os.path.join(common, "objects"))):
        return False
    if not os.path.isdir(os.path.join(common, "refs")):
        return False
    head = os.path.join(path, "HEAD")
    if os.path.islink(head):
        return os.readlink(head).startswith("refs/")
    text = read_text(head, 256)
    return text is not None and (text.startswith("ref: refs/") or is_sha(text))


def _gitfile_target(dotgit: str) -> str:
    """The git directory a `.git` file points at (`gitdir: PATH`, relative to the file)."""
    text = read_text(dotgit, 4096)
    if text is None:
        raise NotARepository(f"cannot read {dotgit} as a .git file")
    if not text.startswith("gitdir: "):
        raise NotARepository(f"{dotgit} is not a valid .git file (no `gitdir:` line)")
    target = os.path.join(os.path.dirname(dotgit), text[len("gitdir: ") :].strip())
    target = os.path.normpath(target)
    if not is_git_directory(target):
        raise NotARepository(
            f"{dotgit} points at {target}, which is not a git directory: this worktree is"
            " broken; repair it (`git worktree repair`) or remove it (`git worktree prune`)"
        )
    return target


def is_repository(dotgit: str) -> bool:
    """Whether a `.git` entry makes its folder a repository, as git decides for nested ones: a
    git directory, or a `.git` file pointing at one."""
    if os.path.isdir(dotgit):
        return is_git_directory(dotgit)
    try:
        _gitfile_target(dotgit)
    except NotARepository:
        return False
    return True


def checkout_at(folder: str) -> Checkout:
    """The repository whose work tree is exactly `folder` (a submodule, a nested repository);
    NotARepository when its `.git` is missing or no repository. Never walks up."""
    dotgit = os.path.join(folder, ".git")
    if os.path.isfile(dotgit):
        gitdir = _gitfile_target(dotgit)
        return Checkout(folder, gitdir, _common_dir(gitdir))
    if os.path.isdir(dotgit) and is_git_directory(dotgit):
        return Checkout(folder, dotgit, _common_dir(dotgit))
    raise NotARepository(f"{folder} has no repository of its own")


def find_checkout(start: str) -> Checkout:
    """The repository `start` belongs to, walking up; NotARepository when there is none."""
    folder = os.path.realpath(start)
    if not os.path.isdir(folder):
        raise NotARepository(f"{start} is not a folder")
    passed_over = None
    while True:
        dotgit = os.path.join(folder, ".git")
        if os.path.isfile(dotgit):
            gitdir = _gitfile_target(dotgit)
            return Checkout(folder, gitdir, _common_dir(gitdir))
        if os.path.isdir(dotgit):
            if is_git_directory(dotgit):
                return Checkout(folder, dotgit, _common_dir(dotgit))
            passed_over = passed_over or dotgit
        if is_git_directory(folder):
            return Checkout(None, folder, _common_dir(folder))
        parent = os.path.dirname(folder)
        if parent == folder:
            hint = (
                f" ({passed_over} was passed over, as git passes it over: it lacks a valid HEAD,"
                " objects or refs; if it is your repository, repair its HEAD)"
                if passed_over
                else ""
            )
            raise NotARepository(f"{start} is not inside a git repository{hint}")
        folder = parent
