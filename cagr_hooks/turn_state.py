"""Per-session stop counts: how many stops of the current turn cagr has blocked, and what the
agent was last let stop with.

Agents cannot be trusted to say when a turn was already blocked (`stop_hook_active` has been
seen false on repeated stops, and Codex has no loop cap of its own), so cagr keeps its own count
in `<gitdir>/cagr/turns/`, one small file per session. The person's next prompt resets it, but
not the prompt an agent makes of cagr's own block reason (Cursor and Gemini turn it into a new
prompt, which must not reopen the loop). The fingerprint of the change and findings at the last
escape outlives the reset: a later turn that changed nothing is not blocked again. A turn-end
notice an agent has no field for (Cursor's stop) waits in `pending-notice.txt` for the next
session start. Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import os
import time

from cagr_repo.state import PENDING_NOTICE, TURN_STATE, linked, load, remove, save, state_path

BLOCKED_STOPS = 2  # the first two failing stops of a turn block; the third lets the agent stop
BLOCK_MARKER = "cagr: the change rules fail for this branch's change"  # opens every block reason
_KEEP_SECONDS = 7 * 24 * 3600


def _name(session: str) -> str:
    digest = hashlib.sha256(session.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return f"{TURN_STATE}/{digest}.json"


def is_own_continuation(prompt: str) -> bool:
    """Whether a prompt is an agent's replay of cagr's block reason, not the person's turn."""
    return BLOCK_MARKER in prompt


def _state(gitdir: str, session: str) -> dict[str, object]:
    data = load(gitdir, _name(session), limit=4096)
    try:
        state = json.loads(data) if data is not None else {}
    except ValueError:
        return {}
    return state if isinstance(state, dict) else {}


def _save(gitdir: str, session: str, state: dict[str, object]) -> bool:
    return save(gitdir, _name(session), json.dumps({**state, "at": int(time.time())}).encode())


def blocked_stops(gitdir: str, session: str) -> int:
    """Stops blocked so far in this session's current turn (0 when unknown)."""
    count = _state(gitdir, session).get("blocked")
    return count if isinstance(count, int) and 0 <= count <= BLOCKED_STOPS else 0


def record_blocked(gitdir: str, session: str, count: int) -> bool:
    return _save(gitdir, session, {**_state(gitdir, session), "blocked": count})


def escaped_with(gitdir: str, session: str) -> str | None:
    """The fingerprint of the change and findings the agent was last let stop with."""
    escape = _state(gitdir, session).get("escaped_with")
    return escape if isinstance(escape, str) else None


def record_escape(gitdir: str, session: str, fingerprint: str) -> bool:
    return _save(gitdir, session, {**_state(gitdir, session), "escaped_with": fingerprint})


def reset(gitdir: str, session: str) -> bool:
    """A new turn: the count starts again (the last escape's fingerprint is kept)."""
    escape = escaped_with(gitdir, session)
    if escape is None:
        return remove(gitdir, _name(session))
    return _save(gitdir, session, {"blocked": 0, "escaped_with": escape})


def clear(gitdir: str, session: str) -> bool:
    """The rules pass: nothing to remember for this session."""
    return remove(gitdir, _name(session))


def leave_notice(gitdir: str, text: str) -> bool:
    """Keep a turn-end notice the agent could not show, for the next session start."""
    return save(gitdir, PENDING_NOTICE, text.encode("utf-8", "replace"))


def take_notice(gitdir: str) -> str | None:
    """The notice left by an earlier turn end, once (it is removed)."""
    data = load(gitdir, PENDING_NOTICE, limit=64 * 1024)
    if data is None:
        return None
    remove(gitdir, PENDING_NOTICE)
    return data.decode("utf-8", "replace")


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
