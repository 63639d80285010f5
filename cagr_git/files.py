"""Reading files that never blocks: git's own files (refs, HEAD, config, objects, the index) and
cagr's state are opened without blocking and read only when they are regular files, so a FIFO
or device planted where cagr looks can never hang a hook. Standard library only.
"""

from __future__ import annotations

import errno
import os
import stat


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


def open_regular(path: str) -> int:
    """A blocking descriptor for the regular file at `path`, which is opened without blocking
    first: OSError for a FIFO, device or folder, so reading one can never hang."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_text(path: str, limit: int) -> str | None:
    """A small git file's text, stripped; None when it is not a regular file one can read."""
    data = read_regular(path, limit)
    return None if data is None else data.decode("utf-8", "surrogateescape").strip()
