"""The stat check run in a forked child: the same positions as in this process, and when the
child fails or writes what cannot be read back, the answer comes from this process instead."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from cagr_git import index, worktree
from cagr_git.index import index_file, load_index
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


def _check(root: Path) -> StatCheck:
    """The check as a status starts it: the child parses the index file itself."""
    file = index_file(str(root / ".git"))
    assert file is not None
    mtime = file.parse()[1]
    return StatCheck(lambda: (file.parse()[0].entries, mtime), file.count, str(root), True)


def test_a_whole_answer_is_read_back(
    tracked: tuple[Path, tuple, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, entries, mtime = tracked
    expected = _serial(root, entries, mtime)
    monkeypatch.setattr(worktree, "PARALLEL_FROM", 1)
    check = _check(root)
    assert check.result(entries, mtime) == expected
    check.close()  # twice: nothing more to reap
    assert check.answer is None


def test_the_child_finds_what_this_process_finds(
    tracked: tuple[Path, tuple, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, entries, mtime = tracked
    expected = _serial(root, entries, mtime)
    assert [entries[p].path for p in expected] == [b"d0/f0", b"d1/f1", b"d2/f2"]
    monkeypatch.setattr(worktree, "PARALLEL_FROM", 1)
    check = _check(root)
    assert check.pid
    assert check._collect(len(entries), mtime) == expected
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
    check = _check(root)
    assert check.pid
    assert check.result(entries, mtime) == expected
    assert check.status != 0


@pytest.mark.parametrize(
    ("at", "damage"),
    [
        (0, b"xxxx"),  # not the child's answer
        (4, (1 << 31).to_bytes(4, "little")),  # more positions than the mapping holds
        (8, (29).to_bytes(8, "little")),  # it read another number of entries
        (16, (1).to_bytes(8, "little")),  # another mtime
        (24, (99999).to_bytes(4, "little")),  # no such entry
    ],
)
def test_the_answer_is_used_only_when_whole(
    tracked: tuple[Path, tuple, int], monkeypatch: pytest.MonkeyPatch, at: int, damage: bytes
) -> None:
    root, entries, mtime = tracked
    expected = _serial(root, entries, mtime)
    monkeypatch.setattr(worktree, "PARALLEL_FROM", 1)
    check = _check(root)
    check._reap()
    assert check.status == 0
    assert check.answer is not None
    check.answer[at : at + len(damage)] = damage
    assert check._collect(len(entries), mtime) is None
    assert check.result(entries, mtime) == expected


def test_no_fork_below_the_threshold_or_with_other_threads(
    tracked: tuple[Path, tuple, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tracked[0]
    assert not _check(root).pid  # 30 entries: checked here
    monkeypatch.setattr(worktree, "PARALLEL_FROM", 1)
    import threading  # noqa: PLC0415

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not _check(root).pid
    finally:
        stop.set()
        thread.join()


def test_the_quick_read_finds_what_the_entries_show(tracked: tuple[Path, tuple, int]) -> None:
    root = tracked[0]
    write(root, "added", "new\n")
    git(root, "add", "-N", "added")  # extended flags: an intent to add
    git(root, "update-index", "--skip-worktree", "d0/f3")
    git(root, "update-index", "--assume-unchanged", "d1/f4")
    (root / "d0" / "f3").unlink()
    prefix = os.fsencode(root) + b"/"
    file = index_file(str(root / ".git"))
    assert file is not None
    entries, mtime = file.parse()[0].entries, file.parse()[1]
    found = index.unvouched_positions(file.data, prefix, 0o100, mtime)
    assert found == worktree._unvouched(entries, prefix, 0o100, mtime, every=True)
    assert {entries[p].path for p in found} >= {b"added", b"d0/f3", b"d0/f0"}
    for setting in ("--index-version=4", "--split-index"):
        git(root, "update-index", setting)
        file = index_file(str(root / ".git"))
        assert file is not None
        assert index.unvouched_positions(file.data, prefix, 0o100, mtime) is None


def test_the_hooks_deadline_worker_may_fork(
    tracked: tuple[Path, tuple, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn-end hook checks in a worker thread while its main thread only waits."""
    from cagr_hooks.worker import within  # noqa: PLC0415

    root, entries, mtime = tracked
    expected = _serial(root, entries, mtime)
    monkeypatch.setattr(worktree, "PARALLEL_FROM", 1)

    def checked() -> tuple[int, list[int]]:
        check = _check(root)
        return check.pid, check.result(entries, mtime)

    pid, found = within(time.monotonic() + 30, checked)
    assert pid
    assert found == expected
