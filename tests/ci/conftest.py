"""A project on a real origin repository, cloned the way actions/checkout clones it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.repo.configs import TWO_RULES as RULES
from tests.repo.gitutil import commit, git, write

GOOD_BODY = "## Summary\nAdds x.\n\n## Risk\nDependency reason: x parses the wire format.\n"
DEPENDENCY = '{"dependencies": {"x": "1"}}'


class Project:
    """`origin` holds main and the PR branch `work`; `clone()` is a CI job's checkout."""

    def __init__(self, origin: Path, tmp: Path) -> None:
        self.origin = origin
        self.tmp = tmp
        self.base = git(origin, "rev-parse", "main").decode().strip()
        self._clones = 0

    def work(self, files: dict[str, str], message: str = "work") -> str:
        """Commit `files` on `work` in origin; the new head."""
        git(self.origin, "checkout", "-q", "work")
        for path, content in files.items():
            write(self.origin, path, content)
        head = commit(self.origin, message)
        git(self.origin, "checkout", "-q", "main")  # a server's HEAD: its default branch
        return head

    def main(self, files: dict[str, str], message: str = "main moves on") -> str:
        git(self.origin, "checkout", "-q", "main")
        for path, content in files.items():
            write(self.origin, path, content)
        return commit(self.origin, message)

    def baseline(self, files: dict[str, str]) -> None:
        """Add `files` to main and start `work` again from there."""
        git(self.origin, "checkout", "-q", "main")
        for path, content in files.items():
            write(self.origin, path, content)
        commit(self.origin, "more baseline")
        git(self.origin, "branch", "-f", "work", "main")
        self.base = git(self.origin, "rev-parse", "main").decode().strip()

    def clone(self, ref: str, depth: int | None = None) -> Path:
        """A fresh clone with origin/* branches, detached at `ref` (actions/checkout's way);
        with `depth`, a shallow one (`ref` must then be a branch tip)."""
        self._clones += 1
        target = self.tmp / f"checkout{self._clones}"
        shallow = ["--depth", str(depth), "--no-single-branch"] if depth else []
        source = f"file://{self.origin}" if depth else str(self.origin)
        git(self.tmp, "clone", "-q", "--no-checkout", *shallow, source, str(target))
        git(target, "checkout", "-q", "--detach", ref)
        return target


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
