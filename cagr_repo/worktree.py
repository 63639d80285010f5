"""The working-tree snapshot W: net tracked content plus non-ignored untracked files.

Read-only by construction: the index is parsed from its bytes (never refreshed or written), files
are lstat'ed and, where the index's stat data cannot vouch for them, hashed as git would hash them.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Iterator

from dulwich.ignore import IgnoreFilterManager
from dulwich.repo import Repo

from .attributes import Attributes
from .index import Entry as IndexEntry
from .trees import GITLINK, Entry

_CHUNK = 1 << 20


class Unreadable(Exception):
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


class WorkTree:
    """Reads one work tree's files the way git would see them."""

    def __init__(self, repo: Repo, attributes: Attributes, filemode: bool) -> None:
        self.repo = repo
        self.root = os.fsencode(repo.path)
        self.attributes = attributes
        self.filemode = filemode
        self.hashed: dict[bytes, tuple[int, int, int]] = {}
        self.folders_for_files: list[bytes] = []  # tracked files that are folders on disk

    def _abs(self, path: bytes) -> bytes:
        return self.root + b"/" + path

    def hash_path(self, path: bytes, st: os.stat_result, mode: int) -> Entry:
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
            problem = self.attributes.problem(path, b"\r\n" if found_crlf else b"")
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

    def tracked(
        self, entries: Iterable[IndexEntry], index_mtime_ns: int
    ) -> Iterator[tuple[IndexEntry, Entry | Unreadable | None]]:
        """For each tracked path, what W has there: its entry, None (nothing, or a folder), or
        Unreadable when its content cannot be known exactly.

        The index's stat data vouches for a file only when every field matches and the entry is
        not racily clean (written in the same instant as the index); otherwise it is hashed.
        """
        lstat = os.lstat
        root = self.root + b"/"
        is_link = stat.S_ISLNK
        is_reg = stat.S_ISREG
        filemode = self.filemode
        for entry in entries:
            if entry.trust_index:
                yield entry, (entry.mode, entry.sha)
                continue
            try:
                st = lstat(root + entry.path)
            except (FileNotFoundError, NotADirectoryError):
                yield entry, None
                continue
            st_mode = st.st_mode
            if is_reg(st_mode):
                if filemode:
                    mode = 0o100755 if st_mode & 0o100 else 0o100644
                else:
                    mode = entry.mode if entry.mode in (0o100644, 0o100755) else 0o100644
            elif is_link(st_mode):
                mode = 0o120000
            elif entry.mode == GITLINK and stat.S_ISDIR(st_mode):
                head = self.submodule_head(entry.path)
                yield entry, ((GITLINK, head) if head is not None else (entry.mode, entry.sha))
                continue
            else:
                if stat.S_ISDIR(st_mode):
                    self.folders_for_files.append(entry.path)  # its files are untracked
                yield entry, None  # a folder (or something git does not track) replaced it
                continue
            if (
                mode == entry.mode
                and st.st_mtime_ns == entry.mtime_ns
                and st.st_ctime_ns == entry.ctime_ns
                and st.st_size & 0xFFFFFFFF == entry.size
                and st.st_ino & 0xFFFFFFFF == entry.ino
                and entry.mtime_ns < index_mtime_ns  # else racily clean: git would hash it too
                and not entry.intent_to_add
            ):
                yield entry, (mode, entry.sha)
            else:
                try:
                    yield entry, self.hash_path(entry.path, st, mode)
                except Unreadable as error:
                    yield entry, error

    def _file_entry(self, path: bytes, st: os.stat_result, index_mode: int | None) -> Entry | None:
        mode = _mode_of(st, self.filemode, index_mode)
        return None if mode is None else self.hash_path(path, st, mode)

    def untracked(
        self, tracked: Iterable[bytes], ignores: IgnoreFilterManager
    ) -> Iterator[tuple[bytes, Entry]]:
        """Non-ignored files (and nested repositories) that the index does not track.

        Folders holding tracked files are listed and compared with the index as name sets;
        only names the index does not know are looked at one by one.
        """
        children: dict[bytes, set[bytes]] = {b"": set()}
        for path in tracked:
            directory, _, name = path.rpartition(b"/")
            while True:
                known = children.get(directory)
                if known is not None:
                    known.add(name)
                    break
                children[directory] = {name}
                directory, _, name = directory.rpartition(b"/")
        stack: list[tuple[bytes, bool]] = [(b"", True)]
        stack.extend(
            (path, False)
            for path in self.folders_for_files
            if not ignores.is_ignored(os.fsdecode(path) + "/")
        )
        while stack:
            directory, has_tracked = stack.pop()
            absolute = self._abs(directory) if directory else self.root
            try:
                names = os.listdir(absolute)
            except OSError:
                continue
            if has_tracked:
                known = children[directory]
                for name in known.intersection(names):
                    child = directory + b"/" + name if directory else name
                    if child in children:
                        stack.append((child, True))
                names = [n for n in names if n not in known]
            for name in names:
                if name == b".git":
                    continue
                path = directory + b"/" + name if directory else name
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
                    stack.append((path, False))
