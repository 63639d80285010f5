"""Tools for fuzzing what reads git's files: a bound on time, so a reader that would hang fails
its example instead of stalling the suite, and the checksum git writes at the end of a file,
so a damaged file can be made to pass it and reach the parser behind it."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
from collections.abc import Iterator

FUZZ_EXAMPLES = int(os.environ.get("CAGR_FUZZ_EXAMPLES", "25"))  # per test: CI asks for more


class Hang(Exception):
    """A reader took longer than its bound: as good as a hang on a hook's clock."""


@contextlib.contextmanager
def within(seconds: float) -> Iterator[None]:
    """Raise Hang if the block runs longer than `seconds` (the main thread's interval timer)."""

    def stop(*_: object) -> None:
        raise Hang(f"still reading after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def rechecksummed(data: bytes) -> bytes:
    """`data` with its trailing SHA-1 (git's checksum of everything before it) made right."""
    body = data[:-20] if len(data) >= 20 else data
    return body + hashlib.sha1(body).digest()
