"""Reading a pull-request description from a file, as data: a regular file under a size bound.

Standard library only (plus cagr's exception base), so the PR gate's fast path can use it too.
Nothing in the text is executed or expanded; standard input and other non-regular files (FIFOs,
devices) are refused rather than read, so a check never waits on them.
"""

from __future__ import annotations

import os
import stat

from cagr_core.errors import CagrError


class BodyFileError(CagrError):
    """A body file that cagr will not read; the message names the file and what to do."""


def read_body_file(path: str, limit: int) -> str:
    """The text of `path`: a regular file of at most `limit` bytes of UTF-8."""
    try:
        # Non-blocking, so opening a FIFO returns at once and is then refused as not regular.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        if path == "-":
            raise BodyFileError(
                "--body-file - (standard input) is read by `cagr ci` only; here, write the"
                " description to a file and pass that."
            ) from error
        raise BodyFileError(f"cannot read the body file {path}: {error.strerror}.") from error
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise BodyFileError(
                f"the body file {path} is not a regular file; write the description to a file"
                " and pass that."
            )
        data = _read_at_most(fd, limit + 1)
    except OSError as error:
        raise BodyFileError(f"cannot read the body file {path}: {error.strerror}.") from error
    finally:
        os.close(fd)
    if len(data) > limit:
        raise BodyFileError(
            f"the body file {path} is larger than the {limit} bytes cagr reads as a PR"
            " description; shorten it."
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BodyFileError(
            f"the body file {path} is not UTF-8 ({error.reason} at byte {error.start});"
            " save it as UTF-8."
        ) from error


def read_body_stdin(fd: int, limit: int) -> str:
    """The description piped to standard input (`--body-file -` in CI): at most `limit` bytes
    of UTF-8, never from a terminal (that would wait for someone to type)."""
    if os.isatty(fd):
        raise BodyFileError(
            "--body-file - reads the description from standard input, which is a terminal here;"
            " pipe it in (`gh pr view --json body -q .body | cagr ci --body-file -`) or pass a"
            " file."
        )
    try:
        data = _read_at_most(fd, limit + 1)
    except OSError as error:
        raise BodyFileError(f"cannot read standard input: {error.strerror}.") from error
    if len(data) > limit:
        raise BodyFileError(
            f"standard input holds more than the {limit} bytes cagr reads as a PR description;"
            " shorten it."
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BodyFileError(
            f"standard input is not UTF-8 ({error.reason} at byte {error.start}); send UTF-8."
        ) from error


def _read_at_most(fd: int, size: int) -> bytes:
    os.set_blocking(fd, True)
    chunks: list[bytes] = []
    left = size
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 16))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
