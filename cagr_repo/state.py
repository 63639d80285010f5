"""cagr's own state in the worktree's git directory (`<gitdir>/cagr/`), written atomically.

Nothing else under `.git` is ever written. Every state file's name is here. A state file that
cannot be read, or whose content is not what its writer wrote, is treated as absent; readers
validate before they trust. Standard library only: the gate's fast path reads state too.
"""

from __future__ import annotations

import os

from .files import write_atomically

STATE_FOLDER = "cagr"
GATE_RECORD = "gate.json"  # the committed check's result, for the `gh pr create` gate
TURN_STATE = "turns"  # per-session stop counts (a folder: one file per session)
HOOK_TIMINGS = "hook-timings.jsonl"  # recent hook durations, for `cagr doctor`


def state_dir(gitdir: str) -> str:
    """`<gitdir>/cagr`, in this worktree's own git directory (`.git/worktrees/NAME` for a
    linked worktree), so worktrees never share state."""
    return os.path.join(gitdir, STATE_FOLDER)


def state_path(gitdir: str, name: str) -> str:
    return os.path.join(gitdir, STATE_FOLDER, name)


def save(gitdir: str, name: str, data: bytes) -> bool:
    """Write one state file; False (and nothing half-written) when it cannot be written."""
    folder = state_dir(gitdir)
    if os.path.islink(folder):
        return False  # a linked state folder could lead anywhere: never write through it
    try:
        write_atomically(os.path.join(folder, name), data)
    except OSError:
        return False
    return True


def load(gitdir: str, name: str, limit: int = 64 * 1024 * 1024) -> bytes | None:
    """One state file's bytes, or None when it is absent, unreadable or a symlink."""
    path = state_path(gitdir, name)
    try:
        if os.path.islink(os.path.dirname(path)) or os.path.islink(path):
            return None
        with open(path, "rb") as handle:
            return handle.read(limit)
    except OSError:
        return None


def remove(gitdir: str, name: str) -> bool:
    """Remove one state file; True when it is gone (or was never there)."""
    try:
        os.unlink(state_path(gitdir, name))
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True
