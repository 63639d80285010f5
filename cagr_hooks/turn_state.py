"""Per-session stop counts: how many stops of the current turn cagr has blocked.

Agents cannot be trusted to say when a turn was already blocked (`stop_hook_active` has been
seen false on repeated stops, and Codex has no loop cap of its own), so cagr keeps its own count
in `<gitdir>/cagr/turns/`, one small file per session. The person's next prompt resets it, but
not the prompt an agent makes of cagr's own block reason (Codex, Cursor and Gemini turn it into
a new prompt, which must not reopen the loop). Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import os
import time

from cagr_repo.state import TURN_STATE, linked, load, remove, save, state_path

BLOCKED_STOPS = 2  # the first two failing stops of a turn block; the third lets the agent stop
BLOCK_MARKER = "cagr: the change rules fail for this branch's change"  # opens every block reason
_KEEP_SECONDS = 7 * 24 * 3600


def _name(session: str) -> str:
    digest = hashlib.sha256(session.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return f"{TURN_STATE}/{digest}.json"


def is_own_continuation(prompt: str) -> bool:
    """Whether a prompt is an agent's replay of cagr's block reason, not the person's turn."""
    return BLOCK_MARKER in prompt


def blocked_stops(gitdir: str, session: str) -> int:
    """Stops blocked so far in this session's current turn (0 when unknown)."""
    data = load(gitdir, _name(session), limit=4096)
    try:
        state = json.loads(data) if data is not None else {}
    except ValueError:
        return 0
    if not isinstance(state, dict):
        return 0
    count = state.get("blocked")
    return count if isinstance(count, int) and 0 <= count <= BLOCKED_STOPS else 0


def record_blocked(gitdir: str, session: str, count: int) -> bool:
    data = {"blocked": count, "at": int(time.time())}
    return save(gitdir, _name(session), json.dumps(data).encode())


def reset(gitdir: str, session: str) -> bool:
    return remove(gitdir, _name(session))


def forget_old_sessions(gitdir: str) -> None:
    """Remove the counts of sessions untouched for a week (called at session start)."""
    if linked(gitdir, TURN_STATE):
        return  # what a link leads to is not cagr's to delete
    folder = state_path(gitdir, TURN_STATE)
    cutoff = time.time() - _KEEP_SECONDS
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
        except OSError:
            continue
