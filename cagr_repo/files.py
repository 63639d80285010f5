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


def read_regular(path: str, limit: int, *, follow: bool = False) -> bytes | None:
    """Up to `limit` bytes of a regular file, opened without blocking; None for anything else.

    A symlink is read through only with `follow` (git's config files may be links; refs,
    objects and cagr's state never are)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        chunks = []
        left = limit
        step = max(st.st_size + 1, 1 << 16)  # the whole file in one read, unless it grows
        with os.fdopen(fd, "rb", closefd=False) as handle:
            while left > 0:
                chunk = handle.read(min(left, step))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
