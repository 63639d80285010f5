"""cagr_git only reads, and a whole check writes nothing outside `<gitdir>/cagr/`.

Two ways: the source of cagr_git holds no call that can write, and Python's audit events, seen
while real checks run (working tree, committed with its gate record, doctor), name no write
anywhere but cagr's own state folder.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cagr_cli.main import main
from tests.support.configs import TWO_RULES
from tests.support.git import commit, git, write

ROOT = Path(__file__).resolve().parents[2]
# Calls that change a file system: os and shutil functions, file and path methods, cagr's own.
WRITING_MODULE_CALLS = {
    "replace", "rename", "renames", "remove", "unlink", "rmdir", "removedirs", "rmtree", "mkdir",
    "makedirs", "chmod", "chown", "utime", "truncate", "ftruncate", "symlink", "link", "mkfifo",
    "mknod", "write", "copy", "copyfile", "copy2", "copytree", "move",
}  # fmt: skip
WRITING_METHODS = {
    "write", "writelines", "write_text", "write_bytes", "unlink", "mkdir", "touch", "rmdir",
    "symlink_to", "hardlink_to", "truncate",
}  # fmt: skip
WRITING_FUNCTIONS = {"write_atomically", "write_output", "append_output", "save"}
WRITING_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}


def test_git_reading_has_no_call_that_writes() -> None:
    for module in sorted((ROOT / "cagr_git").rglob("*.py")):
        tree = ast.parse(module.read_text(), str(module))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                where = f"{module.name}:{node.lineno}"
                if isinstance(func, ast.Attribute):
                    owner = func.value.id if isinstance(func.value, ast.Name) else ""
                    writing = WRITING_MODULE_CALLS if owner in {"os", "shutil"} else WRITING_METHODS
                    assert func.attr not in writing, f"{where} calls {owner}.{func.attr}"
                name = getattr(func, "id", "")
                assert name not in WRITING_FUNCTIONS, f"{where} calls {name}"
                if name == "open" and len(node.args) > 1:
                    mode = node.args[1]
                    assert isinstance(mode, ast.Constant), f"{module.name}:{node.lineno}"
                    assert set(str(mode.value)) <= {"r", "b"}, f"{module.name}:{node.lineno}"
            if isinstance(node, ast.Attribute):
                assert node.attr not in WRITING_FLAGS, f"{module.name}:{node.lineno} {node.attr}"


_WRITES: list[tuple[str, str]] | None = None  # recording while not None
_WRITING_EVENTS = {
    "os.rename", "os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.truncate", "os.symlink",
    "os.link", "os.utime", "shutil.rmtree",
}  # fmt: skip


def _audit(event: str, args: tuple[object, ...]) -> None:
    if _WRITES is None:
        return
    if event == "open" and len(args) >= 3:
        path, mode, flags = args[0], args[1], args[2]
        writing = (isinstance(mode, str) and set(mode) & set("wax+")) or (
            isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)
        )
        if writing and isinstance(path, str | bytes):
            _WRITES.append((event, os.fsdecode(path)))
    elif event in _WRITING_EVENTS and args and isinstance(args[0], str | bytes):
        _WRITES.append((event, os.fsdecode(args[0])))


sys.addaudithook(_audit)


@pytest.fixture
def writes() -> Iterator[list[tuple[str, str]]]:
    global _WRITES  # noqa: PLW0603  # an audit hook cannot be removed, only told to stop
    _WRITES = []
    try:
        yield _WRITES
    finally:
        _WRITES = None


def test_checks_write_only_their_own_state(
    repo: Path, writes: list[tuple[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    write(repo, "cagr.toml", TWO_RULES)
    write(repo, "src/schema.py", "v1")
    write(repo, "schema.json", "{}")
    write(repo, ".gitattributes", "*.py text eol=lf\n")
    write(repo, ".gitignore", "build/\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    write(repo, "src/schema.py", "v2\r\n")
    commit(repo, "edit")
    write(repo, "src/new.py", "x")
    writes.clear()  # what the set-up wrote
    for args in (
        ["rules", "check"],
        ["rules", "check", "--committed"],
        ["changes"],
        ["changes", "--committed"],
        ["doctor"],
    ):
        main(["--repo", str(repo), *args])
    capsys.readouterr()
    state = str(repo / ".git" / "cagr")
    assert writes, "the committed check writes its gate record: the audit must see it"
    elsewhere = [
        (event, path)
        for event, path in writes
        if path != state and not path.startswith(state + os.sep)
    ]
    assert elsewhere == []
