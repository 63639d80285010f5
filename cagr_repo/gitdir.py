"""Finding a checkout's git directories, and reading HEAD and refs, with the standard library only.

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

from .files import read_regular

_HEX = frozenset("0123456789abcdef")
# Refs kept per worktree (in the worktree's own git directory), beside HEAD and the other
# all-capital names; all others live in the common one.
_PER_WORKTREE = ("refs/bisect/", "refs/worktree/", "refs/rewritten/")


class NotARepository(CagrError):
    """The folder is not inside a git repository, or its `.git` file is broken (exit 2)."""


class Checkout:
    """Where a repository lives: its work tree (None when bare), this worktree's git directory
    (`.git`, or `.git/worktrees/NAME` for a linked worktree) and the common git directory."""

    __slots__ = ("commondir", "gitdir", "root")

    def __init__(self, root: str | None, gitdir: str, commondir: str) -> None:
        self.root = root
        self.gitdir = gitdir
        self.commondir = commondir

    @property
    def bare(self) -> bool:
        return self.root is None

    def __repr__(self) -> str:
        return f"Checkout(root={self.root!r}, gitdir={self.gitdir!r})"


def _text(path: str, limit: int) -> str | None:
    """A small git file's text, stripped; None when it is not a regular file one can read."""
    data = read_regular(path, limit)
    return None if data is None else data.decode("utf-8", "surrogateescape").strip()


def is_sha(text: str) -> bool:
    """A full SHA-1 object id in lower-case hex."""
    return len(text) == 40 and _HEX.issuperset(text)


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
    text = _text(head, 256)
    return text is not None and (text.startswith("ref: refs/") or is_sha(text))


def _gitfile_target(dotgit: str) -> str:
    """The git directory a `.git` file points at (`gitdir: PATH`, relative to the file)."""
    text = _text(dotgit, 4096)
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


def _ref_path(checkout: Checkout, name: str) -> str:
    """Where a ref's loose file lives: per-worktree refs (HEAD and other all-capital names,
    `refs/bisect/`, `refs/worktree/`, `refs/rewritten/`) in this worktree's git directory,
    `main-worktree/` and `worktrees/ID/` ones in those worktrees', all others in the common one."""
    if name.startswith("main-worktree/"):
        return os.path.join(checkout.commondir, name[len("main-worktree/") :])
    if name.startswith("worktrees/"):
        return os.path.join(checkout.commondir, name)
    if "/" not in name or name.startswith(_PER_WORKTREE):
        return os.path.join(checkout.gitdir, name)
    return os.path.join(checkout.commondir, name)


def _packed_ref(commondir: str, name: str) -> str | None:
    wanted = b" " + name.encode("utf-8", "surrogateescape")
    data = read_regular(os.path.join(commondir, "packed-refs"), 256 * 1024 * 1024) or b""
    for line in data.splitlines():
        if line.endswith(wanted) and not line.startswith((b"#", b"^")):
            return line[:40].decode("ascii", "replace")
    return None


def _safe_ref_name(name: str) -> bool:
    """A ref name that stays inside the git directory (no `..`, empty or absolute parts)."""
    parts = name.split("/")
    return bool(name) and not name.startswith("/") and all(p not in ("", ".", "..") for p in parts)


def ref_text(checkout: Checkout, name: str) -> str | None:
    """What a ref holds once symbolic refs are followed: normally a commit id; other text when
    the ref holds junk (or is no regular file, or names a ref cagr does not follow); None when
    it does not exist (an unborn branch).

    Loose refs first, then packed-refs, as git reads them. Repositories that keep refs in a
    reftable are not read here: `unsupported` stops them before anything is read.
    """
    for _ in range(6):  # git follows at most five levels of symbolic refs
        if not _safe_ref_name(name):
            return f"ref: {name}"
        path = _ref_path(checkout, name)
        text = _text(path, 4096) if os.path.lexists(path) else ""
        if text is None:
            return "(not a regular file)"  # unknown, never followed
        if text.startswith("ref: "):
            name = text[len("ref: ") :]
            continue
        if text:
            return text
        return _packed_ref(checkout.commondir, name)
    return f"ref: {name}"


def read_ref(checkout: Checkout, name: str) -> str | None:
    """The object id a ref names (symbolic refs followed), or None when it names none."""
    text = ref_text(checkout, name)
    return text if text is not None and is_sha(text) else None


def head_ref(checkout: Checkout) -> str | None:
    """The branch HEAD is on (`refs/heads/NAME`), or None when HEAD is detached or unreadable."""
    text = _text(os.path.join(checkout.gitdir, "HEAD"), 4096)
    return text[len("ref: ") :] if text and text.startswith("ref: ") else None


def branch_ref(checkout: Checkout, name: str) -> str | None:
    """The ref a target branch name resolves to: `origin/<name>`, then the local `<name>`."""
    for ref in (f"refs/remotes/origin/{name}", f"refs/heads/{name}"):
        if read_ref(checkout, ref) is not None:
            return ref
    return None


def remote_default_branch(checkout: Checkout) -> str | None:
    """The branch `origin/HEAD` names (`master` for `refs/remotes/origin/master`), if it is set.

    `git clone` sets it to the remote's default branch; `git remote set-head origin --auto`
    sets it in a clone that lacks it. A symbolic ref is always a loose file.
    """
    text = _text(os.path.join(checkout.commondir, "refs/remotes/origin/HEAD"), 4096)
    prefix = "ref: refs/remotes/origin/"
    if text is None or not text.startswith(prefix):
        return None
    return text[len(prefix) :] or None
