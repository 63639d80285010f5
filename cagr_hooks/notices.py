"""What the hooks said lately (`<gitdir>/cagr/notices.jsonl`), for `cagr doctor`.

Headless runs show the person none of it: `claude -p` prints only the final text and `codex
exec` no `systemMessage` and no hook stderr, so a turn end's notice (the third-stop escape,
unchecked, what the PR will owe) and a gate's deny would be seen by the model alone. Every call
that decides something keeps its words here; doctor lists the newest. Standard library only.
"""

from __future__ import annotations

import time

from cagr_repo.state import RECENT_NOTICES

from . import journal

KEEP = 20
_MAX_BYTES = 128 * 1024
_TEXT_LIMIT = 2_000  # a long report is cut here: `cagr rules check` shows it whole


def record(gitdir: str, agent: str, moment: str, kind: str, text: str) -> None:
    if len(text) > _TEXT_LIMIT:
        text = text[:_TEXT_LIMIT].rsplit("\n", 1)[0] + "\n(cut here; `cagr rules check` shows all)"
    entry = {"at": int(time.time()), "agent": agent, "moment": moment, "kind": kind, "text": text}
    journal.append(gitdir, RECENT_NOTICES, entry, KEEP, _MAX_BYTES)


def recent(gitdir: str) -> list[dict[str, object]]:
    """The kept notices, oldest first."""
    return [
        item
        for item in journal.entries(gitdir, RECENT_NOTICES, KEEP)
        if all(isinstance(item.get(key), str) for key in ("agent", "moment", "kind", "text"))
        and isinstance(item.get("at"), int)
    ]
