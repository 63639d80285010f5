"""Which paths are cagr's configuration sources, and in what order they are read.

`cagr.toml` at the root, `pyproject.toml` (its `[tool.cagr]` table), and `.cagr/**/*.toml`
fragments in path order (`.cagr/review-evals/` is not config). Names only: cagr_repo.config_files
finds and reads them; `load` parses them. Standard library only (the PR gate digests the files).
"""

from __future__ import annotations

ROOT_FILE = "cagr.toml"
PYPROJECT = "pyproject.toml"
FRAGMENTS = ".cagr"
NOT_CONFIG = ".cagr/review-evals/"


def is_config_source(path: str) -> bool:
    """Whether a repo-relative path is one of cagr's config sources."""
    if path in (ROOT_FILE, PYPROJECT):
        return True
    return (
        path.startswith(FRAGMENTS + "/")
        and path.endswith(".toml")
        and not path.startswith(NOT_CONFIG)
    )


def may_hold(pyproject: bytes) -> bool:
    """Whether a pyproject.toml's bytes may hold a `[tool.cagr]` table, told without parsing
    TOML: they name cagr, or hold an escape that could spell it in a quoted key."""
    return b"cagr" in pyproject or b"\\u" in pyproject or b"\\U" in pyproject


def fragment_order(names: list[str]) -> list[str]:
    """Fragments in source order: by path, folder by folder."""
    return sorted(names, key=lambda name: name.split("/"))
