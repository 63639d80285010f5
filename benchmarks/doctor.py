"""`cagr doctor` against `cagr rules check` on the same repository, side by side.

doctor runs a check and, on top, the configuration's examples, the gate record's state, advice
over every tracked file (one walk for all rules' paths) and the agents' hook settings: it should
answer in about the time of a check (goal: at most 2x). The repository is synthetic (20,000
files by default, `benchmarks/repos.py`) with ten rules of every kind, or `--real CLONE` (a
scratch copy of it is used) with the same rules over its own paths.

Usage: python benchmarks/doctor.py [--files 20000] [--runs 7] [--real CLONE]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))

from benchmarks.repos import build, git
from benchmarks.timing import CAGR, compare, header, process

RULES = "".join(
    f"""
[[changes.rules]]
id = "co-change-{n}"
kind = "requires"
paths = ["{folder}/**"]
ignores = ["**/vendor/**"]
require = ["{folder}/CHANGES.md"]
reason = "Say what changed."
examples.invalid = [{{ changes = [{{ path = "{folder}/a", status = "M" }}] }}]
[[changes.rules.examples.valid]]
changes = [{{ path = "{folder}/a", status = "M" }},
           {{ path = "{folder}/CHANGES.md", status = "M" }}]

[[changes.rules]]
id = "tests-{n}"
kind = "sibling"
paths = ["{folder}/**/*.py"]
target = "tests/{{name}}_test.py"
reason = "Add the test."
examples.invalid = [{{ changes = [{{ path = "{folder}/x.py", status = "A" }}] }}]
[[changes.rules.examples.valid]]
changes = [{{ path = "{folder}/x.py", status = "A" }}, {{ path = "tests/x_test.py", status = "A" }}]

[[changes.rules]]
id = "frozen-{n}"
kind = "add_only"
paths = ["{folder}/migrations/**"]
reason = "Add a new migration instead."
examples.invalid = [{{ changes = [{{ path = "{folder}/migrations/1.sql", status = "M" }}] }}]
examples.valid = [{{ changes = [{{ path = "{folder}/migrations/2.sql", status = "A" }}] }}]
"""
    for n, folder in enumerate(f"pkg{k:02}" for k in range(10))
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--real", type=Path, help="a clone of a real repository (copied first)")
    args = parser.parse_args()
    header(args.runs)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "repo"
        if args.real is not None:
            git(Path(scratch), "clone", "-q", str(args.real.resolve()), str(root))
            label = args.real.name
        else:
            build(root, args.files, commits=20, changes=40)
            git(root, "checkout", "-q", "work")
            label = f"{args.files:,} files"
        (root / "cagr.toml").write_text(RULES)
        compare(
            f"doctor vs rules check, {label}",
            process([CAGR, "doctor"], root, check=False),
            process([CAGR, "rules", "check"], root, check=False),
            args.runs,
            goal=2.0,
            against="check",
        )
        shutil.rmtree(root / ".git" / "cagr", ignore_errors=True)


if __name__ == "__main__":
    main()
