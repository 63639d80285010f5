"""Reading HEAD and refs as git reads them: loose files, then packed-refs, symbolic refs
followed, per-worktree refs in the worktree's own git directory. Standard library only: the
gate's fast path reads refs too.
"""

from __future__ import annotations

import os

from .discover import Checkout
from .files import read_regular, read_text
from .object_ids import is_sha

# Refs kept per worktree (in the worktree's own git directory), beside HEAD and the other
# all-capital names; all others live in the common one.
_PER_WORKTREE = ("refs/bisect/", "refs/worktree/", "refs/rewritten/")


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
        text = read_text(path, 4096) if os.path.lexists(path) else ""
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
    text = read_text(os.path.join(checkout.gitdir, "HEAD"), 4096)
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
    text = read_text(os.path.join(checkout.commondir, "refs/remotes/origin/HEAD"), 4096)
    prefix = "ref: refs/remotes/origin/"
    if text is None or not text.startswith(prefix):
        return None
    return text[len(prefix) :] or None


def ref_names(checkout: Checkout) -> list[str]:
    """The branches, remote-tracking branches and tags there are (full names, sorted): loose
    files under `refs/heads`, `refs/remotes` and `refs/tags`, and packed-refs."""
    names: set[str] = set()
    refs = os.path.join(checkout.commondir, "refs")
    for kind in ("heads", "remotes", "tags"):
        for folder, _, files in os.walk(os.path.join(refs, kind)):
            relative = os.path.relpath(folder, checkout.commondir).replace(os.sep, "/")
            names.update(f"{relative}/{name}" for name in files if not name.endswith(".lock"))
    packed = read_regular(os.path.join(checkout.commondir, "packed-refs"), 256 * 1024 * 1024)
    for line in (packed or b"").splitlines():
        if not line.startswith((b"#", b"^")) and b" refs/" in line:
            names.add(line[41:].decode("utf-8", "surrogateescape"))
    wanted = ("refs/heads/", "refs/remotes/", "refs/tags/")
    return sorted(name for name in names if name.startswith(wanted))
