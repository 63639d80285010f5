"""The working-tree snapshot W: net tracked content plus non-ignored untracked files.

Read-only by construction: the index is parsed from its bytes (never refreshed or written), files
are lstat'ed and, where the index's stat data cannot vouch for them, hashed as git would hash them.
Symlinks are never followed: a tracked folder that is now a symlink (or a file) is an untracked
entry of that name, and what the index has beneath it is gone, as git sees it. What cannot be
read is reported per path (a folder that cannot be listed as `folder/`), never skipped.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Container, Iterable

from dulwich.ignore import IgnoreFilterManager

from cagr_core.errors import CagrError
from cagr_core.values import define, field

from .attributes import Attributes, looks_binary
from .discover import NotARepository, checkout_at, is_repository
from .index import IndexEntry
from .refs import read_ref
from .trees import GITLINK, IndexTree, TreeEntry, normal_mode

_CHUNK = 1 << 20


class Unreadable(CagrError):
    """A path whose content cannot be known exactly (filters, races, permissions); a path that
    ends in `/` is a folder whose contents cannot be known."""

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
    """The tracked paths' outcome: raw changes against the base, staged paths whose working
    tree content differs from the staged one, and paths that could not be read exactly."""

    changes: list[tuple[bytes, TreeEntry | None, TreeEntry | None]] = field(factory=list)
    pending: list[bytes] = field(factory=list)
    unreadable: list[Unreadable] = field(factory=list)


@define
class Walk:
    """The untracked part of W: files and nested repositories the index does not track, tracked
    folders that are no folder on disk any more, and what could not be listed or read."""

    untracked: dict[bytes, TreeEntry] = field(factory=dict)
    replaced: set[bytes] = field(factory=set)
    unreadable: list[Unreadable] = field(factory=list)


def _beneath(path: bytes, folders: set[bytes]) -> bool:
    """Whether one of `path`'s leading folders is in `folders`."""
    index = path.find(b"/")
    while index != -1:
        if path[:index] in folders:
            return True
        index = path.find(b"/", index + 1)
    return False


class WorkTree:
    """Reads one work tree's files the way git would see them."""

    def __init__(self, root: str, attributes: Attributes, filemode: bool) -> None:
        self.root = os.fsencode(root)
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
            try:
                return mode, blob_id(os.readlink(absolute))
            except OSError as error:
                raise Unreadable(path, f"cannot be read ({error.strerror})") from error
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
            problem = self.attributes.problem(
                path, has_crlf=found_crlf, binary=lambda: self._binary(absolute)
            )
            if problem is not None:
                raise Unreadable(path, problem)
        return mode, digest.digest()

    def read(self, path: bytes, mode: int, limit: int) -> bytes | None:
        """Up to `limit` bytes of a file's content (None for a symlink or submodule, which are
        never followed); OSError when it cannot be read."""
        if mode not in (0o100644, 0o100755):
            return None
        with open(self._abs(path), "rb") as handle:
            return handle.read(limit)

    @staticmethod
    def _binary(absolute: bytes) -> bool:
        """Whether git would call the file binary (False when it cannot be read again)."""
        try:
            with open(absolute, "rb") as handle:
                return looks_binary(handle.read())
        except OSError:
            return False

    def submodule_head(self, path: bytes) -> bytes | None:
        """The commit a submodule (or nested repository) has checked out; None if none."""
        try:
            checkout = checkout_at(os.fsdecode(self._abs(path)))
        except NotARepository:
            return None
        head = read_ref(checkout, "HEAD")
        return bytes.fromhex(head) if head is not None else None

    def scan(
        self,
        entries: Iterable[IndexEntry],
        differs: dict[bytes, TreeEntry | None],
        index_mtime_ns: int,
        replaced: set[bytes] = frozenset(),  # type: ignore[assignment]
        staged: Container[bytes] = frozenset(),
    ) -> Scan:
        """Every tracked path: what W has there, compared with the base and with the index.

        `differs` holds the base's entry (None: none) at every path where the base and the
        index differ; everywhere else the base has what the index has.

        The index's stat data vouches for a file only when every field matches and the entry is
        not racily clean (written in the same instant as the index); otherwise it is hashed.
        Paths beneath a `replaced` folder (now a symlink or a file) are gone. A `staged` path
        (the index differs from HEAD there) whose file differs from the index is pending: what
        `git commit` would record is neither what was checked nor HEAD's.
        This loop runs once per tracked file, so the common case is kept inline and cheap.
        """
        result = Scan()
        lstat = os.lstat
        root = self.root + b"/"
        exec_bit = 0o100 if self.filemode else 0
        is_regular = stat.S_ISREG
        for entry in entries:
            path, _, mode, sha, size, mtime_ns, ctime_ns, ino, trust, intent_to_add = entry
            if trust:
                clean = True
            else:
                st: os.stat_result | None = None
                if not (replaced and _beneath(path, replaced)):
                    try:
                        st = lstat(root + path)
                    except (FileNotFoundError, NotADirectoryError):
                        pass
                    except OSError as error:  # permissions, a link loop, a name too long
                        why = f"cannot be read ({error.strerror})"
                        result.unreadable.append(Unreadable(path, why))
                        continue
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
            if clean and path not in differs:
                continue  # unchanged since the base, and W is what the index says
            if path in differs:
                old = differs[path]
            else:  # the base has what the index has (none, for an intent to add)
                old = None if intent_to_add else (normal_mode(mode), sha)
            if clean:
                now: TreeEntry | None = (mode, sha)
            else:
                try:
                    now = self._tracked_slowly(entry, st)
                except Unreadable as error:
                    result.unreadable.append(error)
                    continue
            if now != old:
                result.changes.append((path, old, now))
            if path in staged and now != (mode, sha) and not intent_to_add:
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
        self, index: IndexTree, ignores: IgnoreFilterManager, start: Iterable[bytes] = (b"",)
    ) -> Walk:
        """Non-ignored files (and nested repositories) that the index does not track, walking
        from the folders `start` (the root; later, tracked files that are folders on disk now).

        Only names the index does not know, and tracked folders (still folders?), are looked at
        one by one (lstat, ignore rules).
        """
        walk = Walk()
        no_names: set[bytes] = set()
        stack: list[bytes] = []
        for folder in start:
            if folder:
                self._folder(folder, ignores, walk, stack)
            else:
                stack.append(folder)
        lstat = os.lstat
        while stack:
            directory = stack.pop()
            prefix = directory + b"/" if directory else b""
            try:
                names = os.listdir(self.root + b"/" + prefix if prefix else self.root)
            except OSError as error:
                if not directory:
                    raise Unreadable(b"", f"cannot be listed ({error.strerror})") from error
                walk.unreadable.append(Unreadable(prefix, f"cannot be listed ({error.strerror})"))
                continue
            files = index.files.get(directory, no_names)
            folders = index.folders.get(directory, no_names)
            for name in names:
                if name in files or name == b".git":
                    continue  # the common case: one set lookup per tracked file, nothing more
                path = prefix + name
                try:
                    st = lstat(self.root + b"/" + path)
                except FileNotFoundError:
                    continue  # removed since the folder was listed
                except OSError as error:
                    walk.unreadable.append(Unreadable(path, f"cannot be read ({error.strerror})"))
                    continue
                is_dir = stat.S_ISDIR(st.st_mode)
                if name in folders:
                    if is_dir:
                        stack.append(path)
                        continue
                    walk.replaced.add(path)  # a symlink or file where the index has a folder
                if is_dir:
                    self._folder(path, ignores, walk, stack)
                else:
                    self._file(path, st, ignores, walk)
        return walk

    def _folder(
        self, path: bytes, ignores: IgnoreFilterManager, walk: Walk, stack: list[bytes]
    ) -> None:
        """An untracked folder: skipped when ignored, a gitlink when it is a repository."""
        try:
            # Not is_ignored("dir/"): `dir/*` matches that text, yet git enters the folder, and
            # a later `!dir/keep` re-includes a file in it.
            if ignores.may_prune_directory(os.fsdecode(path) + "/"):
                return
        except OSError as error:  # its .gitignore cannot be read
            walk.unreadable.append(Unreadable(path + b"/", f"cannot be read ({error.strerror})"))
            return
        dotgit = self._abs(path) + b"/.git"
        if not os.path.lexists(dotgit):
            stack.append(path)
            return
        head = self.submodule_head(path)
        if head is not None:
            walk.untracked[path] = (GITLINK, head)
        elif is_repository(os.fsdecode(dotgit)):
            why = "is a nested repository with no commit checked out, which git cannot add"
            walk.unreadable.append(Unreadable(path, why))
        else:
            stack.append(path)  # a `.git` that is no repository: git lists the folder as usual

    def _file(
        self, path: bytes, st: os.stat_result, ignores: IgnoreFilterManager, walk: Walk
    ) -> None:
        """An untracked file or symlink: its entry, unless it is ignored."""
        try:
            if ignores.is_ignored(os.fsdecode(path)):
                return
        except OSError as error:
            walk.unreadable.append(Unreadable(path, f"cannot be read ({error.strerror})"))
            return
        try:
            entry = self._file_entry(path, st, None)
        except Unreadable as error:
            walk.unreadable.append(error)
            return
        if entry is not None:
            walk.untracked[path] = entry
