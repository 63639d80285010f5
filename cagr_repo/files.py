"""Files cagr writes: its own state, and the files it is asked to write.

A write goes to a temporary file in the same folder, then a rename: a reader sees the old file
or the new one, never half of either. Paths a person or a CI runner names (`--sarif`, the step
summary, `init`'s files) are written only as regular files or new paths (`output_path`).
Standard library only.
"""

from __future__ import annotations

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


def _git_directory_holding(path: str) -> str | None:
    """The git directory (a folder with HEAD and objects/, or a linked worktree's with
    commondir) that `path` lies in, if any."""
    folder = os.path.dirname(path)
    while True:
        if os.path.isfile(os.path.join(folder, "HEAD")) and (
            os.path.isdir(os.path.join(folder, "objects"))
            or os.path.isfile(os.path.join(folder, "commondir"))
        ):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def output_path(path: str, repository: str | None, *, confined: bool = False) -> str:
    """Where a write to `path` lands: `path`, or the file a symlink there leads to when it stays
    inside `repository`. `confined`: the path must lie inside `repository` even through the
    folders on the way (a file cagr chooses there, such as an agent's settings file).

    UnsafeOutput for a folder, device, FIFO or socket, for a symlink that leads elsewhere, and
    for any path in a git directory: cagr replaces regular files and creates new ones, nothing
    else.
    """
    real = os.path.realpath(path)
    git_dir = _git_directory_holding(real)
    if git_dir is not None:
        # git's refs, config and objects are the user's; cagr's own state has its own writer.
        raise UnsafeOutput(
            f"{path} lies in the git directory {git_dir}; cagr never writes there (name a"
            " path in the work tree or elsewhere)"
        )
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
        try:  # noqa: SIM105  # contextlib costs the call after every shell command 2.5 ms
            os.unlink(temp)
        except OSError:
            pass
        raise
