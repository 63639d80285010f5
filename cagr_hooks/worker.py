"""Work under the hook's deadline: a worker thread the hook can leave behind.

Python cannot stop a thread. When the deadline passes first, the caller answers and leaves the
process (the worker is a daemon); everything a worker may be writing is written atomically.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

TYPE_CHECKING = False  # not typing's: the turn end need not import it
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")


class DeadlinePassed(Exception):
    """The stage did not finish before the hook's deadline."""


def within(deadline: float, work: Callable[[], T]) -> T:
    """Run `work` in a worker thread; DeadlinePassed when it is not done by `deadline`.

    Python cannot stop a thread: the caller answers and leaves the process (the worker is a
    daemon). Everything the worker may be writing is written atomically.
    """
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as error:  # handed to the caller's thread
            failure.append(error)

    # The name tells cagr_git.worktree (WAITING_WORKER) that this thread's caller only waits
    # for it, so the stat check may fork from it.
    worker = threading.Thread(target=run, name="cagr-check", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if worker.is_alive():
        raise DeadlinePassed
    if failure:
        raise failure[0]
    return outcome[0]
