"""`cagr init`'s suggestions: the history they read against the git CLI reading the same.

Rows (medians of interleaved runs, ratio, goal):
- reading the recent history (`read_history`: the last 300 first-parent commits, their changed
  entries and the dependencies added to locked manifests) in this process, against
  `git log --first-parent -n 300 --raw --no-renames --no-abbrev HEAD`;
- the whole `cagr init --force` command, against the same git command, and against a bare
  `python -c pass` (for the start-up share).
On a synthetic repository (100,000 files, 10,000 commits) and, with `--real DIR ...`, on clones of
real repositories. The init rows write `.cagr/` into the repository and remove it afterwards
(a `.cagr/` that was already there is refused: run it on a scratch clone).

Usage: python benchmarks/init.py [--runs 7] [--files 100000] [--keep DIR] [--real DIR ...]
Ratios, not absolute times, are the result: the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.repos import build
from benchmarks.timing import CAGR, PYTHON, call, compare, header, process
from cagr_git.discover import find_checkout
from cagr_git.index import tracked_paths
from cagr_git.repository import open_repo
from cagr_repo.suggest_history import HISTORY_LIMIT, read_history

GIT_LOG = [
    "git", "log", "--first-parent", f"-n{HISTORY_LIMIT}", "--raw", "--no-renames", "--no-abbrev",
    "--format=%H", "HEAD",
]  # fmt: skip


def _read(root: Path) -> None:
    checkout = find_checkout(str(root))
    tracked = tracked_paths(checkout.gitdir)
    with open_repo(checkout) as repo:
        read_history(repo, tracked)


def rows(name: str, root: Path, runs: int) -> None:
    if (root / ".cagr").exists():
        raise SystemExit(f"{root}/.cagr exists: run this benchmark on a scratch clone")
    print(f"{name}: {len(tracked_paths(find_checkout(str(root)).gitdir))} tracked files")
    git_log = process(GIT_LOG, root)
    compare("history read (300 first-parent commits)", call(lambda: _read(root)), git_log, runs)
    init = process([CAGR, "init", "--force"], root)
    try:
        compare("whole `cagr init`", init, git_log, runs, None)
        compare(
            "whole `cagr init`",
            init,
            process([PYTHON, "-c", "pass"], root),
            runs,
            None,
            against="python",
        )
    finally:
        shutil.rmtree(root / ".cagr", ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="build the synthetic repository here and keep it")
    parser.add_argument("--real", type=Path, nargs="*", default=[])
    args = parser.parse_args()
    header(args.runs)
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch) / "synthetic"
        if not root.exists():
            build(root, args.files, 10_000, 800)
        rows(f"synthetic ({args.files} files, 10,000 commits)", root, args.runs)
    for real in args.real:
        rows(str(real), real, args.runs)


if __name__ == "__main__":
    main()
