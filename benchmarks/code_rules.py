"""Code rules: the turn end with 10 code rules, and `cagr check --all` against ast-grep's CLI.

Ten code rules as a team writes them for Python (no print(), no bare except, no debugger, no
TODO without an issue, no eval/exec, no star import, no mutable default, no os.system, no
shell=True, no `assert False`), each over every `.py` file. Rows, each timed alternately with
its baseline (benchmarks/timing.py):

1. the turn-end hook (`cagr hook`, a Claude Code Stop event) on a synthetic repository of 200
   modules (about 200 lines each, one `print` apiece on main) whose working tree modifies 20 of
   them without adding a finding, so both sides of every changed file are searched and the turn
   ends without blocking: against a bare `python -c pass`; and the same turn end with one change
   rule and no code rule, to show what the code rules add;
2. with `--real CLONE` (a clean clone of a real repository, flask or larger), `cagr check --all`
   with the same rules written to a scratch copy's `cagr.toml`, against ast-grep's own CLI
   (`ast-grep scan --inline-rules` with the same rules, over the same folder: it walks the files
   git does not ignore, as `--all` does), with its default threads and with `--threads 1`
   (cagr searches in one thread). Before timing, the findings of both are counted per rule and
   must agree.

Usage: python benchmarks/code_rules.py [--runs 15] [--real CLONE ...]
The real repositories are needed by no test and no CI job.
"""

from __future__ import annotations

import argparse
import collections
import json
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))

from benchmarks.repos import git
from benchmarks.timing import CAGR, ENV, PYTHON, Timed, header
from benchmarks.timing import compare as compare_wall
from benchmarks.timing import process as process_wall

AST_GREP = str(Path(PYTHON).with_name("ast-grep"))
_SHELL_TRUE = {"kind": "keyword_argument", "regex": r"^shell\s*=\s*True$", "stopBy": "end"}
Rule = tuple[str, dict[str, object], str, str]  # id, ast-grep rule, a match, a near miss
RULES: list[Rule] = [
    ("no-print", {"pattern": "print($$$A)"}, "print(x)", "log.info(x)"),
    (
        "no-bare-except",
        {"kind": "except_clause", "regex": r"^except\s*:"},
        "try:\n    f()\nexcept:\n    pass",
        "try:\n    f()\nexcept OSError:\n    pass",
    ),
    (
        "no-debugger",
        {"any": [{"pattern": "breakpoint($$$A)"}, {"pattern": "pdb.set_trace()"}]},
        "breakpoint()",
        "checkpoint()",
    ),
    (
        "todo-needs-issue",
        {
            "kind": "comment",
            "regex": r"\b(TODO|FIXME|XXX)\b",
            "not": {"regex": r"\((#|GH-)[0-9]+\)"},
        },
        "x = 1  # TODO later",
        "x = 1  # TODO(#12) later",
    ),
    (
        "no-eval-exec",
        {"any": [{"pattern": "eval($$$A)"}, {"pattern": "exec($$$A)"}]},
        "eval(text)",
        "literal_eval(text)",
    ),
    ("no-star-import", {"kind": "wildcard_import"}, "from os import *", "from os import path"),
    (
        "no-mutable-default",
        {
            "kind": "default_parameter",
            "has": {"field": "value", "any": [{"kind": k} for k in ("list", "dictionary", "set")]},
        },
        "def f(a=[]):\n    return a",
        "def f(a=()):\n    return a",
    ),
    ("no-os-system", {"pattern": "os.system($$$A)"}, "os.system(c)", "os.getcwd()"),
    (
        "no-shell-true",
        {"pattern": "subprocess.$F($$$A)", "has": _SHELL_TRUE},
        "subprocess.run(c, shell=True, check=True)",
        "subprocess.run(c, check=True)",
    ),
    ("no-assert-false", {"pattern": "assert False"}, "assert False", "assert x"),
]


class Counted:
    """A whole process, timed; it keeps the CPU time (user + system, every thread) of each run,
    which a loaded shared machine disturbs less than wall time."""

    def __init__(self, argv: list[str], cwd: Path, stdin: bytes = b"") -> None:
        self.run: Timed = process_wall(argv, cwd, stdin)
        self.cpu: list[float] = []

    def __call__(self) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        elapsed = self.run()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        self.cpu.append(used)
        return elapsed


def process(argv: list[str], cwd: Path, stdin: bytes = b"") -> Counted:
    return Counted(argv, cwd, stdin)


def compare(label: str, ours: Counted, baseline: Counted, runs: int, *, against: str) -> None:
    """benchmarks.timing's row of wall-time medians, then the least CPU time of each side."""
    ours.cpu.clear()
    baseline.cpu.clear()
    compare_wall(label, ours, baseline, runs, against=against)
    a, b = min(ours.cpu) * 1000, min(baseline.cpu) * 1000
    print(f"  {'':<58} least CPU: cagr {a:7.1f} ms  {against} {b:7.1f} ms  ratio {a / b:6.2f}")


def _toml(value: object) -> str:
    """A TOML inline value (strings as JSON writes them, which TOML reads alike)."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def cagr_config(rules: list[Rule], paths: str = "**/*.py", scope: str = "new") -> str:
    """The rules as `[[code.rules]]`, each with its examples."""
    return "".join(
        f'\n[[code.rules]]\nid = "{name}"\nlanguage = "python"\npaths = ["{paths}"]\n'
        f'rule = {_toml(rule)}\nscope = "{scope}"\nreason = "The team does not merge {name}."\n'
        f'examples.invalid = [{{ path = "a.py", after = {_toml(bad + chr(10))} }}]\n'
        f'examples.valid = [{{ path = "a.py", after = {_toml(good + chr(10))} }}]\n'
        for name, rule, bad, good in rules
    )


def ast_grep_rules(rules: list[Rule]) -> str:
    """The same rules as ast-grep's YAML (JSON documents are YAML)."""
    return "\n---\n".join(
        json.dumps({"id": name, "language": "python", "severity": "error", "rule": rule})
        for name, rule, _, _ in rules
    )


CHANGE_RULE = """
[[changes.rules]]
id = "changelog"
kind = "requires"
paths = ["pkg*/**"]
require = ["CHANGES.md"]
reason = "Say what changed in CHANGES.md."
examples.invalid = [{ changes = [{ path = "pkg0/a.py", status = "M" }] }]
[[changes.rules.examples.valid]]
changes = [{ path = "pkg0/a.py", status = "M" }, { path = "CHANGES.md", status = "M" }]
"""


def _module(index: int, extra: int = 0) -> str:
    lines = [f'"""Module {index}."""', "", "import os", "", ""]
    for number in range(20 + extra):
        lines += [
            f"def function_{number}(value, scale=1):",
            f'    """Scale value by {number}."""',
            f"    result = value * scale + {number}",
            "    if result > 100:",
            "        result = os.path.join(str(result), 'x')",
            "    return result",
            "",
            "",
        ]
    lines += ["def report(value):", "    print(value)", ""]
    return "\n".join(lines) + "\n"


def synthetic(root: Path, config: str) -> Path:
    """200 modules on main (config committed with them); 20 modified in the working tree."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for index in range(200):
        path = root / f"pkg{index % 10}" / f"module_{index}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(_module(index))
    (root / "CHANGES.md").write_text("# Changes\n")
    (root / "cagr.toml").write_text(config)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-q", "-b", "work")
    for index in range(0, 200, 10):
        (root / f"pkg{index % 10}" / f"module_{index}.py").write_text(_module(index, extra=2))
    (root / "CHANGES.md").write_text("# Changes\n- more functions\n")
    return root


def stop_payload(root: Path) -> bytes:
    data = {"session_id": "bench", "cwd": str(root), "hook_event_name": "Stop"}
    return json.dumps({**data, "stop_hook_active": False}).encode()


def _turn_end(root: Path) -> tuple[int, str]:
    done = subprocess.run(
        [CAGR, "hook"],
        input=stop_payload(root),
        cwd=root,
        env=ENV,
        capture_output=True,
        check=False,
    )
    return done.returncode, done.stdout.decode()


def turn_end_rows(where: Path, runs: int) -> None:
    bare = process([PYTHON, "-c", "pass"], where)
    print("turn end (Stop hook), 200 modules, 20 modified in the working tree:")
    for label, config in (
        ("10 code rules (and one change rule)", cagr_config(RULES) + CHANGE_RULE),
        ("one change rule, no code rule", CHANGE_RULE),
    ):
        root = synthetic(where / label.split()[0], config)
        code, out = _turn_end(root)
        check = subprocess.run(
            [CAGR, "rules", "check"], cwd=root, env=ENV, capture_output=True, text=True, check=False
        )
        if code != 0 or out.strip() not in ("", "{}") or check.returncode != 0:
            raise SystemExit(f"the turn end should pass quietly: {code} {out[:500]} {check}")
        print(f"  {check.stdout.strip()}")
        hook = process([CAGR, "hook"], root, stdin=stop_payload(root))
        compare(f"Stop hook, {label}", hook, bare, runs, against="python")


def _counts_cagr(root: Path) -> collections.Counter[str]:
    done = subprocess.run(
        [CAGR, "check", "--all", "--format", "json"],
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"cagr check --all: exit {done.returncode}: {done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    return collections.Counter(finding["rule"] for finding in report["findings"])


def _counts_ast_grep(root: Path, rules: str) -> collections.Counter[str]:
    done = subprocess.run(
        [AST_GREP, "scan", "--inline-rules", rules, "--json=compact", "."],
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    return collections.Counter(match["ruleId"] for match in json.loads(done.stdout))


def real_rows(where: Path, clone: Path, runs: int) -> None:
    root = where / clone.name
    shutil.copytree(clone, root, symlinks=True)
    (root / "cagr.toml").write_text(cagr_config(RULES))
    files = git(root, "ls-files", "*.py").decode().count("\n")
    rules = ast_grep_rules(RULES)
    ours, theirs = _counts_cagr(root), _counts_ast_grep(root, rules)
    print(
        f"{clone.name}: {files} tracked .py files; findings cagr {sum(ours.values())},"
        f" ast-grep {sum(theirs.values())}: {dict(sorted(ours.items()))}"
    )
    if ours != theirs:
        raise SystemExit(f"the findings differ: cagr {dict(ours)}, ast-grep {dict(theirs)}")
    check = process([CAGR, "check", "--all"], root)
    scan = [AST_GREP, "scan", "--inline-rules", rules, "."]
    one = [*scan[:2], "--threads", "1", *scan[2:]]
    compare(
        f"{clone.name}: cagr check --all vs ast-grep scan",
        check,
        process(scan, root),
        runs,
        against="sg",
    )
    compare(
        f"{clone.name}: cagr check --all vs ast-grep scan --threads 1",
        check,
        process(one, root),
        runs,
        against="sg",
    )
    compare(
        f"{clone.name}: ast-grep scan, 1 thread vs python -c pass",
        process(one, root),
        process([PYTHON, "-c", "pass"], root),
        runs,
        against="python",
    )
    compare(
        f"{clone.name}: cagr check --all vs python -c pass",
        check,
        process([PYTHON, "-c", "pass"], root),
        runs,
        against="python",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--real", type=Path, nargs="*", default=[], help="clean clones")
    parser.add_argument("--skip-turn-end", action="store_true")
    args = parser.parse_args()
    header(args.runs)
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        if not args.skip_turn_end:
            turn_end_rows(where, args.runs)
        for clone in args.real:
            real_rows(where, clone.resolve(), args.runs)


if __name__ == "__main__":
    main()
