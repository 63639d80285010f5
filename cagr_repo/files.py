"""Writing a file atomically: a temporary file in the same folder, then a rename.

A reader sees the old file or the new one, never half of either. Used for cagr's state and for
the files cagr writes when asked to (`cagr schema --write`, `cagr init`). Standard library only.
"""

from __future__ import annotations

import contextlib
import os


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
