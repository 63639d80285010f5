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

from cagr_core.errors import CagrError


class UnsafeOutput(CagrError):
    """A path cagr was asked to write that is no regular file, or a link that leads away."""


def _inside(folder: str, path: str) -> bool:
    folder = os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a socket" if stat.S_ISSOCK(mode) else "not a regular file"


def output_path(path: str, repository: str | None, *, confined: bool = False) -> str:
    """Where a write to `path` lands: `path`, or the file a symlink there leads to when it stays
    inside `repository`. `confined`: the path must lie inside `repository` even through the
    folders on the way (a file cagr chooses there, such as an agent's settings file).

    UnsafeOutput for a folder, device, FIFO or socket, and for a symlink that leads elsewhere:
    cagr replaces regular files and creates new ones, nothing else.
    """
    real = os.path.realpath(path)
    outside = repository is None or not _inside(repository, real)
    if confined and outside:
        raise UnsafeOutput(
            f"{path} leads to {real}, outside the repository; cagr writes only inside it"
            " (replace the link with a file of its own, or write that file yourself)"
        )
    target = path
    if os.path.islink(path):
        if outside:
            raise UnsafeOutput(
                f"{path} is a symlink to {real}, outside the repository; cagr does not write"
                " through it (name a regular file or a new path)"
            )
        target = real
    try:
        st = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        return target  # a new path: whether its folder takes it shows when it is written
    except OSError as error:
        raise UnsafeOutput(f"{path} cannot be written ({error.strerror})") from error
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeOutput(
            f"{path} is {_kind(st.st_mode)}; cagr writes only regular files or new paths"
        )
    return target


def write_output(path: str, data: bytes, repository: str | None, *, confined: bool = False) -> None:
    """Replace (or create) the regular file at `path` atomically; see `output_path`."""
    write_atomically(output_path(path, repository, confined=confined), data)


def append_output(path: str, data: bytes, repository: str | None) -> None:
    """Append to a file another program gave cagr (a CI runner's summary or output file):
    only a regular file, opened without blocking, never through a link that leads away."""
    target = output_path(path, repository)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags, 0o666)
    except OSError as error:
        raise UnsafeOutput(f"{path} cannot be written ({error.strerror})") from error
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # swapped since it was looked at
            raise UnsafeOutput(f"{path} is {_kind(mode)}; cagr writes only regular files")
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    except OSError as error:
        raise UnsafeOutput(f"{path} cannot be written ({error.strerror})") from error
    finally:
        os.close(fd)


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
