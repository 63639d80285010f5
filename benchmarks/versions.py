"""Two installs of cagr side by side: every whole-process row of benchmarks/floor.py, run
alternately from each install and a bare `python -c pass`, in the same repositories.

floor.py times one install against a bare start; two of its runs one after the other see
different loads on a shared machine. Here each round runs the same command from install A,
from install B and a bare start back to back (their order alternating), so a change is seen
against the version before it under the same load:

    python benchmarks/versions.py --before OLD/bin/python --after NEW/bin/python --runs 15 \
        --real ../flask

Both installs should be regular (non-editable) ones, each in its own virtualenv; the
repositories are prepared once, with this process's install (`--after`'s, when it runs this).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after site-packages: the install wins

from benchmarks.floor import commands, copy_of, prepare, synthetic, timed
from benchmarks.timing import header


def _installed(python: str, argv: list[str]) -> list[str]:
    """The command as the install of `python` runs it (its own `cagr` script)."""
    return [str(Path(python).with_name("cagr")), *argv[1:]]


def rows(root: Path, clean: Path, before: str, after: str, runs: int) -> None:
    for label, argv, cwd, stdin, goal, _ in commands(root, clean):
        sides = {
            "before": (_installed(before, argv), before),
            "after": (_installed(after, argv), after),
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
        bare: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
        for side in sides.values():  # warm each once
            timed(side[0], cwd, stdin)
        for index in range(runs):
            order = list(sides) if index % 2 == 0 else list(reversed(sides))
            for name in order:
                command, python = sides[name]
                wall, cpu = timed(command, cwd, stdin)
                times[name].append((wall * 1000, cpu * 1000))  # milliseconds
                wall, cpu = timed([python, "-c", "pass"], cwd, b"")
                bare[name].append((wall * 1000, cpu * 1000))
        print(f"  {label} (goal <= {goal:g}x)")
        for name in sides:
            wall = statistics.median(w for w, _ in times[name])
            base = statistics.median(w for w, _ in bare[name])
            cpu = min(c for _, c in times[name])
            base_cpu = min(c for _, c in bare[name])
            print(f"    {name:<6} {wall:6.1f} ms vs python {base:5.1f} ms = {wall / base:5.2f}x"
                  f"   least CPU {cpu:5.1f} vs {base_cpu:4.1f} ms = {cpu / base_cpu:5.2f}x",
                  flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the Python of the older install")
    parser.add_argument("--after", required=True, help="the Python of the newer install")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--real", type=Path, help="a clone of a real repository (copied first)")
    parser.add_argument(
        "--paths",
        nargs=3,
        default=["src/flask/app.py", "CHANGES.rst", "tests/test_basic.py"],
        metavar=("CODE", "LOG", "TEST"),
    )
    args = parser.parse_args()
    header(args.runs)
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        root, paths = synthetic(where)
        print(f"{root.name}: a change of 3 committed paths and one working edit")
        rows(root, prepare(root, paths), args.before, args.after, args.runs)
        if args.real:
            root = copy_of(args.real, where)
            print(f"{root.name}: a change of 3 committed paths and one working edit")
            rows(root, prepare(root, args.paths), args.before, args.after, args.runs)


if __name__ == "__main__":
    main()
