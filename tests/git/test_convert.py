"""Line-ending conversion and `ident` against git's own: for generated content, cagr's idea of
what git stores equals `git hash-object --path` (which converts as `git add` does), and content
cagr leaves unchecked is exactly content git would rewrite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cagr_git import worktree
from cagr_git.convert import ALWAYS, AUTO, Conversion, looks_binary, to_git
from cagr_git.worktree import blob_id
from tests.support.git import collect, commit, git, write

_BYTES = st.binary(max_size=40) | st.lists(
    st.sampled_from(
        [b"\r\n", b"\r", b"\n", b"a", b"\0", b"\x01", b"\x1a", b"\t", b"$Id", b"$", b":", b"I"]
    ),
    max_size=30,
).map(b"".join)


@pytest.fixture(scope="module")
def attributed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("convert")
    git(root, "init", "-q", "-b", "main")
    write(root, ".gitattributes", "*.auto text=auto\n*.text text\n*.id ident\n")
    return root


def _git_stores(root: Path, name: str, data: bytes) -> str:
    return git(root, "hash-object", "--stdin", f"--path={name}", stdin=data).decode().strip()


class TestAgainstGit:
    @settings(max_examples=int(os.environ.get("CAGR_ORACLE_EXAMPLES", "150")), deadline=None)
    @given(_BYTES)
    def test_automatic_and_explicit_conversion(self, attributed: Path, data: bytes) -> None:
        for name, mode in (("f.auto", AUTO), ("f.text", ALWAYS)):
            ours = blob_id(to_git(data, Conversion(mode), lambda: False)).hex()
            assert ours == _git_stores(attributed, name, data), (name, data)

    @settings(max_examples=int(os.environ.get("CAGR_ORACLE_EXAMPLES", "150")), deadline=None)
    @given(_BYTES)
    def test_ident_keywords_collapse_as_git_collapses_them(
        self, attributed: Path, data: bytes
    ) -> None:
        ours = blob_id(to_git(data, Conversion(ident=True), lambda: False)).hex()
        assert ours == _git_stores(attributed, "f.id", data), data


def test_binary_is_what_git_calls_binary() -> None:
    assert looks_binary(b"a\0b")
    assert looks_binary(b"a\rb\r\n")  # a lone CR
    assert not looks_binary(b"a\r\nb\x1a")  # a trailing end-of-file mark is not counted
    assert looks_binary(b"\x01\x02\x03\r\n")


def test_a_file_too_large_to_hold_is_exact_unless_it_would_convert(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worktree, "MAX_CONVERTED_BYTES", 8)
    write(repo, ".gitattributes", "* text\n")
    write(repo, "plain.txt", "x")
    write(repo, "crlf.txt", "x")
    commit(repo, "base")
    write(repo, "plain.txt", "no carriage returns here\n" * 3)
    write(repo, "crlf.txt", "carriage returns\r\n" * 3)
    changes = collect(repo, base="HEAD")
    assert [c.path for c in changes.changes] == ["plain.txt"]
    (item,) = changes.unchecked
    assert item.message == (
        "crlf.txt: is too large for cagr to convert its line endings as git does."
    )
