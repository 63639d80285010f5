"""How the hook is started: console scripts of different installers, and a launcher without site.

For each `--venv` (a regular install of cagr, by pip or by uv), in the start-up floor's small
repository, the commonest hook calls (an ordinary shell command, the call after it, one the
force-push guard reads, and `gh pr create` with a current record and no body) run alternately
with a bare `python -c pass` of the same virtualenv, each started three ways:

- `cagr hook`, the installer's console script (pip's imports `re` before cagr runs; uv's not);
- `python -S` in the shebang of a script that puts the install's site-packages on `sys.path`
  and calls cagr's entry point: the interpreter without site initialisation, the least a
  launcher could start (it bakes machine paths into the script, which is why it is measured
  here and not installed: docs/performance.md says what a real one would have to keep);
- the same from `/bin/sh` (`exec python -S -c ...`), as a launcher that finds its interpreter
  would have to be.

    python benchmarks/launchers.py --venv PIP_VENV UV_VENV --runs 21
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # after site-packages: the install wins

from benchmarks.floor import _command, _payload, prepare, synthetic, timed


def _launchers(venv: Path, where: Path) -> dict[str, list[str]]:
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    call = (
        f"import sys; sys.path.append({purelib!r}); "
        "from cagr_cli.main import main; sys.exit(main())"
    )
    shebang = where / f"{venv.name}-S.py"
    shebang.write_text(f"#!{python} -S\n{call}\n")
    sh = where / f"{venv.name}-S.sh"
    sh.write_text(f'#!/bin/sh\nexec {python} -S -c "{call}" "$@"\n')
    for script in (shebang, sh):
        script.chmod(0o755)
    return {
        "console script": [str(venv / "bin" / "cagr"), "hook"],
        "python -S script": [str(shebang), "hook"],
        "sh + python -S": [str(sh), "hook"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, nargs="+", required=True)
    parser.add_argument("--runs", type=int, default=21)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        root, paths = synthetic(where)
        prepare(root, paths)
        calls = {
            "npm test": _command(root, "npm test"),
            "after npm test": _payload(
                root, "PostToolUse", tool_name="Bash", tool_input={"command": "npm test"}
            ),
            "npm test && git push": _command(root, "npm test && git push"),
            "gh pr create, no body": _command(root, "gh pr create --fill"),
        }
        for venv in options.venv:
            bare = [str(venv / "bin" / "python"), "-c", "pass"]
            print(f"{venv} (bare start: `python -c pass` of this virtualenv)")
            for label, stdin in calls.items():
                for name, argv in _launchers(venv.resolve(), where).items():
                    timed(argv, root, stdin)  # warm
                    ours: list[tuple[float, float]] = []
                    base: list[tuple[float, float]] = []
                    for index in range(options.runs):
                        pair = [(argv, stdin, ours), (bare, b"", base)]
                        for command, data, into in pair if index % 2 == 0 else pair[::-1]:
                            into.append(timed(command, root, data))
                    wall = statistics.median(w for w, _ in ours) * 1000
                    bare_wall = statistics.median(w for w, _ in base) * 1000
                    cpu = min(c for _, c in ours) * 1000
                    bare_cpu = min(c for _, c in base) * 1000
                    print(
                        f"  {label:24s} {name:18s} {wall:6.1f} ms vs {bare_wall:5.1f} ="
                        f" {wall / bare_wall:4.2f}x   least CPU {cpu:5.1f} vs {bare_cpu:4.1f} ="
                        f" {cpu / bare_cpu:4.2f}x"
                    )


if __name__ == "__main__":
    main()
