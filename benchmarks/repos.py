"""Synthetic repositories for benchmarks, built with `git fast-import` in seconds."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", "-C", str(root), *args], input=stdin, capture_output=True, check=True, env=ENV
    ).stdout


def _path(index: int) -> str:
    return f"pkg{index % 97:02}/mod{index % 13:02}/file{index:06}.py"


def build(root: Path, files: int, commits: int, changes: int, seed: int = 0) -> None:
    """A repo with `files` files on main after `commits` commits, a branch `work` forked near the
    tip with half of `changes` committed, and the other half left in the working tree."""
    rng = random.Random(seed)
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    stream: list[bytes] = []
    mark = 0

    def blob(text: str) -> int:
        nonlocal mark
        mark += 1
        data = text.encode()
        stream.append(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
        return mark

    def commit(
        branch: str, message: str, edits: list[tuple[str, int | None]], parent: str | None
    ) -> int:
        nonlocal mark
        mark += 1
        this = mark
        stream.append(b"commit refs/heads/%s\nmark :%d\n" % (branch.encode(), mark))
        stream.append(b"committer bench <b@x> %d +0000\n" % (1_700_000_000 + mark))
        stream.append(b"data %d\n%s\n" % (len(message), message.encode()))
        if parent:
            stream.append(f"from {parent}\n".encode())
        for path, content_mark in edits:
            if content_mark is None:
                stream.append(f"D {path}\n".encode())
            else:
                stream.append(f"M 100644 :{content_mark} {path}\n".encode())
        stream.append(b"\n")
        return this

    initial = [(_path(i), blob(f"# file {i}\nvalue = {i}\n")) for i in range(files)]
    commit("main", "initial", initial, None)
    marks = []
    for number in range(1, commits):
        target = _path(rng.randrange(files))
        marks.append(
            commit("main", f"change {number}", [(target, blob(f"# edit {number}\n"))], None)
        )
    fork = marks[-2] if len(marks) > 1 else mark
    stream.append(b"reset refs/heads/work\nfrom :%d\n\n" % fork)
    half = changes // 2
    edits = [(_path(rng.randrange(files)), blob(f"# branch edit {k}\n")) for k in range(half)]
    commit("work", "branch work", edits, None)
    git(root, "fast-import", "--quiet", stdin=b"".join(stream))
    git(root, "checkout", "-q", "work")
    _dirty(root, rng, files, changes - half)


def _dirty(root: Path, rng: random.Random, files: int, count: int) -> None:
    """Leave `count` working-tree changes (edits, deletions, untracked files, chmods) and an
    ignored folder of 1,000 files that must not count."""
    for k in range(count):
        kind = k % 4
        if kind == 0:
            path = root / _path(rng.randrange(files))
            path.write_text(f"# working edit {k}\n")
        elif kind == 1:
            path = root / _path(rng.randrange(files))
            path.unlink(missing_ok=True)
        elif kind == 2:
            (root / f"new{k:05}.py").write_text(f"# untracked {k}\n")
        else:
            path = root / _path(rng.randrange(files))
            if path.exists():
                os.chmod(path, 0o755)
    (root / ".gitignore").write_text("ignored/\n*.log\n")
    (root / "ignored").mkdir()
    for k in range(1000):
        (root / "ignored" / f"junk{k}.bin").write_text("x")


def add_wide_commit(root: Path, files: int, changed: int, seed: int = 1) -> None:
    """One more commit on the checked-out branch, editing `changed` distinct tracked files of a
    repository `build` made, and check it out: a large committed range (HEAD~1..HEAD)."""
    rng = random.Random(seed)
    branch = git(root, "symbolic-ref", "--short", "HEAD").decode().strip()
    head = git(root, "rev-parse", "HEAD").decode().strip()
    stream = [b"commit refs/heads/%s\n" % branch.encode()]
    stream.append(
        b"committer bench <b@x> 1800000000 +0000\ndata 4\nwide\nfrom %s\n" % head.encode()
    )
    for number, index in enumerate(sorted(rng.sample(range(files), changed))):
        data = f"# wide edit {number}\n".encode()
        stream.append(
            b"M 100644 inline %s\ndata %d\n%s\n" % (_path(index).encode(), len(data), data)
        )
    stream.append(b"\n")
    git(root, "fast-import", "--quiet", "--force", stdin=b"".join(stream))
    git(root, "reset", "-q", "--hard", "HEAD")


def build_criss_cross(root: Path, commits: int, branches: int = 26, rounds: int = 20) -> None:
    """A linear `main` of `commits` commits, then `rounds` rounds in which each of `branches`
    branches merges its own and the next branch's previous tips (with a commit of its own
    between), and two octopus merges of every final tip, `refs/heads/t` and `refs/heads/h`:
    `git merge-base --all t h` lists `branches` merge bases, each with the whole history below."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    stream: list[bytes] = []
    mark = 0
    clock = 1_700_000_000

    def commit(branch: str, parents: list[int], path: str) -> int:
        nonlocal mark, clock
        mark += 1
        clock += 60
        stream.append(b"commit refs/heads/%s\nmark :%d\n" % (branch.encode(), mark))
        stream.append(b"committer bench <b@x> %d +0000\ndata 1\nc\n" % clock)
        if parents:
            stream.append(b"from :%d\n" % parents[0])
            stream.extend(b"merge :%d\n" % p for p in parents[1:])
        data = b"%d\n" % mark
        stream.append(b"M 100644 inline %s\ndata %d\n%s\n\n" % (path.encode(), len(data), data))
        return mark

    previous = [commit("main", [], "f0")]
    for number in range(1, commits):
        previous = [commit("main", previous, f"f{number % 1000}")]
    tips = previous * branches
    for _ in range(rounds):
        own = [commit(f"b{b}", [tips[b]], f"b{b}") for b in range(branches)]
        tips = [
            commit(f"b{b}", [own[b], tips[(b + 1) % branches]], f"b{b}") for b in range(branches)
        ]
    commit("t", tips, "t")
    commit("h", list(reversed(tips)), "h")
    git(root, "fast-import", "--quiet", stdin=b"".join(stream))
