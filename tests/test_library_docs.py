"""docs/library.md's examples run as written, in a repository with a failing change."""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import cagr
import cagr_core
from tests.support.configs import rule
from tests.support.git import commit, git, write

DOC = Path(__file__).resolve().parents[1] / "docs" / "library.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)


@pytest.fixture
def checkout(repo: Path) -> Path:
    write(repo, "cagr.toml", rule("schema-companion"))
    write(repo, "src/schema.py", "v1")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    write(repo, "src/schema.py", "v2")
    commit(repo, "source only")
    return repo


def test_there_are_examples() -> None:
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("block", range(len(BLOCKS)))
def test_each_example_runs(checkout: Path, block: int) -> None:
    result = subprocess.run(
        [sys.executable, "-c", BLOCKS[block]],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "fail" in result.stdout or "changed" in result.stdout


def test_the_public_names_resolve_whatever_was_imported_first() -> None:
    """A submodule named like a public name would replace it once imported (Python binds
    submodules on their package): no public name may be a module's."""
    for info in pkgutil.iter_modules(cagr_core.__path__):
        importlib.import_module(f"cagr_core.{info.name}")
    for name in cagr.__all__:
        value = getattr(cagr, name)
        assert not isinstance(value, types.ModuleType), f"cagr.{name}"


def test_the_core_package_itself_defines_nothing() -> None:
    """`cagr_core` is imported by every hook path: its __init__ holds only its docstring."""
    names = {name for name in vars(cagr_core) if not name.startswith("__")}
    assert names <= {info.name for info in pkgutil.iter_modules(cagr_core.__path__)}


def test_errors_are_the_documented_ones(tmp_path: Path) -> None:
    with pytest.raises(cagr.NotARepository):
        cagr.check(tmp_path)
