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
# Refs kept per worktree (in the worktree's own git directory); all others live in the common one.
_PER_WORKTREE = ("HEAD", "refs/bisect/", "refs/worktree/", "refs/rewritten/")


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


def unsupported(checkout: Checkout) -> str | None:
    """Why cagr cannot read this repository exactly, or None: a SHA-256 repository (its object
    ids are not the 40-character ones cagr reads)."""
    section = ""
    for line in (_text(os.path.join(checkout.commondir, "config"), 1024 * 1024) or "").splitlines():
        text = line.strip().lower()
        if text.startswith("["):
            section = text.strip("[]").strip()
        elif section == "extensions" and text.replace(" ", "").startswith("objectformat="):
            value = text.partition("=")[2].split("#")[0].split(";")[0].strip().strip('"')
            if value != "sha1":
                shown = value.upper().replace("SHA", "SHA-")
                return (
                    f"{checkout.commondir} is a repository with {shown} object ids,"
                    " which cagr does not read yet. Run cagr in a SHA-1 repository."
                )
    return None


def _ref_dir(checkout: Checkout, name: str) -> str:
    per_worktree = name == "HEAD" or name.startswith(_PER_WORKTREE[1:])
    return checkout.gitdir if per_worktree else checkout.commondir


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


def read_ref(checkout: Checkout, name: str) -> str | None:
    """The object id a ref names (symbolic refs followed), or None when it does not resolve.

    Loose refs first, then packed-refs, as git reads them. Repositories that keep refs in a
    reftable are not read here (None): callers then take their slower, complete path.
    """
    for _ in range(6):  # git follows at most five levels of symbolic refs
        if not _safe_ref_name(name):
            return None
        path = os.path.join(_ref_dir(checkout, name), name)
        text = _text(path, 4096) if os.path.lexists(path) else ""
        if text is None:
            return None  # a ref that is not a regular file: unknown, never followed
        if text.startswith("ref: "):
            name = text[len("ref: ") :]
            continue
        if is_sha(text):
            return text
        if text:
            return None  # junk in a ref file: unknown, never guessed
        return _packed_ref(checkout.commondir, name)
    return None


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
