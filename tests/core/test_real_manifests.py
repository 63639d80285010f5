"""The dependency selector on real manifests: commits of public projects that added (or did not
add) dependencies, against what each commit's own diff shows it added (real_manifests/README.md)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from cagr_core.dependencies import Format, format_of
from cagr_manifests import ManifestError, added_dependencies

FIXTURES = Path(__file__).parent / "real_manifests"


class Commit(NamedTuple):
    folder: str
    path: str  # the manifest's path in its repository: the name says its format
    subject: str  # the commit's subject, as the project's history gives it
    added: list[str]  # what its diff adds, as cagr labels it
    unnamed: tuple[str, ...] = ()


COMMITS = [
    Commit(
        "cobra-dbf85f61",
        "go.mod",
        "Update gopkg.in/yaml.v2 to gopkg.in/yaml.v3 (#1766)",
        # a new major version is a new module path: Go counts it as another module
        ["require: gopkg.in/yaml.v3"],
    ),
    Commit(
        "flask-bc143499",
        "pyproject.toml",
        "Merge branch 'stable'",  # requirements/*.in became dependency-groups, uv replaced pip-tools
        [
            "dependency-groups.dev: ruff",
            "dependency-groups.dev: tox",
            "dependency-groups.dev: tox-uv",
            "dependency-groups.docs: pallets-sphinx-themes",
            "dependency-groups.docs: sphinx",
            "dependency-groups.docs: sphinx-tabs",
            "dependency-groups.docs: sphinxcontrib-log-cabinet",
            "dependency-groups.docs-auto: sphinx-autobuild",
            "dependency-groups.gha-update: gha-update",
            "dependency-groups.pre-commit: pre-commit",
            "dependency-groups.pre-commit: pre-commit-uv",
            "dependency-groups.tests: asgiref",
            "dependency-groups.tests: greenlet",
            "dependency-groups.tests: pytest",
            "dependency-groups.tests: python-dotenv",
            "dependency-groups.typing: asgiref",
            "dependency-groups.typing: cryptography",
            "dependency-groups.typing: mypy",
            "dependency-groups.typing: pyright",
            "dependency-groups.typing: pytest",
            "dependency-groups.typing: python-dotenv",
            "dependency-groups.typing: types-contextvars",
            "dependency-groups.typing: types-dataclasses",
            # Werkzeug -> werkzeug and Jinja2 -> jinja2, reordered: the same names (PEP 503)
            "project.dependencies: markupsafe",
        ],
    ),
    Commit(
        "flask-22d82e70",
        "requirements/docs.in",
        "Merge remote-tracking branch 'origin/2.0.x'",
        [],  # Sphinx became a git URL that names no package: cagr cannot tell what it adds
        ("line 2 (git+https://github.com/sphinx-doc/sphinx.git@96dbe5e3)",),
    ),
    Commit(
        "netbox-553b9746",
        "requirements.txt",
        "Fixes #22388: Pin redis-py to <8.0 (#22389)",
        ["redis"],
    ),
    Commit(
        "ripgrep-3a1780d8",
        "crates/searcher/Cargo.toml",
        "deps: replace memmap with memmap2",
        ["dependencies: memmap2"],  # `memmap = { package = "memmap2" }`: named by its package
    ),
    Commit(
        "ripgrep-53279db4",
        "Cargo.toml",
        "deps: switch to tikv-jemallocator",
        [
            'target.\'cfg(all(target_env = "musl", target_pointer_width = "64"))\''
            ".dependencies: tikv-jemallocator"
        ],
    ),
    Commit(
        "ripgrep-6d17b3ed",
        "crates/ignore/Cargo.toml",
        "deps: drop thread_local, lazy_static and once_cell",
        ["dependencies: regex-automata"],  # a `[dependencies.regex-automata]` table
    ),
    Commit(
        "textual-94191897",
        "pyproject.toml",
        "Merge pull request #1224 from Textualize/dev-deps-httpx",
        # the other dev tools moved from tool.poetry.dev-dependencies to the dev group, which
        # Poetry reads as the same group: only httpx is new
        ["tool.poetry.group.dev.dependencies: httpx"],
    ),
]


def _sides(folder: str) -> tuple[bytes | None, bytes]:
    before = FIXTURES / folder / "before"
    return (before.read_bytes() if before.exists() else None), (
        FIXTURES / folder / "after"
    ).read_bytes()


@pytest.mark.parametrize("commit", COMMITS, ids=[c.folder for c in COMMITS])
def test_a_real_commit_adds_what_its_history_says(commit: Commit) -> None:
    manifest = format_of(commit.path)
    assert manifest is not None
    additions = added_dependencies(manifest, *_sides(commit.folder))
    assert [a.label for a in additions.added] == commit.added
    assert additions.unnamed == commit.unnamed


def test_a_real_broken_pyproject_is_unreadable_with_the_parsers_line() -> None:
    # Textualize/textual f74c9eafc0 wrote `readme = README.md` (unquoted); the next release
    # fixed it. cagr says where, as tomllib does.
    with pytest.raises(ManifestError) as caught:
        added_dependencies(Format.PYPROJECT, *_sides("textual-f74c9eaf"))
    assert (
        str(caught.value) == "the new side is not valid TOML (Invalid value (at line 6, column 10))"
    )
    assert caught.value.side == "new"


def test_every_fixture_folder_is_tested() -> None:
    folders = {path.name for path in FIXTURES.iterdir() if path.is_dir()}
    assert folders == {c.folder for c in COMMITS} | {"textual-f74c9eaf"}
