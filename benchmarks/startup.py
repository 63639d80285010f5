"""Start-up: whole cagr commands against a bare `python -c pass` in the same virtualenv.

Rows (medians of interleaved runs, ratio, goal):
- a whole `cagr rules check` (merge base -> working tree) on a 50-file repository with one rule
  of each kind;
- a whole `cagr changes --committed` and `cagr rules check --committed` on a small range (five
  commits) of a 10,000-file repository;
- with `--real DIR`, the same small-range commands on a clone of a real repository.
`--imports` also prints the slowest imports of each command (`python -X importtime`).

Usage: python benchmarks/startup.py [--runs 15] [--keep DIR] [--real DIR] [--imports]
Bytecode is written (PYTHONDONTWRITEBYTECODE is removed), as on a user's machine.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.repos import build, git
from benchmarks.timing import CAGR, ENV, PYTHON, compare, header, process

CONFIG = """
[[changes.rules]]
id = "schema"
kind = "requires"
paths = ["src/schema.py"]
require = ["schema.json"]
reason = "Regenerate schema.json."
examples.invalid = [{ changes = [{ path = "src/schema.py", status = "M" }] }]
[[changes.rules.examples.valid]]
changes = [{ path = "src/schema.py", status = "M" }, { path = "schema.json", status = "M" }]

[[changes.rules]]
id = "migrations"
kind = "add_only"
paths = ["migrations/**"]
reason = "Merged migrations are history: add a new one."
examples.invalid = [{ changes = [{ path = "migrations/1.sql", status = "M" }] }]
examples.valid = [{ changes = [{ path = "migrations/2.sql", status = "A" }] }]

[[changes.rules]]
id = "guards"
kind = "sibling"
paths = ["src/guards/*.py"]
target = "tests/guards/test_{name}.py"
reason = "A new guard needs its test."
examples.invalid = [{ changes = [{ path = "src/guards/a.py", status = "A" }] }]
[[changes.rules.examples.valid]]
changes = [
  { path = "src/guards/a.py", status = "A" },
  { path = "tests/guards/test_a.py", status = "A" },
]

[[changes.rules]]
id = "dependency-reason"
kind = "pr_body"
paths = ["package.json"]
when = "dependency_added"
section = "Risk"
contains = "Dependency reason:"
reason = "Explain the new dependency under Risk."
[[changes.rules.examples.invalid]]
pr_body = ""
changes = [{ path = "package.json", status = "A", after = '{"dependencies": {"x": "1"}}' }]
[[changes.rules.examples.valid]]
pr_body = "## Risk\\nDependency reason: needed."
changes = [{ path = "package.json", status = "A", after = '{"dependencies": {"x": "1"}}' }]
"""


def small_repository(where: Path) -> Path:
    """50 files, a few commits, one rule of each kind, and a change on a branch."""
    root = where / "small-50"
    if root.exists():
        return root
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "cagr.toml").write_text(CONFIG)
    for index in range(46):
        folder = ("src", "src/guards", "tests/guards", "migrations", "docs")[index % 5]
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / f"file{index}.py").write_text(f"value = {index}\n")
    (root / "package.json").write_text("{}\n")
    (root / "src" / "schema.py").write_text("schema = 1\n")
    (root / "schema.json").write_text("{}\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-q", "-b", "work")
    (root / "src" / "schema.py").write_text("schema = 2\n")
    (root / "src" / "guards" / "new.py").write_text("guard = 1\n")
    git(root, "commit", "-qam", "work")
    (root / "docs" / "file4.py").write_text("edited\n")
    return root


def ten_thousand(where: Path) -> Path:
    root = where / "repo-10000"
    if not root.exists():
        build(root, 10_000, 2_000, 0)  # `work` adds an empty commit: HEAD~5 spans five edits
        (root / "cagr.toml").write_text(CONFIG)
        (root / ".git" / "info" / "exclude").write_text("cagr.toml\n")
    return root


def rows(root: Path, label: str, base: str, runs: int) -> None:
    bare = process([PYTHON, "-c", "pass"], root)
    changes = [CAGR, "changes", "--committed", "--base", base]
    compare(f"whole `cagr changes --committed` ({label})", process(changes, root), bare, runs, 4,
            against="python")  # fmt: skip
    check = [CAGR, "rules", "check", "--committed", "--base", base]
    compare(f"whole `cagr rules check --committed` ({label})", process(check, root), bare, runs,
            4, against="python")  # fmt: skip


def imports(root: Path, argv: list[str], top: int = 12) -> None:
    """The slowest imports of one command, by cumulative time (`python -X importtime`)."""
    done = subprocess.run(
        [PYTHON, "-X", "importtime", "-m", "cagr_cli", *argv],
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line.split("|") for line in done.stderr.splitlines() if line.startswith("import")]
    timed = [(int(cumulative), name[1:].rstrip()) for _, cumulative, name in lines[1:]]
    total = sum(us for us, name in timed if not name.startswith(" "))
    print(f"  imports of `cagr {' '.join(argv)}`: {total / 1000:.1f} ms in all; slowest:")
    for us, name in sorted(timed, reverse=True)[:top]:
        print(f"    {us / 1000:6.1f} ms {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--keep", type=Path, help="build repositories here and keep them")
    parser.add_argument("--real", type=Path, help="a clone of a real repository")
    parser.add_argument("--small", default="HEAD~5", help="the small range's target (--real)")
    parser.add_argument("--imports", action="store_true", help="print the slowest imports")
    args = parser.parse_args()
    header(args.runs)
    with tempfile.TemporaryDirectory() as scratch:
        where = args.keep or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        small = small_repository(where)
        print("50 files, one rule of each kind, a change on a branch:", flush=True)
        bare = process([PYTHON, "-c", "pass"], small)
        compare("whole `cagr rules check`", process([CAGR, "rules", "check"], small), bare,
                args.runs, 4, against="python")  # fmt: skip
        compare("  `cagr --version`", process([CAGR, "--version"], small), bare, args.runs,
                None, against="python")  # fmt: skip
        if args.imports:
            imports(small, ["rules", "check"])
        root = ten_thousand(where)
        print("10,000 files, a range of five commits:", flush=True)
        rows(root, "5 commits", "HEAD~5", args.runs)
        if args.imports:
            imports(root, ["changes", "--committed", "--base", "HEAD~5"])
        if args.real:
            files = len(git(args.real, "ls-files", "-z").split(b"\0")) - 1
            print(f"{args.real.name}: {files} files:", flush=True)
            rows(args.real, f"{args.real.name}, {args.small}", args.small, args.runs)


if __name__ == "__main__":
    main()
