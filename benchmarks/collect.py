"""Collection speed: cagr against the git CLI on the same repository, side by side.

Every row prints cagr's median, git's, the ratio and the goal beside it. On synthetic
repositories built with `git fast-import` (by default 20,000 and 100,000 files, a
10,000-commit main, about 800 changes: half committed on a branch, half in the working tree):

- working tree: `collect_working_tree` in this process, warm and cold (the files of `.git`
  dropped from the page cache before each run of either; folder entries and inodes stay
  cached), against `git diff --raw --no-renames -z B` plus `git ls-files -o --exclude-standard -z`;
- committed: `collect_committed` against `git diff --raw --no-renames -z B H`;
- merge base: cagr's walk against `git merge-base --all`, for a fork near the tip and one
  10,000 commits back, without a commit-graph, with one file, and with a split chain of three;
- many merge bases: a criss-cross history whose two tips have 26 merge bases;
- a large committed range (8,000 changed files of 10,000), in this process and as a whole
  `cagr changes --committed` command;
- the whole `cagr changes` command against git's working-tree commands.

`--real DIR` adds the same rows on a clone of a real repository (a scratch clone: the
benchmark writes commit-graph files into it and removes them), for a small and a large range
below HEAD; `--many-bases DIR T H` times the merge base of two revisions there (git.git's
`origin/test` and `origin/master` had 26). `--large` adds the working tree (warm, in this
process) and the turn-end hook on a 300,000-file repository; `--index-entries 1000000` an index
read of that many entries. The start-up rows (whole processes against `python -c pass`) are
benchmarks/startup.py; evaluation is benchmarks/evaluate.py.

Usage: python benchmarks/collect.py [--files 20000 100000] [--runs 7] [--keep DIR]
           [--real DIR [--small HEAD~5] [--large-range HEAD~1500]] [--many-bases DIR T H]
           [--large] [--index-entries 1000000] [--skip-synthetic]
Ratios, not absolute times, are the result: the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.repos import add_wide_commit, build, build_criss_cross, git
from benchmarks.timing import CAGR, ENV, call, cold, compare, header, process, shell
from cagr_core.ruleset import RuleSet
from cagr_git.discover import find_checkout
from cagr_git.index import load_index
from cagr_git.repository import open_repo
from cagr_repo.collect import collect_committed, collect_working_tree
from cagr_repo.range import RangeProblem, merge_base, resolve_target

RULES = RuleSet.of(())
FAR = 10_000  # commits between the far fork and HEAD


def _git_working(root: Path, base: str) -> Callable[[], float]:
    return shell(
        root,
        f"git diff --raw --no-renames -z {base} >/dev/null && "
        "git ls-files -o --exclude-standard -z >/dev/null",
    )


def working_rows(
    root: Path, target: str, runs: int, label: str = "", *, cold_rows: bool = True
) -> None:
    checkout = find_checkout(str(root))
    base = git(root, "merge-base", target, "HEAD").decode().strip()

    def warm() -> None:
        with open_repo(checkout) as repo:
            assert not collect_working_tree(repo, target, RULES).unchecked

    git_working = _git_working(root, base)
    compare(f"working tree, warm{label}", call(warm), git_working, runs, 2)
    if not cold_rows:
        return
    gitdir = Path(checkout.gitdir)
    compare(
        f"working tree, cold: .git's pages evicted{label}",
        cold(gitdir, call(warm)),
        cold(gitdir, git_working),
        runs,
        3,
    )
    compare(
        f"  whole `cagr changes --format json`{label}",
        process([CAGR, "changes", "--base", target, "--format", "json"], root),
        git_working,
        runs,
    )


def committed_rows(root: Path, target: str, runs: int, label: str, goal: float) -> None:
    checkout = find_checkout(str(root))
    base = git(root, "merge-base", target, "HEAD").decode().strip()
    count = len(git(root, "diff", "--raw", "--no-renames", "-z", base, "HEAD").split(b"\0:"))

    def committed() -> None:
        with open_repo(checkout) as repo:
            assert not collect_committed(repo, target, RULES).unchecked

    git_diff = shell(root, f"git diff --raw --no-renames -z {base} HEAD >/dev/null")
    compare(f"committed B..H, {count} entries{label}", call(committed), git_diff, runs, goal)
    compare(
        f"  whole `cagr changes --committed`{label}",
        process([CAGR, "changes", "--committed", "--base", target], root),
        git_diff,
        runs,
        goal,
    )


def merge_base_rows(root: Path, target: str, runs: int, label: str, goal: float | None) -> None:
    """Merge base of `target` and HEAD: without a commit-graph, with one file, with a chain."""
    checkout = find_checkout(str(root))
    info = root / ".git" / "objects" / "info"

    def ours() -> None:
        with open_repo(checkout) as repo:
            head = resolve_target(repo, "HEAD").sha
            with contextlib.suppress(RangeProblem):  # several merge bases: found, and said so
                merge_base(repo, resolve_target(repo, target), head)

    theirs = shell(root, f"git merge-base --all {target} HEAD >/dev/null")
    if (info / "commit-graph").exists() or (info / "commit-graphs").exists():
        compare(f"merge base{label}, the repository's commit-graph", call(ours), theirs, runs, goal)
        return
    compare(f"merge base{label}, no commit-graph", call(ours), theirs, runs, goal)
    try:
        git(root, "commit-graph", "write", "--reachable")
        compare(f"merge base{label}, commit-graph file", call(ours), theirs, runs, goal)
        (info / "commit-graph").unlink()
        _split_chain(root)
        compare(f"merge base{label}, split commit-graph chain", call(ours), theirs, runs, goal)
    finally:
        (info / "commit-graph").unlink(missing_ok=True)
        shutil.rmtree(info / "commit-graphs", ignore_errors=True)


def _split_chain(root: Path) -> None:
    """A chain of three commit-graph layers: the oldest half, a quarter, the rest."""
    # HEAD~N follows first parents: a history with merges has fewer of them than commits.
    count = int(git(root, "rev-list", "--count", "--first-parent", "HEAD").decode())
    for back in (count // 2, count // 4):
        commit = git(root, "rev-parse", f"HEAD~{back}").decode()
        git(root, "commit-graph", "write", "--split=no-merge", "--stdin-commits",
            stdin=commit.encode())  # fmt: skip
    git(root, "commit-graph", "write", "--split=no-merge", "--reachable")
    chain = root / ".git" / "objects" / "info" / "commit-graphs" / "commit-graph-chain"
    assert len(chain.read_text().split()) == 3, "git merged the layers"


def many_bases_rows(root: Path, one: str, two: str, runs: int, label: str) -> None:
    bases = git(root, "merge-base", "--all", one, two).split()
    checkout = find_checkout(str(root))

    def ours() -> None:
        with open_repo(checkout) as repo:
            try:
                merge_base(repo, resolve_target(repo, one), resolve_target(repo, two).sha)
            except RangeProblem as problem:
                if f"{len(bases)} merge bases" not in problem.message:
                    raise AssertionError(problem.message) from problem
            else:
                raise AssertionError(f"one merge base, git finds {len(bases)}")

    theirs = shell(root, f"git merge-base --all {one} {two} >/dev/null")
    compare(f"merge base, {len(bases)} merge bases{label}", call(ours), theirs, runs, 3)


def synthetic(where: Path, files: int, commits: int, changes: int, runs: int) -> None:
    root = where / f"repo-{files}"
    if not root.exists():
        started = time.perf_counter()
        build(root, files, commits, changes)
        # A branch forked at the first commit: its merge base with HEAD is 10,000 back.
        first = git(root, "rev-list", "--max-parents=0", "main").decode().split()[0]
        tip = git(root, "commit-tree", f"{first}^{{tree}}", "-p", first, "-m", "far")
        git(root, "branch", "far", tip.decode().strip())
        print(f"built {root.name} in {time.perf_counter() - started:.1f} s")
    changed = len(git(root, "status", "--porcelain", "-z").split(b"\0")) - 1
    print(f"{files} files, {commits} commits, {changed} working-tree changes:", flush=True)
    working_rows(root, "main", runs)
    committed_rows(root, "main", runs, "", 2)
    merge_base_rows(root, "main", runs, ", fork near the tip", None)
    merge_base_rows(root, "far", runs, f", {commits} commits back", 3)


def wide(where: Path, runs: int) -> None:
    root = where / "repo-wide"
    if not root.exists():
        build(root, 10_000, 2_000, 0)
        add_wide_commit(root, 10_000, 8_000)
    print("10,000 files, one commit editing 8,000 of them (a large range):", flush=True)
    committed_rows(root, "HEAD~1", runs, ", large range", 3)


def criss_cross(where: Path, runs: int) -> None:
    root = where / "repo-criss-cross"
    if not root.exists():
        build_criss_cross(root, 10_000)
        git(root, "checkout", "-q", "h")
    print("criss-cross: 10,000 linear commits, then 26 branches merging each other:", flush=True)
    many_bases_rows(root, "t", "h", runs, " (criss-cross)")
    git(root, "commit-graph", "write", "--reachable")
    try:
        many_bases_rows(root, "t", "h", runs, " (criss-cross), commit-graph")
    finally:
        (root / ".git" / "objects" / "info" / "commit-graph").unlink()


def real(root: Path, small: str, large: str, runs: int) -> None:
    files = len(git(root, "ls-files", "-z").split(b"\0")) - 1
    commits = int(git(root, "rev-list", "--count", "HEAD").decode())
    depth = int(git(root, "rev-list", "--count", "--first-parent", "HEAD").decode())
    print(f"{root.name}: {files} files, {commits} commits (HEAD), clean checkout:", flush=True)
    for label, target in ((f" ({small})", small), (f" ({large})", large)):
        working_rows(root, target, runs, label)
    committed_rows(root, small, runs, f" ({small})", 2)
    committed_rows(root, large, runs, f" ({large})", 3)
    for target in (small, large):
        compare(
            f"  whole `cagr rules check --committed` ({target})",
            process([CAGR, "rules", "check", "--committed", "--base", target], root),
            shell(root, f"git diff --raw --no-renames -z {target} HEAD >/dev/null"),
            runs,
        )
    far = min(FAR, depth - 1)
    merge_base_rows(root, f"HEAD~{far}", runs, f", HEAD~{far}", 3)


def large_working_tree(where: Path, runs: int) -> None:
    """`collect_working_tree` on 300,000 files, in this process, against git's two commands."""
    root = where / "repo-300000"
    if not root.exists():
        build(root, 300_000, 2_000, 800)
    print("300,000 files, about 800 changes (--large):", flush=True)
    working_rows(root, "main", runs, ", 300,000 files", cold_rows=False)


def index_rows(where: Path, entries: int, runs: int) -> None:
    """Reading an index of `entries` entries (no work tree: every entry names one blob):
    cagr's `load_index` (checksum, entries, order) in this process against git's reading of
    the whole index with a pathspec that matches nothing (`git ls-files -z -- PATH`), and, for
    comparison, `git ls-files -s -z` printing every entry."""
    root = where / f"index-{entries}"
    if not root.exists():
        root.mkdir(parents=True)
        git(root, "init", "-q", "-b", "main")
        blob = git(root, "hash-object", "-w", "--stdin", stdin=b"x\n").decode().strip()
        lines = sorted(
            f"100644 {blob}\tpkg{i % 97:02}/mod{i % 13:02}/file{i:07}.py\n" for i in range(entries)
        )
        git(root, "update-index", "--index-info", stdin="".join(lines).encode())
    gitdir = root / ".git"
    size = (gitdir / "index").stat().st_size
    print(f"an index of {entries:,} entries ({size / 1e6:.0f} MB), no work tree:", flush=True)

    def ours() -> None:
        assert len(load_index(str(gitdir))[0].entries) == entries

    nothing = shell(root, "git ls-files -z -- no/such/path >/dev/null")
    compare(f"index read, {entries:,} entries (ls-files, no match)", call(ours), nothing, runs, 3)
    printed = shell(root, "git ls-files -s -z >/dev/null")
    compare("  same, against `git ls-files -s -z` (prints every entry)", call(ours), printed, runs)


def large_hook(where: Path, runs: int) -> None:
    """The Stop hook on 300,000 files: against git, and inside the 60 s deadline."""
    from benchmarks.hooks import RULES as HOOK_RULES  # noqa: PLC0415
    from benchmarks.hooks import payload  # noqa: PLC0415

    root = where / "repo-300000"
    if not root.exists():
        build(root, 300_000, 2_000, 800)
    (root / "cagr.toml").write_text(HOOK_RULES)
    base = git(root, "merge-base", "main", "HEAD").decode().strip()
    prompt = process([CAGR, "hook"], root, payload(root, "UserPromptSubmit"))
    stop = process([CAGR, "hook"], root, payload(root, "Stop", stop_hook_active=False))

    def turn_end() -> float:
        prompt()  # the person's prompt first: every stop is the turn's first
        return stop()

    print("300,000 files, about 800 changes (--large):", flush=True)
    ms, _ = compare("turn-end hook (whole Stop hook)", turn_end, _git_working(root, base), runs, 3)
    answer = subprocess.run(
        [CAGR, "hook"],
        input=payload(root, "Stop", stop_hook_active=False),
        cwd=root,
        env=ENV,
        capture_output=True,
        check=False,
    ).stdout
    print(f"  under the 60 s deadline: {ms < 60_000}; the hook answered {answer[:200]!r}")
    try:
        json.loads(answer or b"{}")
    except ValueError:
        print("  (the answer is not JSON)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="*", default=[20_000, 100_000])
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--changes", type=int, default=800)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="build repositories here and keep them")
    parser.add_argument("--skip-synthetic", action="store_true", help="only --real, --many-bases")
    parser.add_argument("--real", type=Path, help="a scratch clone of a real repository")
    parser.add_argument("--small", default="HEAD~5", help="the small range's target (--real)")
    parser.add_argument("--large-range", default="HEAD~1500", help="the large range's target")
    parser.add_argument("--many-bases", nargs=3, metavar=("DIR", "T", "H"))
    parser.add_argument(
        "--large", action="store_true", help="the working tree and turn-end hook at 300,000 files"
    )
    parser.add_argument(
        "--index-entries",
        type=int,
        default=0,
        metavar="N",
        help="an index read of N entries (1000000 for issue 34's row)",
    )
    args = parser.parse_args()
    header(args.runs)
    with tempfile.TemporaryDirectory() as scratch:
        where = args.keep or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        if not args.skip_synthetic:
            for files in args.files:
                synthetic(where, files, args.commits, args.changes, args.runs)
            wide(where, args.runs)
            criss_cross(where, args.runs)
        if args.real:
            real(args.real, args.small, args.large_range, args.runs)
        if args.many_bases:
            directory, one, two = args.many_bases
            print(f"{Path(directory).name}: {one} and {two}:", flush=True)
            many_bases_rows(Path(directory), one, two, args.runs, f" ({Path(directory).name})")
        if args.large:
            large_working_tree(where, args.runs)
            large_hook(where, max(3, args.runs // 2))
        if args.index_entries:
            index_rows(where, args.index_entries, args.runs)
    print("evaluation (1,000 rules x 100,000 paths, growth): benchmarks/evaluate.py")


if __name__ == "__main__":
    main()
