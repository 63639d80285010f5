"""Recent hook durations per moment, for `cagr doctor` (`<gitdir>/cagr/hook-timings.jsonl`).

One JSON object per line: the moment, milliseconds in total and per stage, and when. The file is
kept short by rewriting it with the newest lines once it grows past a bound. Standard library
only; a timing that cannot be written is simply lost.
"""

from __future__ import annotations

import json
import os
import stat
import time

from cagr_repo.state import HOOK_TIMINGS, load, save, state_path

KEEP = 200
_MAX_BYTES = 64 * 1024


def record(gitdir: str, moment: str, total_ms: float, stages: dict[str, float]) -> None:
    line = json.dumps(
        {
            "moment": moment,
            "ms": round(total_ms, 1),
            "stages": {k: round(v, 1) for k, v in stages.items()},
            "at": int(time.time()),
        }
    )
    path = state_path(gitdir, HOOK_TIMINGS)
    if os.path.islink(os.path.dirname(path)):
        return  # a linked state folder could lead anywhere
    try:
        if os.path.getsize(path) > _MAX_BYTES:
            _trim(gitdir)
    except OSError:
        pass
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, flags, 0o666)
    except OSError:
        return  # absent folder it cannot make, a link, a FIFO with no reader: the timing is lost
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.write(fd, (line + "\n").encode())
    except OSError:
        pass
    finally:
        os.close(fd)


def _trim(gitdir: str) -> None:
    data = load(gitdir, HOOK_TIMINGS) or b""
    lines = data.splitlines()[-KEEP:]
    save(gitdir, HOOK_TIMINGS, b"\n".join(lines) + b"\n")


def recent(gitdir: str) -> list[dict[str, object]]:
    """The recorded timings, oldest first; lines that are not what `record` writes are skipped."""
    out = []
    for line in (load(gitdir, HOOK_TIMINGS) or b"").splitlines()[-KEEP:]:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        valid = isinstance(item, dict) and isinstance(item.get("moment"), str)
        if valid and isinstance(item.get("ms"), int | float):
            out.append(item)
    return out
