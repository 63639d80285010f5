"""Collection speed: cagr against the git CLI on the same repository, side by side.

Builds synthetic repositories (20,000 and 100,000 files, a 10,000-commit main, about 800
changes: half committed on a branch, half in the working tree) and times, interleaved:

- working tree: cagr's `collect_working_tree` (warm caches, as at every turn end after the
  first, and cold: no cached base tree) against
  `git diff --raw --no-renames -z B` plus `git ls-files -o --exclude-standard -z`;
- committed: `collect_committed` against `git diff --raw --no-renames -z B H`;
- merge base: cagr's walk (uncached) against `git merge-base`, for a fork near the tip and
  one 10,000 commits back (with whatever commit-graph file the repository has);
- the whole `cagr changes` command against the same git commands run from a shell.

Usage: python benchmarks/collect.py [--files 20000 100000] [--runs 5] [--keep DIR]
Prints medians in milliseconds and the ratio cagr / git. Ratios, not absolute times, are the
result: the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.repos import ENV, build, git
from cagr_core import RuleSet
from cagr_repo.collect import collect_committed, collect_working_tree
from cagr_repo.gitdir import find_checkout
from cagr_repo.gitrepo import merge_base, open_repo, resolve_target
from cagr_repo.state import BASE_TREE, remove

RULES = RuleSet.compile([])


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _time(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _shell(root: Path, script: str) -> Callable[[], object]:
    return lambda: subprocess.run(
        ["bash", "-c", script], cwd=root, check=True, env=ENV, capture_output=True
    )


def compare(
    label: str, ours: Callable[[], object], theirs: Callable[[], object], runs: int
) -> None:
    ours()
    theirs()  # warm both: the page cache, git's and cagr's caches
    mine, git_times = [], []
    for _ in range(runs):
        mine.append(_time(ours))
        git_times.append(_time(theirs))
    a, b = _median_ms(mine), _median_ms(git_times)
    print(f"  {label:<38} cagr {a:8.1f} ms   git {b:8.1f} ms   ratio {a / b:5.2f}")


def bench_repo(root: Path, runs: int) -> None:
    checkout = find_checkout(str(root))
    base = git(root, "merge-base", "main", "HEAD").decode().strip()
    head = git(root, "rev-parse", "HEAD").decode().strip()

    def working() -> None:
        with open_repo(checkout) as repo:
            assert not collect_working_tree(repo, "main", RULES).unchecked

    def working_cold() -> None:
        with open_repo(checkout) as repo:
            remove(checkout.gitdir, BASE_TREE)
            assert not collect_working_tree(repo, "main", RULES).unchecked

    def committed() -> None:
        with open_repo(checkout) as repo:
            assert not collect_committed(repo, "main", RULES).unchecked

    git_working = _shell(
        root,
        f"git diff --raw --no-renames -z {base} >/dev/null && "
        "git ls-files -o --exclude-standard -z >/dev/null",
    )
    compare("working tree (warm base cache)", working, git_working, runs)
    compare("working tree (cold base cache)", working_cold, git_working, runs)
    compare(
        "committed (B -> H)",
        committed,
        _shell(root, f"git diff --raw --no-renames -z {base} {head} >/dev/null"),
        runs,
    )

    def dulwich_merge_base(target: str) -> Callable[[], object]:
        def run() -> None:
            with open_repo(checkout) as repo:
                merge_base(repo, resolve_target(repo, target), head)

        return run

    compare(
        "merge base (fork near the tip)",
        dulwich_merge_base("main"),
        _shell(root, "git merge-base main HEAD"),
        runs,
    )
    compare(
        "merge base (10,000 commits back)",
        dulwich_merge_base("far"),
        _shell(root, "git merge-base far HEAD"),
        runs,
    )
    git(root, "commit-graph", "write", "--reachable")
    compare(
        "merge base (10,000 back, commit-graph)",
        dulwich_merge_base("far"),
        _shell(root, "git merge-base far HEAD"),
        runs,
    )
    (root / ".git" / "objects" / "info" / "commit-graph").unlink()
    cagr = str(Path(sys.executable).with_name("cagr"))
    compare(
        "whole `cagr changes` command",
        _shell(root, f"{cagr} changes --format json >/dev/null"),
        git_working,
        runs,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--changes", type=int, default=800)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="build repositories here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        where = args.keep or Path(scratch)
        for files in args.files:
            root = where / f"repo-{files}"
            if not root.exists():
                started = time.perf_counter()
                build(root, files, args.commits, args.changes)
                # A branch forked at the first commit: its merge base with HEAD is 10,000 back.
                first = git(root, "rev-list", "--max-parents=0", "main").decode().split()[0]
                tip = git(root, "commit-tree", f"{first}^{{tree}}", "-p", first, "-m", "far")
                git(root, "branch", "far", tip.decode().strip())
                print(f"built {root.name} in {time.perf_counter() - started:.1f} s")
            changed = len(git(root, "status", "--porcelain", "-z").split(b"\0")) - 1
            print(f"{files} files, {args.commits} commits, {changed} working-tree changes:")
            bench_repo(root, args.runs)


if __name__ == "__main__":
    main()
