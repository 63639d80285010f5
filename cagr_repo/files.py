"""Files cagr reads and writes itself: atomic writes, and reads that never block.

A write goes to a temporary file in the same folder, then a rename: a reader sees the old file
or the new one, never half of either. A read opens without blocking and takes only a regular
file, so a FIFO or device planted where cagr looks can never hang a hook. Used for cagr's state,
git's refs and HEAD, and the files cagr writes when asked to (`cagr schema --write`, `cagr init`).
Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import stat


def write_atomically(path: str, data: bytes) -> None:
    """Write `data` to `path` (creating its folder); OSError when that fails, nothing half-done."""
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    # Not tempfile.mkstemp: importing tempfile costs hook paths a few milliseconds.
    temp = os.path.join(folder, f".{os.path.basename(path)}.{os.urandom(6).hex()}.tmp")
    fd = os.open(
        temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666
    )  # the umask applies, as for any new file
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def read_regular(path: str, limit: int) -> bytes | None:
    """Up to `limit` bytes of a regular file, opened without blocking; None for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(limit)
    except OSError:
        return None
    finally:
        os.close(fd)
