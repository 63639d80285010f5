"""Hook speed: `cagr hook` against a bare Python start, and turn end against git, side by side.

Each row times whole processes, interleaved with its baseline, and prints medians and the ratio:

- a shell command that is not a PR command (budget: 1.3x `python -c pass`), and the same
  through the command `init --hooks` installs (`command -v cagr && cagr hook ... || true`),
  run by `sh -c` as agents run it, against `sh -c` starting a bare Python;
- after a shell command that moved nothing (PostToolUse, budget 1.3x) and after one that moved
  HEAD (the committed check runs: no budget but the hook's deadline; shown for scale);
- `gh pr create` with a current gate record and no body obligation (budget: 2.5x);
- `gh pr create` whose body must be parsed for a PR-body obligation (budget: 4x);
- for comparison, the same non-PR call started with `python -S` and cagr's path given
  explicitly (what a faster installed command could do);
- turn end on the synthetic repositories of benchmarks/collect.py: the whole hook against the
  same collection in-process (the hook's own overhead; budget: under 100 ms) and against git.

Usage: python benchmarks/hooks.py [--runs 21] [--files 20000 100000] [--keep DIR]
Bytecode is written (PYTHONDONTWRITEBYTECODE is removed), as on a user's machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.repos import ENV as GIT_ENV  # noqa: E402
from benchmarks.repos import build, git  # noqa: E402

ENV = {k: v for k, v in GIT_ENV.items() if k != "PYTHONDONTWRITEBYTECODE"}
PYTHON = sys.executable
CAGR = str(Path(PYTHON).with_name("cagr"))
RULES = """
[[changes.rules]]
id = "dependency-reason"
kind = "pr_body"
paths = ["package.json"]
when = "dependency_added"
section = "Risk"
contains = "Dependency reason:"
reason = "Explain the dependency under Risk."
"""
_MANIFEST = '{ path = "package.json", status = "M", before = %r, after = %r }'
RULES += "examples.invalid = [{ pr_body = '', changes = [%s] }]\n" % (
    _MANIFEST % ("{}", '{"dependencies":{"x":"1"}}')
)
RULES += "examples.valid = [{ pr_body = '', changes = [%s] }]\n" % (
    _MANIFEST % ('{"dependencies":{"x":"1"}}', '{"dependencies":{"x":"2"}}')
)
BODY = "## Summary\\nAdds padding.\\n\\n## Risk\\nDependency reason: the wire format needs it."


def _process(argv: list[str], stdin: bytes, cwd: Path) -> Callable[[], float]:
    def run() -> float:
        started = time.perf_counter()
        subprocess.run(argv, input=stdin, cwd=cwd, env=ENV, capture_output=True, check=True)
        return time.perf_counter() - started

    return run


def compare(label: str, ours: Callable[[], float], base: Callable[[], float], runs: int,
            budget: str) -> None:  # fmt: skip
    ours()
    base()
    mine, theirs = [], []
    for _ in range(runs):
        mine.append(ours())
        theirs.append(base())
    a, b = statistics.median(mine) * 1000, statistics.median(theirs) * 1000
    print(f"  {label:<52} {a:7.1f} ms vs {b:7.1f} ms  ratio {a / b:5.2f}  (budget {budget})")


def payload(root: Path, event: str, **extra: object) -> bytes:
    data = {"session_id": "bench", "cwd": str(root), "hook_event_name": event, **extra}
    return json.dumps(data).encode()


def pre_tool_use(root: Path, command: str) -> bytes:
    return payload(root, "PreToolUse", tool_name="Bash", tool_input={"command": command})


def post_tool_use(root: Path, command: str) -> bytes:
    return payload(root, "PostToolUse", tool_name="Bash", tool_input={"command": command})


def _after_head_moved(root: Path) -> Callable[[], float]:
    """The hook after a command that moved HEAD: its record and stamp are gone, as after a
    commit (the committed check runs and writes both)."""
    state = root / ".git" / "cagr"
    run = _process([CAGR, "hook"], post_tool_use(root, "git commit -m x"), root)

    def timed() -> float:
        for name in ("gate.json", "refreshed.json"):
            (state / name).unlink(missing_ok=True)
        return run()

    return timed


def small_repo(where: Path) -> Path:
    root = where / "small"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "cagr.toml").write_text(RULES)
    (root / "package.json").write_text("{}")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-q", "-b", "work")
    (root / "package.json").write_text('{"dependencies": {"left-pad": "1"}}')
    git(root, "commit", "-qam", "dependency")
    subprocess.run([CAGR, "rules", "check", "--committed"], cwd=root, env=ENV, check=True,
                   capture_output=True)  # fmt: skip
    return root


def gate_rows(where: Path, runs: int) -> None:
    root = small_repo(where)
    bare = _process([PYTHON, "-c", "pass"], b"", root)
    print("hook calls (whole processes, same virtualenv):")
    compare("non-PR shell command", _process([CAGR, "hook"], pre_tool_use(root, "npm test"), root),
            bare, runs, "1.3x")  # fmt: skip
    fast = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
        "from cagr_cli.main import main; raise SystemExit(main(['hook']))"
    )
    compare("non-PR shell command, `python -S` + cagr's path",
            _process([PYTHON, "-S", "-c", fast], pre_tool_use(root, "npm test"), root), bare, runs,
            "-")  # fmt: skip
    compare("gh pr create, current record, no body to parse",
            _process([CAGR, "hook"], pre_tool_use(root, "gh pr create --fill"), root), bare, runs,
            "2.5x")  # fmt: skip
    from cagr_hooks.install import hook_command  # noqa: PLC0415

    installed = hook_command(CAGR + " hook", "claude", note=False)
    compare("non-PR shell command, the installed command via sh -c",
            _process(["sh", "-c", installed], pre_tool_use(root, "npm test"), root),
            _process(["sh", "-c", f"{PYTHON} -c pass"], b"", root), runs, "1.3x")  # fmt: skip
    compare("after a shell command that moved nothing",
            _process([CAGR, "hook"], post_tool_use(root, "npm test"), root), bare, runs,
            "1.3x")  # fmt: skip
    compare("after a shell command that moved HEAD (refresh)", _after_head_moved(root), bare,
            runs, "-")  # fmt: skip
    compare("gh pr create, current record, body parsed",
            _process([CAGR, "hook"], pre_tool_use(root, f'gh pr create -t T -b "{BODY}"'), root),
            bare, runs, "4x")  # fmt: skip


def turn_end_rows(where: Path, sizes: list[int], runs: int) -> None:
    from cagr_git.discover import find_checkout  # noqa: PLC0415
    from cagr_repo.check import check  # noqa: PLC0415
    from cagr_repo.config import load_config  # noqa: PLC0415

    for files in sizes:
        root = where / f"repo-{files}"
        if not root.exists():
            build(root, files, 2_000, 800)
        (root / "cagr.toml").write_text(RULES)
        base = git(root, "merge-base", "main", "HEAD").decode().strip()
        checkout = find_checkout(str(root))
        config = load_config(root)

        def in_process(config=config, checkout=checkout) -> float:  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            check(config, checkout)
            return time.perf_counter() - started

        # The rule here is a PR-body rule: it defers, never blocks, so every stop is alike.
        turn_end = _process([CAGR, "hook"], payload(root, "Stop", stop_hook_active=False), root)

        git_working = _process(
            ["bash", "-c", f"git diff --raw --no-renames -z {base} >/dev/null && "
             "git ls-files -o --exclude-standard -z >/dev/null"], b"", root
        )  # fmt: skip
        print(f"turn end, {files} files, about 800 changes:")
        compare("whole Stop hook vs the same check in-process", turn_end, in_process, runs,
                "overhead < 100 ms")  # fmt: skip
        compare("whole Stop hook vs git's collection", turn_end, git_working, runs, "3x + hook")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--files", type=int, nargs="*", default=[20_000, 100_000])
    parser.add_argument("--keep", type=Path, help="build repositories here and keep them")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; medians of {args.runs} interleaved runs")
    with tempfile.TemporaryDirectory() as scratch:
        where = args.keep or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        small = where / "small"
        if small.exists():
            subprocess.run(["rm", "-rf", str(small)], check=True)
        gate_rows(where, args.runs)
        turn_end_rows(where, args.files, max(5, args.runs // 4))


if __name__ == "__main__":
    main()
