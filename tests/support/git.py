"""Real git in temporary repositories, and git's own answer (the oracle) for a change set."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from cagr_core.changes import ChangeSet
from cagr_core.ruleset import RuleSet
from cagr_git.discover import find_checkout
from cagr_git.repository import open_repo
from cagr_repo.collect import collect_committed, collect_working_tree

EMPTY = "0" * 40
Row = tuple[str, str, str | None, str | None, str | None, str | None]  # path, status, modes, ids


def git(root: Path, *args: str, stdin: bytes | None = None, check: bool = True) -> bytes:
    result = subprocess.run(
        ["git", "-C", str(root), *args], input=stdin, capture_output=True, check=False
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"git {' '.join(args)} failed: {result.stderr.decode(errors='replace')}"
        )
    return result.stdout


def write(
    root: Path, path: str | bytes, content: str | bytes = "x", mode: int | None = None
) -> None:
    name = path if isinstance(path, bytes) else path.encode("utf-8", "surrogateescape")
    target = os.fsencode(root) + b"/" + name
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as handle:
        handle.write(content if isinstance(content, bytes) else content.encode())
    if mode is not None:
        os.chmod(target, mode)


def commit(root: Path, message: str = "commit") -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD").decode().strip()


def collect(
    root: Path, base: str = "main", committed: bool = False, head: str | None = None
) -> ChangeSet:
    """cagr's change set: base -> working tree, or base -> HEAD (or the commit `head`)."""
    with open_repo(find_checkout(str(root))) as repo:
        if committed:
            return collect_committed(repo, base, RuleSet.of(()), head=head)
        return collect_working_tree(repo, base, RuleSet.of(()))


def rows(changes: ChangeSet) -> list[Row]:
    """A change set as comparable rows: path, status, old/new mode (octal text) and ids."""
    out = []
    for c in changes.changes:
        out.append(
            (
                c.path,
                c.status.value,
                f"{c.old.mode:06o}" if c.old else None,
                f"{c.new.mode:06o}" if c.new else None,
                c.old.oid if c.old else None,
                c.new.oid if c.new else None,
            )
        )
    return out


def _decode(path: bytes) -> str:
    return path.decode("utf-8", "surrogateescape")


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _worktree_id(root: Path, path: bytes, mode: str) -> str:
    """What the working tree holds at an untracked path, hashed by git itself: a symlink's
    target, a file's content as git converts it on the way in (`git hash-object` applies the
    path's attributes; with no index entry, nothing else bears on it), a repository's HEAD."""
    absolute = os.fsencode(root) + b"/" + path
    if mode == "160000":
        return git(Path(os.fsdecode(absolute)), "rev-parse", "HEAD").decode().strip()
    if mode == "120000" and os.path.islink(absolute):
        data = os.readlink(absolute)
        return git(root, "hash-object", "--no-filters", "--stdin", stdin=data).decode().strip()
    return git(root, "hash-object", "--", os.fsdecode(path)).decode().strip()


def _tracked_worktree_id(root: Path, path: bytes, mode: str, base: str) -> str:
    """The id git gives a tracked path's working-tree content (`git diff --raw` shows zeros for
    it): the post-image of `git diff --full-index`, which git hashes as `git add` would (line
    endings against the index's version, `core.symlinks`, filters); when only the mode
    changed, the content is the base's."""
    if mode == "160000":
        return _worktree_id(root, path, mode)
    spec = ":(literal)" + path.decode("utf-8", "surrogateescape")
    patch = git(root, "diff", "--full-index", "--no-renames", "--no-color", base, "--", spec)
    lines = [line for line in patch.split(b"\n") if line.startswith(b"index ")]
    if not lines:
        return (
            git(root, "rev-parse", f"{base}:{path.decode('utf-8', 'surrogateescape')}")
            .decode()
            .strip()
        )
    return lines[-1].split(b"..")[1].split(b" ")[0].decode()


def _parse_raw(output: bytes) -> list[tuple[bytes, str, str, str, str, str]]:
    fields = output.split(b"\0")
    out = []
    for index in range(0, len(fields) - 1, 2):
        meta, path = fields[index], fields[index + 1]
        old_mode, new_mode, old_id, new_id, status = meta.lstrip(b":").decode().split(" ")
        out.append((path, status, old_mode, new_mode, old_id, new_id))
    return out


def pending_oracle(root: Path) -> tuple[str, ...]:
    """git's staged paths whose working-tree content differs from the staged one: those both
    `git diff --cached` (index against HEAD) and `git diff` (working tree against index) list."""

    def listed(*args: str) -> set[str]:
        out = git(root, "diff", "--name-only", "-z", "--ignore-submodules=dirty", *args)
        return {name.decode("utf-8", "surrogateescape") for name in out.split(b"\0") if name}

    return tuple(sorted(listed("--cached") & listed()))


def oracle(root: Path, base: str, head: str | None = None) -> list[Row]:
    """git's answer: `git diff --raw --no-renames -z B [H]`, plus, for the working tree,
    `git ls-files -o --exclude-standard -z` (untracked files are part of W)."""
    args = ["diff", "--raw", "--no-abbrev", "--no-renames", "-z", "--ignore-submodules=dirty", base]
    found: dict[bytes, list[str | None]] = {}
    for path, status, old_mode, new_mode, old_id, new_id in _parse_raw(
        git(root, *args, *([head] if head else []))
    ):
        present = status != "D"
        stat_dirty = present and new_id == EMPTY
        current = _tracked_worktree_id(root, path, new_mode, base) if stat_dirty else new_id
        found[path] = [
            old_mode if status != "A" else None,
            new_mode if present else None,
            old_id if status != "A" else None,
            current if present else None,
        ]
    if head is None:
        tree = {
            p: (m, i)
            for m, i, p in (
                (
                    line.split(b" ")[0].decode(),
                    line.split(b" ")[2].split(b"\t")[0].decode(),
                    line.split(b"\t", 1)[1],
                )
                for line in git(root, "ls-tree", "-r", "-z", base).split(b"\0")
                if line
            )
        }
        filemode = git(root, "config", "--type=bool", "--default=true", "core.fileMode")
        for name in git(root, "ls-files", "-o", "--exclude-standard", "-z").split(b"\0"):
            if not name:
                continue
            path = name.rstrip(b"/")  # a nested repository is listed as `dir/`
            absolute = os.fsencode(root) + b"/" + path
            if name.endswith(b"/"):
                mode = "160000"
            elif os.path.islink(absolute):
                mode = "120000"
            else:
                executable = os.stat(absolute).st_mode & 0o100 and filemode.strip() == b"true"
                mode = "100755" if executable else "100644"
            new = (mode, _worktree_id(root, path, mode))
            old = tree.get(path)
            if old == new:
                found.pop(path, None)  # untracked, but the same as the base: no change
            else:
                found[path] = [old[0] if old else None, mode, old[1] if old else None, new[1]]
    out: list[Row] = []
    for path in sorted(found):
        old_mode, new_mode, old_id, new_id = found[path]
        if old_mode is None:
            status = "A"
        elif new_mode is None:
            status = "D"
        else:
            files = ("100644", "100755")
            same_type = (old_mode in files and new_mode in files) or old_mode == new_mode
            status = "M" if same_type else "T"
        out.append((_decode(path), status, old_mode, new_mode, old_id, new_id))
    return out


GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
}
