"""The tools the CI tests run with (the `test` extra installs them), and this checkout's root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.git import commit, git, write

ROOT = Path(__file__).resolve().parents[2]


def tool(name: str) -> str:
    """A command-line tool from this environment (the `test` extra installs them), or a skip."""
    found = shutil.which(
        name, path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    )
    if found is None:
        pytest.skip(f"{name} is not installed here; `pip install -e '.[test]'` provides it")
    return found


def run_tool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)


def branch_without_its_schema(repo: Path) -> None:
    """A `schema` rule on main, then the branch `work` that edits src.py without schema.json."""
    write(
        repo,
        "cagr.toml",
        '[[changes.rules]]\nid = "schema"\nkind = "requires"\npaths = ["src.py"]\n'
        'require = ["schema.json"]\nreason = "Regenerate schema.json."\n'
        'examples.invalid = [{ changes = [{ path = "src.py", status = "M" }] }]\n'
        'examples.valid = [{ changes = [{ path = "src.py", status = "M" },'
        ' { path = "schema.json", status = "M" }] }]\n',
    )
    write(repo, "src.py", "1")
    write(repo, "schema.json", "{}")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    write(repo, "src.py", "2")
    commit(repo, "edit the source only")
