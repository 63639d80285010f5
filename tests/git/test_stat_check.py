"""The stat check run in a forked child: the same positions as in this process, and when the
child fails or writes what cannot be read back, the answer comes from this process instead."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from cagr_git import worktree
from cagr_git.index import load_index
from cagr_git.worktree import StatCheck
from tests.support.git import commit, git, write


@pytest.fixture
def tracked(tmp_path: Path) -> tuple[Path, tuple, int]:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for number in range(30):
        write(root, f"d{number % 3}/f{number}", f"{number}\n")
    commit(root, "files")
    time.sleep(0.01)
    git(root, "update-index", "--refresh")  # no entry racily clean
    write(root, "d0/f0", "edited\n")
    (root / "d1" / "f1").unlink()
    os.chmod(root / "d2" / "f2", 0o755)
    index, mtime = load_index(str(root / ".git"))
    return root, index.entries, mtime


def _serial(root: Path, entries: tuple, mtime: int) -> list[int]:
    return worktree._unvouched(entries, os.fsencode(root) + b"/", 0o100, mtime)


def test_the_child_finds_what_this_process_finds(
    tracked: tuple[Path, tuple, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, entries, mtime = tracked
    expected = _serial(root, entries, mtime)
    assert [entries[p].path for p in expected] == [b"d0/f0", b"d1/f1", b"d2/f2"]
    monkeypatch.setattr(worktree, "PARALLEL_FROM", 1)
    check = StatCheck(entries, str(root), True, mtime)
    assert check.pid
    assert check._collect() == expected
    assert check.status == 0


def test_a_failing_child_leaves_the_answer_to_this_process(
    tracked: tuple[Path, tuple, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, entries, mtime = tracked
    expected = _serial(root, entries, mtime)
    parent = os.getpid()
    real = worktree._unvouched

    def fails_in_the_child(*args: object) -> list[int]:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(worktree, "_unvouched", fails_in_the_child)
    monkeypatch.setattr(worktree, "PARALLEL_FROM", 1)
    check = StatCheck(entries, str(root), True, mtime)
    assert check.pid
    assert check.result() == expected
    assert check.status != 0


@pytest.mark.parametrize(
    "written",
    [b"", b"1\n3\n", b"2\n3\nend\n", b"1\n99999\nend\n", b"1\nx\nend\n", b"0\n\nend\nmore"],
)
def test_what_the_child_wrote_is_read_back_only_when_whole(
    tracked: tuple[Path, tuple, int], monkeypatch: pytest.MonkeyPatch, written: bytes
) -> None:
    root, entries, mtime = tracked
    expected = _serial(root, entries, mtime)
    parent = os.getpid()
    real_write = os.write

    def writes_something_else(fd: int, data: bytes) -> int:
        if os.getpid() != parent:
            real_write(fd, written)
            return len(data)
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", writes_something_else)
    monkeypatch.setattr(worktree, "PARALLEL_FROM", 1)
    check = StatCheck(entries, str(root), True, mtime)
    assert check._collect() is None
    assert check.result() == expected


def test_no_fork_below_the_threshold_or_with_other_threads(
    tracked: tuple[Path, tuple, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, entries, mtime = tracked
    assert not StatCheck(entries, str(root), True, mtime).pid  # 30 entries: checked here
    monkeypatch.setattr(worktree, "PARALLEL_FROM", 1)
    import threading  # noqa: PLC0415

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not StatCheck(entries, str(root), True, mtime).pid
    finally:
        stop.set()
        thread.join()
