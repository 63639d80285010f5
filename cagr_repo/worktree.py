"""The working-tree snapshot W: net tracked content plus non-ignored untracked files.

Read-only by construction: the index is parsed from its bytes (never refreshed or written), files
are lstat'ed and, where the index's stat data cannot vouch for them, hashed as git would hash them.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Iterator

from attrs import define, field
from dulwich.ignore import IgnoreFilterManager
from dulwich.repo import Repo

from cagr_core.errors import CagrError

from .attributes import Attributes
from .index import IndexEntry
from .trees import GITLINK, TreeEntry

_CHUNK = 1 << 20


class Unreadable(CagrError):
    """A path whose content cannot be known exactly (filters, races, permissions)."""

    def __init__(self, path: bytes, why: str) -> None:
        self.path = path
        self.why = why
        super().__init__(f"{path!r}: {why}")


def blob_id(data: bytes) -> bytes:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).digest()


def _mode_of(st: os.stat_result, filemode: bool, index_mode: int | None) -> int | None:
    if stat.S_ISLNK(st.st_mode):
        return 0o120000
    if stat.S_ISREG(st.st_mode):
        if not filemode and index_mode in (0o100644, 0o100755):
            return index_mode
        return 0o100755 if st.st_mode & stat.S_IXUSR else 0o100644
    return None


@define
class Scan:
    """The tracked paths' outcome: raw changes against the base, paths whose staged content
    differs from both ends, and paths that could not be read exactly."""

    changes: list[tuple[bytes, TreeEntry | None, TreeEntry | None]] = field(factory=list)
    pending: list[bytes] = field(factory=list)
    unreadable: list[Unreadable] = field(factory=list)


class WorkTree:
    """Reads one work tree's files the way git would see them."""

    def __init__(self, repo: Repo, attributes: Attributes, filemode: bool) -> None:
        self.root = os.fsencode(repo.path)
        self.attributes = attributes
        self.filemode = filemode
        self.hashed: dict[bytes, tuple[int, int, int]] = {}
        self.folders_for_files: list[bytes] = []  # tracked files that are folders on disk

    def unchanged(self) -> bool:
        """Whether every file hashed so far still has the size, mtime and inode it was read with."""
        for path, key in self.hashed.items():
            try:
                st = os.lstat(self._abs(path))
            except OSError:
                return False
            if (st.st_size, st.st_mtime_ns, st.st_ino) != key:
                return False
        return True

    def _abs(self, path: bytes) -> bytes:
        return self.root + b"/" + path

    def hash_path(self, path: bytes, st: os.stat_result, mode: int) -> TreeEntry:
        """The entry git would record for this file or symlink right now."""
        absolute = self._abs(path)
        self.hashed[path] = (st.st_size, st.st_mtime_ns, st.st_ino)
        if mode == 0o120000:
            return mode, blob_id(os.readlink(absolute))
        digest = hashlib.sha1(b"blob %d\0" % st.st_size, usedforsecurity=False)
        size = 0
        check = self.attributes.active
        tail = b""
        found_crlf = False
        try:
            with open(absolute, "rb") as handle:
                while chunk := handle.read(_CHUNK):
                    digest.update(chunk)
                    size += len(chunk)
                    if check and not found_crlf:
                        found_crlf = b"\r\n" in tail + chunk[:1] or b"\r\n" in chunk
                        tail = chunk[-1:]
        except OSError as error:
            raise Unreadable(path, f"cannot be read ({error.strerror})") from error
        if size != st.st_size:
            raise Unreadable(path, "changed while cagr was reading it")
        if check:
            problem = self.attributes.problem(path, has_crlf=found_crlf)
            if problem is not None:
                raise Unreadable(path, problem)
        return mode, digest.digest()

    def submodule_head(self, path: bytes) -> bytes | None:
        """The commit a submodule (or nested repository) has checked out; None if none."""
        try:
            with Repo(os.fsdecode(self._abs(path))) as sub:
                return bytes.fromhex(sub.head().decode("ascii"))
        except Exception:  # any failure means: no checked-out commit to compare
            return None

    def scan(
        self, entries: Iterable[IndexEntry], base: dict[bytes, TreeEntry], index_mtime_ns: int
    ) -> Scan:
        """Every tracked path: what W has there, compared with the base and with the index.

        The index's stat data vouches for a file only when every field matches and the entry is
        not racily clean (written in the same instant as the index); otherwise it is hashed.
        This loop runs once per tracked file, so the common case is kept inline and cheap.
        """
        result = Scan()
        lstat = os.lstat
        root = self.root + b"/"
        get = base.get
        exec_bit = 0o100 if self.filemode else 0
        is_regular = stat.S_ISREG
        for entry in entries:
            path, _, mode, sha, size, mtime_ns, ctime_ns, ino, trust, intent_to_add = entry
            if trust:
                clean = True
            else:
                try:
                    st: os.stat_result | None = lstat(root + path)
                except (FileNotFoundError, NotADirectoryError):
                    st = None
                clean = (
                    st is not None
                    and st.st_mtime_ns == mtime_ns
                    and st.st_ctime_ns == ctime_ns
                    and st.st_size & 0xFFFFFFFF == size
                    and st.st_ino & 0xFFFFFFFF == ino
                    and is_regular(st.st_mode)
                    and mode == (0o100755 if st.st_mode & exec_bit else 0o100644)
                    and mtime_ns < index_mtime_ns  # else racily clean: git would hash it too
                    and not intent_to_add
                )
            old = get(path)
            if clean and old is not None and old[1] == sha and old[0] == mode:
                continue  # unchanged since the base, and W is what the index says
            staged = (mode, sha)
            if clean:
                now: TreeEntry | None = staged
            else:
                try:
                    now = self._tracked_slowly(entry, st)
                except Unreadable as error:
                    result.unreadable.append(error)
                    continue
            if now != old:
                result.changes.append((path, old, now))
            if staged not in (now, old) and not intent_to_add:
                result.pending.append(path)
        return result

    def _tracked_slowly(self, entry: IndexEntry, st: os.stat_result | None) -> TreeEntry | None:
        """What W has at a tracked path the index cannot vouch for (None: nothing is there)."""
        if st is None:
            return None
        if entry.mode == GITLINK and stat.S_ISDIR(st.st_mode):
            head = self.submodule_head(entry.path)
            return (GITLINK, head) if head is not None else (entry.mode, entry.sha)
        mode = _mode_of(st, self.filemode, entry.mode)
        if mode is None:
            if stat.S_ISDIR(st.st_mode):
                self.folders_for_files.append(entry.path)  # its files are untracked
            return None  # a folder (or something git does not track) replaced the file
        return self.hash_path(entry.path, st, mode)

    def _file_entry(
        self, path: bytes, st: os.stat_result, index_mode: int | None
    ) -> TreeEntry | None:
        mode = _mode_of(st, self.filemode, index_mode)
        return None if mode is None else self.hash_path(path, st, mode)

    def untracked(
        self, tracked: set[bytes], ignores: IgnoreFilterManager
    ) -> Iterator[tuple[bytes, TreeEntry]]:
        """Non-ignored files (and nested repositories) that the index does not track.

        Only names the index does not know are looked at one by one (lstat, ignore rules).
        """
        tracked_dirs = {b""}
        for folder in {path.rpartition(b"/")[0] for path in tracked}:
            parent = folder
            while parent not in tracked_dirs:
                tracked_dirs.add(parent)
                parent = parent.rpartition(b"/")[0]
        stack = [b""]
        stack.extend(
            path
            for path in self.folders_for_files
            if not ignores.is_ignored(os.fsdecode(path) + "/")
        )
        while stack:
            directory = stack.pop()
            prefix = directory + b"/" if directory else b""
            try:
                names = os.listdir(self.root + b"/" + prefix if prefix else self.root)
            except OSError:
                continue
            for name in names:
                path = prefix + name
                if path in tracked or name == b".git":
                    continue
                if path in tracked_dirs:
                    stack.append(path)
                    continue
                try:
                    st = os.lstat(self._abs(path))
                except OSError:
                    continue
                is_dir = stat.S_ISDIR(st.st_mode)
                if ignores.is_ignored(os.fsdecode(path) + ("/" if is_dir else "")):
                    continue
                if not is_dir:
                    entry = self._file_entry(path, st, None)
                    if entry is not None:
                        yield path, entry
                elif os.path.lexists(self._abs(path) + b"/.git"):
                    head = self.submodule_head(path)
                    if head is None:
                        raise Unreadable(path, "is a nested repository with no commit checked out")
                    yield path, (GITLINK, head)
                else:
                    stack.append(path)
