"""The adversarial corpus: bad input and faults, each driving the real `cagr` command against a
real git repository built from a recipe.

The common setup is a repository on branch `feature` with one requires rule (`src/schema.ts`
needs `schema/out.json`) and `src/schema.ts` edited in the working tree: the control run exits 1.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cagr_cli.main import main
from tests.support.adversarial import (
    Outcome,
    build_feature,
)


@pytest.fixture
def feature(repo: Path) -> Path:
    return build_feature(repo)


@pytest.fixture
def cagr(capsys: pytest.CaptureFixture[str]) -> Callable[..., Outcome]:
    """Run `cagr --repo ROOT ARGS...` in-process and capture what it prints."""

    def run(root: Path | None, *args: str) -> Outcome:
        capsys.readouterr()
        code = main([*(["--repo", str(root)] if root is not None else []), *args])
        captured = capsys.readouterr()
        return Outcome(code, captured.out, captured.err)

    return run
