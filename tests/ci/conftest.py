"""A project on a real origin repository, cloned the way actions/checkout clones it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.ci import Project
from tests.support.configs import TWO_RULES as RULES
from tests.support.git import commit, git, write


@pytest.fixture
def project(repo: Path, tmp_path: Path) -> Project:
    write(repo, "cagr.toml", RULES)
    write(repo, "src/schema.py", "v1")
    write(repo, "schema.json", "{}")
    write(repo, "package.json", "{}")
    write(repo, ".gitignore", "*.log\n")
    commit(repo, "base")
    git(repo, "branch", "work")
    runner = tmp_path / "runner"
    runner.mkdir()
    return Project(repo, runner)
