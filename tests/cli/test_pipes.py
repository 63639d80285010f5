"""Every command stops quietly when its reader goes away (`cagr changes | head`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cagr_cli.main import EXIT_CLOSED_PIPE
from tests.support.configs import rule
from tests.support.git import commit, git, write


@pytest.fixture
def project(repo: Path) -> Path:
    write(repo, "cagr.toml", rule())
    write(repo, "src/schema.py", "v1")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    write(repo, "src/schema.py", "v2")
    return repo


def closed_pipe(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """Run cagr with stdout on a pipe whose reader has already gone: its first write fails,
    however small the output."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run(
            [sys.executable, "-m", "cagr_cli", "--repo", str(root), *args],
            stdout=writer,
            stderr=subprocess.PIPE,
            check=False,
        )
    finally:
        os.close(writer)


@pytest.mark.parametrize(
    "args",
    [
        ("changes",),
        ("changes", "--format", "json"),
        ("schema",),
        ("rules", "check", "--format", "json"),
        ("rules", "check"),
        ("rules", "test"),
        ("explain", "schema"),
    ],
)
def test_a_closed_pipe_ends_the_command_quietly(project: Path, args: tuple[str, ...]) -> None:
    result = closed_pipe(project, *args)
    assert result.stderr == b""
    assert result.returncode == EXIT_CLOSED_PIPE
