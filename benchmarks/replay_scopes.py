"""New findings only against whole files: four code rules replayed over a real history.

Writes four of benchmarks/code_rules.py's rules as a team would adopt them (no print() in the
library's package, no bare except, no debugger, no TODO without an issue) into a scratch copy
of a clean clone, once with `scope = "new"` and once with `scope = "file"`, runs `cagr replay`
over COUNT first-parent commits ending FROM commits before HEAD with each, and prints per rule
the commits it judged and its findings (and the commits with findings) under both scopes.
docs/code-rules.md's table was made with it:

    python benchmarks/replay_scopes.py ../flask /flask/**/*.py --from 1200 --count 200

Not a timing: it counts. The clones are needed by no test and no CI job.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))

from benchmarks.code_rules import RULES, _toml
from benchmarks.repos import git
from benchmarks.timing import CAGR, ENV

TEAM = ("no-print", "no-bare-except", "no-debugger", "todo-needs-issue")


def config(library: str, scope: str) -> str:
    """The four rules; no-print selects only `library`, the others every `.py` file."""
    example = library.replace("**/*.py", "a.py").lstrip("/")
    out = []
    for name, rule, bad, good in RULES:
        if name not in TEAM:
            continue
        paths = [library] if name == "no-print" else ["**/*.py"]
        out.append(
            f'\n[[code.rules]]\nid = "{name}"\nlanguage = "python"\npaths = {_toml(paths)}\n'
            f'rule = {_toml(rule)}\nscope = "{scope}"\nreason = "The team does not merge {name}."\n'
            f'examples.invalid = [{{ path = "{example}", after = {_toml(bad + chr(10))} }}]\n'
            f'examples.valid = [{{ path = "{example}", after = {_toml(good + chr(10))} }}]\n'
        )
    return "".join(out)


def replay(root: Path, revs: list[str]) -> dict[str, dict[str, int]]:
    test = subprocess.run(
        [CAGR, "rules", "test"], cwd=root, env=ENV, capture_output=True, check=False
    )
    if test.returncode != 0:
        raise SystemExit(f"the rules' examples fail: {test.stdout.decode()}")
    done = subprocess.run(
        [CAGR, "replay", "--format", "json", *revs],
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
        check=True,
    )
    return {rule["rule"]: rule for rule in json.loads(done.stdout)["rules"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clone", type=Path)
    parser.add_argument("library", help="the library's files, for no-print: /src/pkg/**/*.py")
    parser.add_argument("--from", dest="start", type=int, default=0, help="HEAD~FROM is last")
    parser.add_argument("--count", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / args.clone.name
        shutil.copytree(args.clone, root, symlinks=True)
        listed = git(root, "rev-list", "--first-parent", f"HEAD~{args.start}")
        revs = listed.decode().split()[: args.count]
        found = {}
        for scope in ("new", "file"):
            (root / "cagr.toml").write_text(config(args.library, scope))
            found[scope] = replay(root, revs)
    print(f"{args.clone.name}: {len(revs)} first-parent commits ending at HEAD~{args.start}")
    print(f"  {'rule':<18} {'judged':>6}  new: findings (commits)  file: findings (commits)")
    for name in TEAM:
        new, whole = found["new"][name], found["file"][name]
        print(
            f"  {name:<18} {new['fired']:>6}"
            f"  {new['findings']:>6} ({new['commits_with_findings']:>3})"
            f"            {whole['findings']:>6} ({whole['commits_with_findings']:>3})"
            f"   unchecked {new['unchecked']}/{whole['unchecked']}"
        )


if __name__ == "__main__":
    main()
