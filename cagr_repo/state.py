"""cagr's own state in the worktree's git directory (`<gitdir>/cagr/`), written atomically.

Nothing else under `.git` is ever written. Every state file's name is here. A state file that
cannot be read, or whose content is not what its writer wrote, is treated as absent; readers
validate before they trust. Standard library only: the gate's fast path reads state too.
"""

from __future__ import annotations

import os

from cagr_git.files import read_regular

from .files import write_atomically

STATE_FOLDER = "cagr"
GATE_RECORD = "gate.json"  # the committed check's result, for the `gh pr create` gate
TURN_STATE = "turns"  # per-session stop counts (a folder: one file per session)
HOOK_TIMINGS = "hook-timings.jsonl"  # recent hook durations, for `cagr doctor`
REFRESH_STAMP = "refreshed.json"  # where HEAD and the target were when the record was refreshed
PENDING_NOTICE = "pending-notice.txt"  # a turn-end notice an agent could not show, for later
RECENT_NOTICES = "notices.jsonl"  # what the hooks said lately, for `cagr doctor`
PR_SEEN = "pr-seen.json"  # the last PR command the gate judged: target, head, what its body met


def state_dir(gitdir: str) -> str:
    """`<gitdir>/cagr`, in this worktree's own git directory (`.git/worktrees/NAME` for a
    linked worktree), so worktrees never share state."""
    return os.path.join(gitdir, STATE_FOLDER)


def state_path(gitdir: str, name: str) -> str:
    return os.path.join(gitdir, STATE_FOLDER, name)


def linked(gitdir: str, name: str) -> bool:
    """Whether the state folder, a folder within it on the way to `name`, or `name` itself is a
    symlink: it could lead anywhere, so cagr neither writes nor reads through it."""
    path = state_dir(gitdir)
    for part in [".", *name.split("/")]:
        path = os.path.join(path, part) if part != "." else path
        if os.path.islink(path):
            return True
    return False


def write_state(gitdir: str, name: str, data: bytes) -> str | None:
    """Write one state file; None when written, else why not (and nothing half-written)."""
    if linked(gitdir, name):
        return "a symbolic link is on the way, and cagr does not write through one"
    try:
        write_atomically(state_path(gitdir, name), data)
    except OSError as error:
        return error.strerror or str(error)
    return None


def save(gitdir: str, name: str, data: bytes) -> bool:
    """Write one state file; False (and nothing half-written) when it cannot be written."""
    return write_state(gitdir, name, data) is None


def load(gitdir: str, name: str, limit: int = 64 * 1024 * 1024) -> bytes | None:
    """One state file's bytes, or None when it is absent, unreadable, a symlink or not a
    regular file (a FIFO must never block a hook)."""
    if linked(gitdir, name):
        return None
    return read_regular(state_path(gitdir, name), limit)


def remove(gitdir: str, name: str) -> bool:
    """Remove one state file; True when it is gone (or was never there). Never through a
    symlink: what one leads to is not cagr's to delete."""
    if linked(gitdir, name):
        return not os.path.lexists(state_path(gitdir, name))
    try:
        os.unlink(state_path(gitdir, name))
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True
