"""cagr's change sets against git's own answer, on generated repository states.

The git CLI is the oracle: for the same state, cagr's working-tree set must equal
`git diff --raw --no-renames -z B` plus `git ls-files -o --exclude-standard -z`, and the committed
set must equal `git diff --raw --no-renames -z B H`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cagr_git import worktree
from tests.support.git import collect, commit, git, oracle, pending_oracle, rows, write

# Names git allows, with the awkward ones cagr must carry through untouched.
_ODD = [" ", "\t", "\n", "'", '"', "*", "?", "[", "]", "{", "}", "!", "\\", "é", "\udcff"]
_NAME_CHARS = st.sampled_from([*"abcXYZ09_-.", *_ODD])
names = st.text(_NAME_CHARS, min_size=1, max_size=6).filter(
    lambda n: n not in (".", "..") and not n.startswith(".git") and "/" not in n
)
folders = st.sampled_from(["", "d", "d/e", "sp ace"])
paths = st.builds(lambda f, n: f"{f}/{n}" if f else n, folders, names)
contents = st.sampled_from(["one\n", "two\n", "three", "", "a\r\nb\r\n", "one\r\n", "x\r\ny\n"])
# What git calls binary (a NUL, a lone CR): under text=auto its raw hash is exact even with CRLF.
binary_contents = st.sampled_from(["a\0b\r\nc", "\0\r\n", "x\ry\r\n"])
kinds = st.sampled_from(["file", "exec", "link"])


def _place(root: Path, path: str, content: str, kind: str) -> None:
    absolute = os.fsencode(root) + b"/" + path.encode("utf-8", "surrogateescape")
    if os.path.lexists(absolute) and not os.path.isdir(absolute):
        os.unlink(absolute)
    if kind == "link":
        os.makedirs(os.path.dirname(absolute), exist_ok=True)
        os.symlink(content.encode().replace(b"\0", b"0") or b"target", absolute)
    else:
        write(root, path, content, 0o755 if kind == "exec" else 0o644)


operations = st.one_of(
    st.tuples(st.just("put"), paths, contents | binary_contents, kinds),
    st.tuples(st.just("delete"), paths),
    st.tuples(st.just("chmod"), paths),
    st.tuples(st.just("rewrite"), paths),
    st.tuples(st.just("stage"), paths),
    st.tuples(st.just("unstage"), paths),
    st.tuples(st.just("intend"), paths),  # `git add -N`: in the index, not in its trees
    st.tuples(st.just("ignored"), names),
    # A folder replaced by a file, by a link to a folder (moved beside it) or by a dangling link,
    # and a file replaced by a folder.
    st.tuples(st.just("folder_to_file"), folders, contents),
    st.tuples(st.just("folder_to_link"), folders, st.sampled_from(["moved", "dangling"])),
    st.tuples(st.just("file_to_folder"), paths, names),
    # `folder/*` ignored with `!folder/name` re-included beneath it.
    st.tuples(st.just("reinclude"), folders, names),
    # The same text with CRLF line endings (git may store it unchanged), and skip-worktree.
    st.tuples(st.just("crlf"), paths),
    st.tuples(st.just("skip"), paths),
)


def _apply(root: Path, operation: tuple) -> None:  # noqa: PLR0915  # a branch per operation
    kind, path = operation[0], operation[1]
    absolute = os.fsencode(root) + b"/" + path.encode("utf-8", "surrogateescape")
    try:
        if kind == "put":
            _place(root, path, operation[2], operation[3])
        elif kind == "delete" and os.path.lexists(absolute):
            if os.path.isdir(absolute) and not os.path.islink(absolute):
                shutil.rmtree(absolute)
            else:
                os.unlink(absolute)
        elif kind == "chmod" and os.path.isfile(absolute) and not os.path.islink(absolute):
            os.chmod(absolute, os.stat(absolute).st_mode ^ 0o111)
        elif kind == "rewrite" and os.path.isfile(absolute) and not os.path.islink(absolute):
            with open(absolute, "rb") as handle:
                data = handle.read()
            with open(absolute, "wb") as handle:  # same bytes: a new mtime, no change
                handle.write(data)
        elif kind == "stage":
            git(root, "add", "--", os.fsdecode(absolute), check=False)
        elif kind == "intend":
            if not os.path.lexists(absolute):
                write(root, path, "intended\n")
            git(root, "add", "-N", "--", os.fsdecode(absolute), check=False)
        elif kind == "unstage":
            git(root, "rm", "-q", "--cached", "-r", "--", os.fsdecode(absolute), check=False)
        elif kind == "ignored":
            write(root, f"{path}.ign", "ignored")
            write(root, f"{path}.ex", "excluded by info/exclude")
        elif kind == "crlf" and os.path.isfile(absolute) and not os.path.islink(absolute):
            with open(absolute, "rb") as handle:
                data = handle.read().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
            with open(absolute, "wb") as handle:
                handle.write(data)
        elif kind == "skip":
            git(root, "update-index", "--skip-worktree", "--", os.fsdecode(absolute), check=False)
        elif path and kind == "folder_to_file" and _real_folder(absolute):
            shutil.rmtree(absolute)
            write(root, path, operation[2])
        elif path and kind == "folder_to_link" and _real_folder(absolute):
            if operation[2] == "moved":
                os.rename(absolute, absolute + b"2")
                os.symlink(os.path.basename(absolute) + b"2", absolute)
            else:
                shutil.rmtree(absolute)
                os.symlink(b"nowhere", absolute)
        elif kind == "file_to_folder" and os.path.isfile(absolute) and not os.path.islink(absolute):
            os.unlink(absolute)
            write(root, f"{path}/{operation[2]}", "inside\n")
        elif kind == "reinclude":
            prefix = f"{path}/" if path else ""
            with open(os.fsencode(root) + b"/.gitignore", "ab") as handle:
                handle.write(
                    _ignore_line(f"{prefix}*") + b"!" + _ignore_line(prefix + operation[2])
                )
            write(root, f"{prefix}{operation[2]}", "kept\n")
            write(root, f"{prefix}other.txt", "ignored\n")
    except (FileExistsError, NotADirectoryError, IsADirectoryError, FileNotFoundError):
        pass  # the generated operation does not fit this tree (a file where a folder is)


def _real_folder(absolute: bytes) -> bool:
    return os.path.isdir(absolute) and not os.path.islink(absolute)


def _ignore_line(pattern: str) -> bytes:
    """A .gitignore line matching `pattern` literally (glob characters and odd names escaped)."""
    escaped = "".join(f"\\{c}" if c in "*?[]\\!# " and c != "*" else c for c in pattern)
    if pattern.endswith("*"):
        escaped = escaped[:-1] + "*"
    return escaped.encode("utf-8", "surrogateescape") + b"\n"


# What the working tree is read with: attributes, line-ending settings, core.symlinks=false,
# an ignore file that starts with a byte order mark, a linked worktree (whose info/exclude is
# the common one), a cone-mode sparse checkout.
_ATTRIBUTES = [
    "* text=auto eol=lf\n",
    "* text=auto\n",
    "* text\n*.dat binary\n",
    "[attr]gen text eol=crlf\n* gen\n",
    '"d/*" text\n* -text\n',
    "* eol=lf\n",
]
setups = st.fixed_dictionaries(
    {
        "attributes": st.none() | st.sampled_from(_ATTRIBUTES),
        "autocrlf": st.sampled_from([None, "true", "input", "false"]),
        "eol": st.sampled_from([None, "lf", "crlf"]),
        "symlinks": st.booleans(),
        "bom": st.booleans(),
        "linked": st.booleans(),
        "sparse": st.sampled_from([None, "d", "sp ace"]),
    }
)


@st.composite
def histories(draw: st.DrawFn) -> tuple[list, list, list, dict]:
    base = draw(st.lists(st.tuples(st.just("put"), paths, contents, kinds), min_size=1, max_size=6))
    branch = draw(st.lists(operations, max_size=5))
    work = draw(st.lists(operations, max_size=8))
    return base, branch, work, draw(setups)


def _build(root: Path, base: list, branch: list, work: list, setup: dict) -> Path:
    """The generated history in `root`; returns the work tree the last operations ran in."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, ".gitignore", (b"\xef\xbb\xbf" if setup["bom"] else b"") + b"*.ign\n")
    write(root, ".git/info/exclude", "*.ex\n")
    if setup["attributes"]:
        write(root, ".gitattributes", setup["attributes"])
    for operation in base:
        _apply(root, operation)
    commit(root, "base")
    git(root, "checkout", "-q", "-b", "work")
    for operation in branch:
        _apply(root, operation)
    commit(root, "branch")
    for key, name in (("autocrlf", "core.autocrlf"), ("eol", "core.eol")):
        if setup[key]:
            git(root, "config", name, setup[key])
    tree = root
    if setup["linked"]:
        tree = root.parent / (root.name + "-linked")
        git(root, "worktree", "add", "-q", "-b", "linked", str(tree))
    if not setup["symlinks"]:  # symlinks are checked out as plain files holding the target
        git(tree, "config", "core.symlinks", "false")
        for line in git(tree, "ls-files", "-s", "-z").split(b"\0"):
            link = os.fsencode(tree) + b"/" + line.partition(b"\t")[2]
            if line.startswith(b"120000 ") and os.path.islink(link):
                os.unlink(link)
                git(tree, "checkout", "-q", "--", os.fsdecode(link), check=False)
    if setup["sparse"]:
        git(tree, "sparse-checkout", "set", "--cone", "--skip-checks", setup["sparse"])
    for operation in work:
        _apply(tree, operation)
    return tree


@pytest.fixture(scope="module")
def scratch() -> Path:
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


class TestAgainstGit:
    """Generated trees, edits, deletes, chmods, symlinks, type changes, staging, untracked and
    ignored files, with spaces, tabs, newlines, quotes, glob characters and undecodable bytes;
    folders replaced by files or links (to a folder, or dangling) and files by folders; `dir/*`
    ignored with a file re-included beneath it; CRLF content under attributes (text, eol,
    macros, quoted patterns) and core.autocrlf/core.eol; core.symlinks=false; an ignore file with
    a byte order mark; linked worktrees sharing info/exclude; sparse checkouts with files written
    back outside the cone, and skip-worktree entries. Pending staged paths are those git lists
    both as staged and as unstaged."""

    @settings(
        max_examples=int(os.environ.get("CAGR_ORACLE_EXAMPLES", "40")),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(histories())
    def test_working_tree_and_committed_sets_equal_git(self, scratch: Path, history: tuple) -> None:
        root = Path(tempfile.mkdtemp(dir=scratch))
        try:
            tree = _build(root / "repo", *history)
            base = git(tree, "merge-base", "main", "HEAD").decode().strip()
            head = git(tree, "rev-parse", "HEAD").decode().strip()
            working = collect(tree)
            with mock.patch.object(worktree, "PARALLEL_FROM", 1):  # the stat check forked
                assert collect(tree) == working
            committed = collect(tree, committed=True)
            assert working.unchecked == ()
            assert committed.unchecked == ()
            assert rows(committed) == oracle(tree, base, head)
            assert rows(working) == oracle(tree, base)
            assert working.pending_staged == pending_oracle(tree)
        finally:
            shutil.rmtree(root, ignore_errors=True)
