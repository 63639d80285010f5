"""The start-up floor: every row of the speed table, side by side, in one run.

For a synthetic small repository (50 files, one rule of each kind) and, with `--real DIR`, a
scratch copy of a real clone, each row times a whole process against its baseline, run
alternately, and prints both medians, the ratio and the goal:

1. `cagr hook`, a shell command that is not a PR command, against `python -c pass` (<= 1.3x):
   an ordinary one (`npm test`), the call after it (HEAD and the target where the last refresh
   left them), and one the force-push guard reads (`npm test && git push`);
2. `cagr hook`, `gh pr create --fill` with a current gate record, no body to parse (<= 2x);
3. `cagr hook`, `gh pr create -b BODY` with a current record whose PR-body obligation makes
   the gate parse the body (<= 3x, and under 50 ms wall);
4. `cagr hook`, turn end (Stop) with a small change in the working tree (<= 4x);
5. `cagr rules check` (merge base -> working tree) (<= 3x);
6. `cagr ci --base main --body-file F` on a clean clone of a branch that changes 3 paths
   (<= 8x: it compiles the configuration on every run; also shown against `git diff --stat`,
   the trial's figure);
7. collection in this process against the git CLI doing the same: the working tree, warm
   (`git diff --raw --no-renames -z B` plus `git ls-files -o --exclude-standard -z`) and the
   committed range B..H (`git diff --raw --no-renames -z B H`) (<= 2x). The 100,000-file rows
   are benchmarks/collect.py's.

The change (three paths committed on `work`, one more edit left in the working tree) passes
every rule and owes the PR body a Risk section, so turn ends neither block nor count stops.
The configuration is committed on `main`, so committed checks are judged by the same rules.

`--imports` prints, per command, the modules it imports beyond a bare start and their time
(`python -X importtime`). Run it with the virtualenv's Python on a regular (non-editable)
install: `python benchmarks/floor.py --runs 21 --real ../flask --imports`. In-process rows use
the installed packages too (this repository's folder is only searched for `benchmarks`).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after site-packages: the install wins

from benchmarks.repos import git
from benchmarks.timing import CAGR, ENV, PYTHON, RESULTS, call, compare, header, process, shell

Run = tuple[list[str], Path, bytes]  # argv, folder, stdin

BODY = "## Summary\nA small fix.\n\n## Risk\nLow: one function, covered by its test.\n"
CONFIG = """
[[changes.rules]]
id = "changelog"
kind = "requires"
paths = ["{code}/**"]
require = ["{log}"]
reason = "Say what changed in {log}."
examples.invalid = [{{ changes = [{{ path = "{code}/x", status = "M" }}] }}]
[[changes.rules.examples.valid]]
changes = [{{ path = "{code}/x", status = "M" }}, {{ path = "{log}", status = "M" }}]

[[changes.rules]]
id = "migrations"
kind = "add_only"
paths = ["migrations/**", "**/*.sql"]
reason = "Merged migrations are history: add a new one."
examples.invalid = [{{ changes = [{{ path = "migrations/1.sql", status = "M" }}] }}]
examples.valid = [{{ changes = [{{ path = "migrations/2.sql", status = "A" }}] }}]

[[changes.rules]]
id = "tests"
kind = "sibling"
paths = ["{code}/*.py"]
ignores = ["{code}/__init__.py", "{code}/__main__.py"]
target = ["{tests}/test_{{name}}.py", "{tests}/{{name}}/test_{{name}}.py"]
reason = "A new module needs its tests."
examples.invalid = [{{ changes = [{{ path = "{code}/new.py", status = "A" }}] }}]
[[changes.rules.examples.valid]]
changes = [
  {{ path = "{code}/new.py", status = "A" }},
  {{ path = "{tests}/test_new.py", status = "A" }},
]

[[changes.rules]]
id = "risk"
kind = "pr_body"
paths = ["{code}/**/*.py"]
section = "Risk"
reason = "Say what could break under Risk."
[[changes.rules.examples.invalid]]
pr_body = ""
changes = [{{ path = "{code}/x.py", status = "M" }}]
[[changes.rules.examples.valid]]
pr_body = "## Risk\\nLow."
changes = [{{ path = "{code}/x.py", status = "M" }}]

[[changes.rules]]
id = "dependency-reason"
kind = "pr_body"
paths = ["pyproject.toml", "requirements*.txt"]
when = "dependency_added"
section = "Risk"
contains = "Dependency reason:"
reason = "Explain the new dependency under Risk."
[[changes.rules.examples.invalid]]
pr_body = ""
changes = [{{ path = "requirements.txt", status = "A", after = "x\\n" }}]
[[changes.rules.examples.valid]]
pr_body = "## Risk\\nDependency reason: needed."
changes = [{{ path = "requirements.txt", status = "A", after = "x\\n" }}]
"""


def synthetic(where: Path) -> tuple[Path, list[str]]:
    """50 files on `main` (code, tests, docs), its configuration committed."""
    root = where / "small-50"
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    for index in range(48):
        folder = ("src/app", "tests", "docs", "src/app/util")[index % 4]
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / f"file{index}.py").write_text(f"value = {index}\n")
    (root / "CHANGES.md").write_text("# Changes\n")
    (root / "README.md").write_text("# Small\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root, ["src/app/file0.py", "CHANGES.md", "tests/file1.py"]


def copy_of(clone: Path, where: Path) -> Path:
    root = where / clone.name
    git(where, "clone", "-q", "--no-hardlinks", str(clone.resolve()), str(root))
    git(root, "checkout", "-q", "-B", "main")
    return root


def prepare(root: Path, paths: list[str]) -> Path:
    """Commit the configuration on `main`; branch `work` edits the three paths; one more edit
    waits in the working tree; the gate record is written. Returns a clean clone of `work`."""
    code, log, tests = str(Path(paths[0]).parent), paths[1], str(Path(paths[2]).parent)
    (root / "cagr.toml").write_text(CONFIG.format(code=code, log=log, tests=tests))
    git(root, "add", "cagr.toml")
    git(root, "commit", "-qm", "cagr rules")
    # The target is origin/main when there is one (a clone): it holds the rules too, so the
    # change does not edit cagr's configuration (that case compares configurations: slower).
    git(root, "update-ref", "refs/remotes/origin/main", "main")
    git(root, "checkout", "-q", "-b", "work")
    for path in paths:
        with (root / path).open("a") as handle:
            handle.write("\n# edited\n")
    git(root, "commit", "-qam", "a change of three paths")
    clean = root.with_name(root.name + "-ci")
    git(root.parent, "clone", "-q", "--no-hardlinks", "-b", "work", str(root), str(clean))
    git(clean, "branch", "-q", "main", "origin/main")
    (clean / "body.md").write_text(BODY)
    (clean.joinpath(".git", "info", "exclude")).write_text("body.md\n")
    with (root / paths[0]).open("a") as handle:
        handle.write("# and one more edit, not committed yet\n")
    done = subprocess.run([CAGR, "rules", "check", "--committed", "--base", "main"], cwd=root,
                          env=ENV, capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the committed check does not pass: {done.stdout}{done.stderr}")
    return clean


def _payload(root: Path, event: str, **extra: object) -> bytes:
    data = {"session_id": "floor", "cwd": str(root), "hook_event_name": event, **extra}
    return json.dumps(data).encode()


def _command(root: Path, command: str) -> bytes:
    return _payload(root, "PreToolUse", tool_name="Bash", tool_input={"command": command})


def commands(root: Path, clean: Path) -> list[tuple[str, list[str], Path, bytes, float, str]]:
    """(label, argv, folder, stdin, goal, what the answer must contain) per whole-process row."""
    hook = [CAGR, "hook"]
    return [
        ("hook, an ordinary shell command (`npm test`)", hook, root,
         _command(root, "npm test"), 1.3, ""),
        ("hook, after an ordinary shell command (HEAD and the target where they were)", hook,
         root, _payload(root, "PostToolUse", tool_name="Bash",
                        tool_input={"command": "npm test"}, tool_response={}), 1.3, ""),
        # `git push` is read by the force-push guard: the shell reader runs.
        ("hook, a shell command that is not a PR command (`npm test && git push`)", hook, root,
         _command(root, "npm test && git push"), 1.3, ""),
        ("hook, gh pr create, current record, no body", hook, root,
         _command(root, "gh pr create --fill"), 2, "cannot see the body"),
        ("hook, gh pr create, current record, body parsed", hook, root,
         _command(root, f'gh pr create -t T -b "{BODY}"'), 3, ""),
        # A passing turn end answers `{}`: the Risk section the change owes is the PR's to
        # give, said at the gate, not at every stop.
        ("hook, turn end, small change", hook, root,
         _payload(root, "Stop", stop_hook_active=False), 4, "{}"),
        ("`cagr rules check`", [CAGR, "rules", "check"], root, b"", 3, "passed"),
        ("`cagr ci --base main --body-file body.md`, 3 paths",
         [CAGR, "ci", "--base", "main", "--body-file", "body.md"], clean, b"", 8, "Passed"),
    ]  # fmt: skip


def _check_answer(argv: list[str], cwd: Path, stdin: bytes, expected: str) -> None:
    """Run once and make sure the row measures what it says (no crash, the expected answer)."""
    done = subprocess.run(argv, input=stdin, cwd=cwd, env=ENV, capture_output=True, check=False)
    said = (done.stdout + done.stderr).decode("utf-8", "replace")
    if done.returncode not in (0, 1, 3) or expected not in said or (not expected and said):
        raise RuntimeError(f"{argv} in {cwd}: exit {done.returncode}, not {expected!r}:\n{said}")
    if "error in" in said or "Traceback" in said:
        raise RuntimeError(f"{argv} in {cwd} failed inside:\n{said}")


def timed(argv: list[str], cwd: Path, stdin: bytes) -> tuple[float, float]:
    """One run of a whole process: (wall, CPU) seconds, CPU being the child's user + system."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, input=stdin, cwd=cwd, env=ENV, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def versus_python(label: str, ours: Run, runs: int, goal: float) -> float:
    """Whole process against `python -c pass`, alternately: the medians of wall time (the goal
    is judged on them), and the least CPU time each took (user + system), which a shared
    machine's load disturbs least."""
    bare: Run = ([PYTHON, "-c", "pass"], ours[1], b"")
    timed(*ours), timed(*bare)  # warm both
    mine, theirs = [], []
    for _ in range(runs):
        mine.append(timed(*ours))
        theirs.append(timed(*bare))
    wall = (
        statistics.median(w for w, _ in mine) * 1000,
        statistics.median(w for w, _ in theirs) * 1000,
    )
    cpu = min(c for _, c in mine) * 1000, min(c for _, c in theirs) * 1000
    RESULTS.append((label, wall[0], wall[1], goal))
    verdict = "holds" if wall[0] / wall[1] <= goal else "MISSED"
    print(f"  {label:<52} {wall[0]:6.1f} ms vs python {wall[1]:5.1f} ms = {wall[0] / wall[1]:5.2f}x"
          f"  least CPU {cpu[0]:5.1f} vs {cpu[1]:4.1f} ms = {cpu[0] / cpu[1]:5.2f}x"
          f"  goal <= {goal:g}x {verdict}", flush=True)  # fmt: skip
    return wall[0]


def whole_rows(root: Path, clean: Path, runs: int) -> None:
    for label, argv, cwd, stdin, goal, expected in commands(root, clean):
        _check_answer(argv, cwd, stdin, expected)
        ours = versus_python(label, (argv, cwd, stdin), runs, goal)
        if "body parsed" in label:
            print(f"  {'':<52} under 50 ms wall: {'holds' if ours < 50 else 'MISSED'}")
    compare("  against `git diff --stat main` (the trial's figure)",
            process([CAGR, "ci", "--base", "main", "--body-file", "body.md"], clean),
            shell(clean, "git diff --stat main >/dev/null"), runs)  # fmt: skip


def collection_rows(root: Path, runs: int) -> None:
    from cagr_core.ruleset import RuleSet  # noqa: PLC0415  # the installed package
    from cagr_git.discover import find_checkout  # noqa: PLC0415
    from cagr_git.repository import open_repo  # noqa: PLC0415
    from cagr_repo.collect import collect_committed, collect_working_tree  # noqa: PLC0415

    rules = RuleSet.of(())
    checkout = find_checkout(str(root))
    base = git(root, "merge-base", "main", "HEAD").decode().strip()

    def working() -> None:
        with open_repo(checkout) as repo:
            assert not collect_working_tree(repo, "main", rules).unchecked

    def committed() -> None:
        with open_repo(checkout) as repo:
            assert not collect_committed(repo, "main", rules).unchecked

    compare("collection, working tree, warm (in-process)", call(working),
            shell(root, f"git diff --raw --no-renames -z {base} >/dev/null && "
                  "git ls-files -o --exclude-standard -z >/dev/null"), runs, 2)  # fmt: skip
    git_diff = shell(root, f"git diff --raw --no-renames -z {base} HEAD >/dev/null")
    compare("collection, committed B..H (in-process)", call(committed), git_diff, runs, 2)


def imports(root: Path, clean: Path) -> None:
    """Per command: the modules imported beyond a bare start, and their time."""
    bare = _imported([PYTHON, "-X", "importtime", "-c", "pass"], root, b"")
    for label, argv, cwd, stdin, _, _ in commands(root, clean):
        module = [PYTHON, "-X", "importtime", "-c",
                  "import sys; from cagr_cli.main import main; sys.exit(main())"]  # fmt: skip
        found = _imported([*module, *argv[1:]], cwd, stdin)
        extra = {name: us for name, us in found.items() if name not in bare}
        top = sorted(extra.items(), key=lambda item: -item[1])[:8]
        print(f"  {label}: {len(extra)} modules, {sum(extra.values()) / 1000:.1f} ms self;"
              f" slowest: {', '.join(f'{n} {us / 1000:.1f}' for n, us in top)}")  # fmt: skip
        ours = sorted(n for n in extra if n.startswith("cagr"))
        others = sorted({n.split(".")[0] for n in extra if not n.startswith("cagr")})
        print(f"    cagr: {' '.join(ours)}\n    others: {' '.join(others)}")


def _imported(argv: list[str], cwd: Path, stdin: bytes) -> dict[str, int]:
    """Module -> its own import time (µs), from `python -X importtime`."""
    done = subprocess.run(argv, input=stdin, cwd=cwd, env=ENV, capture_output=True, check=False)
    found = {}
    for line in done.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line and "self" not in line:
            own, _, name = line.removeprefix("import time:").split("|")
            found[name.strip()] = int(own)
    return found


def repository(root: Path, clean: Path, runs: int, show_imports: bool) -> None:
    files = len(git(root, "ls-files", "-z").split(b"\0")) - 1
    print(f"{root.name}: {files} files, a change of 3 committed paths and one working edit:")
    whole_rows(root, clean, runs)
    collection_rows(root, runs)
    if show_imports:
        imports(root, clean)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--real", type=Path, help="a clone of a real repository (copied first)")
    parser.add_argument(
        "--paths",
        nargs=3,
        default=["src/flask/app.py", "CHANGES.rst", "tests/test_basic.py"],
        metavar=("CODE", "LOG", "TEST"),
        help="--real's change: a code file, the change log, a test (default: flask's)",
    )
    parser.add_argument("--imports", action="store_true", help="each command's imports")
    parser.add_argument("--keep", type=Path, help="build the repositories here and keep them")
    args = parser.parse_args()
    header(args.runs)
    with tempfile.TemporaryDirectory() as scratch:
        where = args.keep or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        for stale in where.iterdir():
            shutil.rmtree(stale)
        root, paths = synthetic(where)
        repository(root, prepare(root, paths), args.runs, args.imports)
        if args.real:
            root = copy_of(args.real, where)
            repository(root, prepare(root, args.paths), args.runs, args.imports)
    print("\nsummary (ratio, goal):")
    for label, ours, theirs, goal in RESULTS:
        goal_text = "-" if goal is None else f"<= {goal:g}x"
        print(f"  {label:<60} {ours / theirs:5.2f}  {goal_text}")


if __name__ == "__main__":
    main()
