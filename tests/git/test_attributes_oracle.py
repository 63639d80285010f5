"""Attributes against git's own answer: random `.gitattributes` files (nested, untracked,
committed then deleted from the work tree), `info/attributes` and the user's file, with macros,
quoted patterns, `-`/`!` states, values, invalid names and `core.ignoreCase`. For every path,
cagr's attributes must equal `git check-attr -a`'s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cagr_git.attributes import AttributeRules
from cagr_git.gitconfig import read_git_config
from tests.support.git import commit, git, write

_TOKENS = ["a", "b", "A", "x.c", "*", "**", "?", "[ab]", "*.c", "\\*", "a b"]
_STATES = ["text", "-text", "!text", "text=auto", "eol=lf", "eol=crlf", "binary", "-binary"]
_STATES += ["gen", "-gen", "ident", "filter=f", "crlf", "-crlf", "crlf=input", "x=y", "b@d"]
_MACROS = ["[attr]gen text eol=lf", "[attr]gen2 gen -diff", "[attr]binary text", "[attr] gen x"]
_FOLDERS = ["", "a/", "a/b/", "A/"]
_PATHS = ["a", "x.c", "a/x.c", "a/b/x.c", "a/b/a", "A/x.c", "a b/x.c", "b/a/x.C", "*"]


@st.composite
def lines(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 6)) == 0:
        return draw(st.sampled_from([*_MACROS, "# comment", "", "!a text", "a b=c d"]))
    parts = draw(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=3))
    glue = draw(st.lists(st.sampled_from(["", "/"]), min_size=len(parts), max_size=len(parts)))
    pattern = draw(st.sampled_from(["", "/"])) + "".join(
        g + p for g, p in zip(glue, parts, strict=True)
    )
    if " " in pattern or draw(st.integers(0, 5)) == 0:
        pattern = '"' + pattern.replace("\\", "\\\\") + '"'
    states = draw(st.lists(st.sampled_from(_STATES), max_size=3))
    return " ".join([pattern, *states])


files = st.lists(lines(), min_size=1, max_size=5).map(lambda ls: "\n".join(ls) + "\n")


@st.composite
def layouts(draw: st.DrawFn) -> dict:
    return {
        "folders": draw(st.dictionaries(st.sampled_from(_FOLDERS), files, max_size=3)),
        "committed_then_deleted": draw(
            st.dictionaries(st.sampled_from(_FOLDERS[1:]), files, max_size=1)
        ),
        "info": draw(st.none() | files),
        "user": draw(st.none() | files),
        "fold": draw(st.booleans()),
        "bom": draw(st.booleans()),
    }


def _check_attr(root: Path) -> dict[str, dict[bytes, object]]:
    out = git(root, "check-attr", "-a", "-z", "--", *_PATHS).split(b"\0")
    found: dict[str, dict[bytes, object]] = {path: {} for path in _PATHS}
    for index in range(0, len(out) - 2, 3):
        path, name, value = out[index].decode(), out[index + 1], out[index + 2]
        found[path][name] = True if value == b"set" else False if value == b"unset" else value
    return found


def _index_blob(root: Path, path: bytes) -> bytes | None:
    result = subprocess.run(
        ["git", "-C", str(root), "cat-file", "blob", ":" + os.fsdecode(path)],
        capture_output=True,
        check=False,
    )
    return result.stdout if result.returncode == 0 else None


@pytest.fixture(scope="module")
def scratch() -> Path:
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


class TestAttributesAgainstGit:
    """Whatever the attributes files say, cagr gives each path the attributes git gives it."""

    @settings(
        max_examples=int(os.environ.get("CAGR_ORACLE_EXAMPLES", "60")),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(layouts())
    def test_attributes_equal_git(self, scratch: Path, layout: dict) -> None:
        root = Path(tempfile.mkdtemp(dir=scratch))
        try:
            git(root, "init", "-q", "-b", "main")
            for folder, content in layout["committed_then_deleted"].items():
                write(root, folder + ".gitattributes", content)
            commit(root, "base")
            for folder in layout["committed_then_deleted"]:
                os.unlink(root / (folder + ".gitattributes"))
            bom = b"\xef\xbb\xbf" if layout["bom"] else b""
            for folder, content in layout["folders"].items():
                write(root, folder + ".gitattributes", bom + content.encode())
            if layout["info"] is not None:
                write(root, ".git/info/attributes", layout["info"])
            if layout["user"] is not None:
                write(root, ".git/user-attributes", layout["user"])
                git(root, "config", "core.attributesFile", ".git/user-attributes")
            if layout["fold"]:
                git(root, "config", "core.ignoreCase", "true")
            gitdir = str(root / ".git")
            config = read_git_config(gitdir, gitdir, "main", os.environ)
            rules = AttributeRules(
                str(root),
                gitdir,
                config,
                os.environ,
                index_blob=lambda path: _index_blob(root, path),
                sparse_cone=False,
            )
            expected = _check_attr(root)
            for path in _PATHS:
                found = rules.attributes(path.encode())
                assert {k: v for k, v in found.items() if v is not None} == expected[path], path
        finally:
            shutil.rmtree(root, ignore_errors=True)
