"""Recent hook durations per moment, for `cagr doctor` (`<gitdir>/cagr/hook-timings.jsonl`).

One JSON object per line: the moment, milliseconds in total and per stage, and when. Standard
library only; a timing that cannot be written is simply lost.
"""

from __future__ import annotations

import time

from cagr_repo.state import HOOK_TIMINGS

from . import journal

KEEP = 200
_MAX_BYTES = 64 * 1024


def record(gitdir: str, moment: str, total_ms: float, stages: dict[str, float]) -> None:
    entry = {
        "moment": moment,
        "ms": round(total_ms, 1),
        "stages": {k: round(v, 1) for k, v in stages.items()},
        "at": int(time.time()),
    }
    journal.append(gitdir, HOOK_TIMINGS, entry, KEEP, _MAX_BYTES)


def recent(gitdir: str) -> list[dict[str, object]]:
    """The recorded timings, oldest first; lines that are not what `record` writes are skipped."""
    return [
        item
        for item in journal.entries(gitdir, HOOK_TIMINGS, KEEP)
        if isinstance(item.get("moment"), str) and isinstance(item.get("ms"), int | float)
    ]
