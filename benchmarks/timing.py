"""Side-by-side timing for the benchmarks: interleaved runs, medians, the ratio and its goal.

Every row times cagr and a baseline (the git CLI, or a bare `python -c pass`) alternately, so
both see the same machine load, and prints the medians, the ratio and the goal beside it.
Processes are started without PYTHONDONTWRITEBYTECODE: on a user's machine Python keeps its
compiled bytecode, and a benchmark that recompiles every import measures something else.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.repos import ENV as GIT_ENV

ENV = {k: v for k, v in GIT_ENV.items() if k != "PYTHONDONTWRITEBYTECODE"}
PYTHON = sys.executable
CAGR = str(Path(PYTHON).with_name("cagr"))
Timed = Callable[[], float]  # runs once, returns seconds


def process(argv: list[str], cwd: Path, stdin: bytes = b"", check: bool = True) -> Timed:
    """A whole process, timed from start to exit."""

    def run() -> float:
        started = time.perf_counter()
        done = subprocess.run(argv, input=stdin, cwd=cwd, env=ENV, capture_output=True, check=False)
        elapsed = time.perf_counter() - started
        if check and done.returncode not in (0, 1, 3):  # cagr's findings are not failures here
            raise RuntimeError(f"{argv} failed ({done.returncode}): {done.stderr[-2000:]!r}")
        return elapsed

    return run


def shell(cwd: Path, script: str) -> Timed:
    """A shell command line (output discarded by the script itself), as one process."""
    return process(["bash", "-c", script], cwd)


def call(action: Callable[[], object]) -> Timed:
    """A call in this process (no interpreter start, no imports)."""

    def run() -> float:
        started = time.perf_counter()
        action()
        return time.perf_counter() - started

    return run


def evict(gitdir: Path) -> None:
    """Drop the git directory's files (index, packs, loose objects, commit-graph) from the page
    cache, so the next read comes from the disk. Folder entries and inodes stay cached (that
    would need root and would slow every other process on the machine)."""
    for folder, _, names in os.walk(gitdir):
        for name in names:
            try:
                handle = os.open(os.path.join(folder, name), os.O_RDONLY)
            except OSError:
                continue
            try:
                os.posix_fadvise(handle, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(handle)


def cold(gitdir: Path, timed: Timed) -> Timed:
    """`timed`, each run after `evict` (which is not timed)."""

    def run() -> float:
        evict(gitdir)
        return timed()

    return run


RESULTS: list[tuple[str, float, float, float | None]] = []  # label, cagr ms, baseline ms, goal


def compare(  # noqa: PLR0913  # one row: what, both timings, how often, the goal, against what
    label: str,
    ours: Timed,
    baseline: Timed,
    runs: int,
    goal: float | None = None,
    *,
    against: str = "git",
) -> tuple[float, float]:
    """Time both `runs` times, alternately after one warm-up each; print the medians, the ratio
    and whether the goal (a ratio; None: shown for information) holds."""
    ours()
    baseline()  # warm both: the page cache, bytecode, git's and cagr's caches
    mine, theirs = [], []
    for _ in range(runs):
        mine.append(ours())
        theirs.append(baseline())
    a, b = statistics.median(mine) * 1000, statistics.median(theirs) * 1000
    RESULTS.append((label, a, b, goal))
    verdict = "-" if goal is None else ("holds" if a / b <= goal else "MISSED")
    goal_text = "-" if goal is None else f"<= {goal:g}x"
    print(
        f"  {label:<58} cagr {a:8.1f} ms  {against} {b:8.1f} ms  ratio {a / b:6.2f}"
        f"  goal {goal_text:<7} {verdict}",
        flush=True,
    )
    return a, b


def header(runs: int) -> None:
    version = subprocess.run(["git", "--version"], capture_output=True, text=True, check=True)
    git_version = version.stdout
    print(
        f"{os.cpu_count()} cores, Python {platform.python_version()}, {git_version.strip()};"
        f" medians of {runs} interleaved runs",
        flush=True,
    )
