"""add_only with `ignore_whitespace`: a formatter sweep over every merged migration.

The unhappy path of the option: a change that respaces every migration a rule freezes (rubocop's
`[:a]` -> `[ :a ]` and trailing spaces, the maybe-finance commit that made this option), so
each edited file's two sides are read and compared line by line. Rows, each timed alternately
with its baseline (benchmarks/timing.py):

1. `cagr rules check` on the working tree with `ignore_whitespace = "all-space"` (every edit
   let by) against `git diff -w BASE` (git's own comparison over the whole tree, as cagr's
   check looks at the whole tree: it reads both sides of each edit and diffs them ignoring
   whitespace; not `--quiet`, which stops at the first difference);
2. the same committed (`--committed`: both sides from the object database);
3. the same sweep with one real edit in each file, so every file is a finding (`was edited beyond
   its whitespace`): many findings;
4. the rule without the option (no content read: each edit a finding) against the same git
   command, for what the comparison adds (run second, after row 1).

Synthetic: N Ruby migrations of about 40 lines each (`--files 500`); with `--real CLONE`, the
clone's `db/migrate/*.rb` instead (maybe-finance has 174). Nothing here is needed by a test.

Usage: python benchmarks/whitespace.py [--files 500] [--runs 11] [--real CLONE]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))

from benchmarks.repos import git
from benchmarks.timing import CAGR, compare, header, process

_RULES = """[[changes.rules]]
id = "respaced"
kind = "add_only"
paths = ["/db/migrate/**"]
ignore_whitespace = "all-space"
reason = "Add a new migration instead."
examples.invalid = [{ changes = [{ path = "db/migrate/1.rb", status = "D" }] }]
examples.valid = [{ changes = [{ path = "db/migrate/2.rb", status = "A" }] }]

[[changes.rules]]
id = "any-edit"
kind = "add_only"
paths = ["/db/migrate/**"]
reason = "Add a new migration instead."
examples.invalid = [{ changes = [{ path = "db/migrate/1.rb", status = "D" }] }]
examples.valid = [{ changes = [{ path = "db/migrate/2.rb", status = "A" }] }]
"""


def _migration(number: int) -> str:
    columns = "".join(f'      t.string :field_{c}, null: false, default: ""  \n' for c in range(30))
    return (
        f"class CreateTable{number} < ActiveRecord::Migration[7.2]\n"
        "  def change\n"
        f"    create_table :table_{number}, id: :uuid do |t|\n{columns}"
        "      t.timestamps\n    end\n"
        f"    add_index :table_{number}, [:field_1, :field_2], unique: true\n"
        "  end\nend"
    )


def _respace(text: str, real_edit: bool) -> str:
    swept = text.replace("[:", "[ :").replace("],", " ],").replace("  \n", "\n") + "\n"
    return swept.replace("null: false", "null: true", 1) if real_edit else swept


def _repository(root: Path, files: int, real: Path | None) -> list[str]:
    """main with the migrations and both rules committed, and the branch `sweep` checked out."""
    if real is not None:
        subprocess.run(["git", "clone", "-q", str(real), str(root)], check=True)
        migrations = sorted(p.relative_to(root).as_posix() for p in root.glob("db/migrate/*.rb"))
    else:
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        migrations = [f"db/migrate/2025{n:06d}_create_table_{n}.rb" for n in range(files)]
        for number, path in enumerate(migrations):
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(_migration(number))
    (root / ".cagr").mkdir(exist_ok=True)
    (root / ".cagr" / "whitespace.toml").write_text(_RULES)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "migrations and rules")
    git(root, "checkout", "-q", "-b", "sweep")
    return migrations


def _sweep(root: Path, migrations: list[str], real_edit: bool) -> None:
    git(root, "checkout", "-q", "--", ".")
    for path in migrations:
        file = root / path
        file.write_text(_respace(file.read_text(), real_edit))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--real", type=Path)
    args = parser.parse_args()
    header(args.runs)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "repo"
        migrations = _repository(root, args.files, args.real)
        base = git(root, "rev-parse", "HEAD").decode().strip()
        print(f"  {len(migrations)} migrations, {args.real or 'synthetic'}", flush=True)
        git_w = process(["git", "diff", "-w", base], root, check=False)
        check = [CAGR, "rules", "check", "--base", base]
        respaced, any_edit = [*check, "--rule", "respaced"], [*check, "--rule", "any-edit"]

        _sweep(root, migrations, real_edit=False)
        compare("working tree, every edit only whitespace", process(respaced, root), git_w,
                args.runs)  # fmt: skip
        compare("the rule without the option (no content read)", process(any_edit, root), git_w,
                args.runs)  # fmt: skip
        git(root, "commit", "-q", "-a", "-m", "sweep")
        committed = ["git", "diff", "-w", base, "HEAD"]
        compare("committed, every edit only whitespace", process([*respaced, "--committed"], root),
                process(committed, root, check=False), args.runs)  # fmt: skip
        git(root, "reset", "-q", "--mixed", base)
        _sweep(root, migrations, real_edit=True)
        compare("working tree, every file a finding", process(respaced, root), git_w, args.runs)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
