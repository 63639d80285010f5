"""`cagr ci` against `cagr rules check --committed` on a fresh clone, side by side.

`cagr ci` does the committed check plus two reads of the work tree (clean before the check, and
not dirtied by `[stack].ci` after it). This measures what those reads cost on a clean CI-like
clone (no stat cache beyond what `git clone` leaves, as on a runner), with `git status` as the
git CLI's figure for one such read.

Usage: python benchmarks/ci.py [--files 20000 100000] [--runs 5]
Prints medians in milliseconds; ratios, not absolute times, are the result.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.repos import build, git
from benchmarks.timing import CAGR, compare, header, shell


def bench(files: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        origin = Path(tmp) / "origin"
        build(origin, files, commits=200, changes=800)
        clone = Path(tmp) / "clone"
        git(Path(tmp), "clone", "-q", "--no-checkout", str(origin), str(clone))
        git(clone, "checkout", "-q", "--detach", "origin/work")
        (clone / "cagr.toml").write_text("")
        exclude = clone / ".git" / "info" / "exclude"
        exclude.write_text("cagr.toml\n")  # an empty config, kept out of the dirt check
        print(f"{files} files, a clean clone of a 200-commit history with 400 changed paths:")
        committed = shell(clone, f"{CAGR} rules check --committed --base main >/dev/null")
        ci = shell(clone, f"{CAGR} ci --base main >/dev/null")
        status = shell(clone, "git status --porcelain >/dev/null")
        compare("cagr ci vs rules check --committed", ci, committed, runs, against="--committed")
        compare("cagr ci vs git status", ci, status, runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, nargs="+", default=[20_000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    header(args.runs)
    for files in args.files:
        bench(files, args.runs)


if __name__ == "__main__":
    main()
