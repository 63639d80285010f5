"""Short JSON-lines journals in `<gitdir>/cagr/`: the newest entries of something the hooks did.

An entry is appended without a lock (O_APPEND: concurrent hooks each write whole lines) and the
file is rewritten with its newest entries once it grows past a bound. Standard library only; an
entry that cannot be written is simply lost, and a line that is not JSON is skipped on reading.
"""

from __future__ import annotations

import json
import os
import stat

from cagr_repo.state import load, save, state_path


def append(gitdir: str, name: str, entry: dict[str, object], keep: int, max_bytes: int) -> None:
    """Add one entry to the journal `name`, keeping about the newest `keep`."""
    path = state_path(gitdir, name)
    if os.path.islink(os.path.dirname(path)):
        return  # a linked state folder could lead anywhere
    try:
        if os.path.getsize(path) > max_bytes:
            lines = (load(gitdir, name) or b"").splitlines()[-keep:]
            save(gitdir, name, b"\n".join(lines) + b"\n")
    except OSError:
        pass
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, flags, 0o666)
    except OSError:
        return  # absent folder it cannot make, a link, a FIFO with no reader: the entry is lost
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.write(fd, (json.dumps(entry) + "\n").encode())
    except OSError:
        pass
    finally:
        os.close(fd)


def entries(gitdir: str, name: str, keep: int) -> list[dict[str, object]]:
    """The newest `keep` entries, oldest first; lines that are not JSON objects are skipped."""
    out = []
    for line in (load(gitdir, name) or b"").splitlines()[-keep:]:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            out.append(item)
    return out
