"""The working-tree snapshot W: net tracked content plus non-ignored untracked files.

Read-only by construction: the index is parsed from its bytes (never refreshed or written), files
are lstat'ed and, where the index's stat data cannot vouch for them, hashed as git would hash them.
Symlinks are never followed: a tracked folder that is now a symlink (or a file) is an untracked
entry of that name, and what the index has beneath it is gone, as git sees it. What cannot be
read is reported per path (a folder that cannot be listed as `folder/`), never skipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import mmap
import os
import stat
import struct
import sys
from collections.abc import Callable, Container, Iterable
from itertools import filterfalse

from cagr_core.errors import CagrError
from cagr_core.values import field, value

from .attributes import AttributeFileProblem
from .convert import Checkin, Conversion, Unconvertible, looks_binary, to_git
from .discover import NotARepository, checkout_at, is_repository
from .ignore import IgnoreFileProblem, IgnoreRules
from .index import IndexEntry
from .refs import read_ref
from .repository import unsupported
from .trees import GITLINK, IndexTree, TreeEntry, normal_mode

_CHUNK = 1 << 20
MAX_CONVERTED_BYTES = 512 * 1024 * 1024  # content held whole to convert its line endings
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)  # no wait, no link
SYMLINK = 0o120000


class Unreadable(CagrError):
    """A path whose content cannot be known exactly (filters, races, permissions); a path that
    ends in `/` is a folder whose contents cannot be known."""

    def __init__(self, path: bytes, why: str) -> None:
        self.path = path
        self.why = why
        super().__init__(f"{path!r}: {why}")


def blob_id(data: bytes) -> bytes:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).digest()


def mode_from_stat(
    st_mode: int, index_mode: int | None, filemode: bool, symlinks: bool
) -> int | None:
    """The mode git records for what lstat found (read-cache.h's ce_mode_from_stat), given the
    index's mode there (None: untracked); None for what git does not track (a FIFO, a device).

    With `core.symlinks=false` a regular file at a tracked symlink is that symlink (its content
    the target); with `core.fileMode=false` a regular file keeps the index's mode, else 100644.
    """
    if stat.S_ISLNK(st_mode):
        return SYMLINK
    if not stat.S_ISREG(st_mode):
        return None
    if not symlinks and index_mode == SYMLINK:
        return SYMLINK
    if not filemode:
        if index_mode is not None and index_mode & 0o170000 == 0o100000:
            return normal_mode(index_mode)
        return 0o100644
    return 0o100755 if st_mode & stat.S_IXUSR else 0o100644


@value(frozen=False)
class Scan:
    """The tracked paths' outcome: raw changes against the base, staged paths whose working
    tree content differs from the staged one, and paths that could not be read exactly."""

    changes: list[tuple[bytes, TreeEntry | None, TreeEntry | None]] = field(factory=list)
    pending: list[bytes] = field(factory=list)
    unreadable: list[Unreadable] = field(factory=list)


@value(frozen=False)
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


def _stream_hash(fd: int, size: int, path: bytes, watch: tuple[bytes, ...] = ()) -> bytes | None:
    """The blob id of an opened file's `size` bytes, read in chunks; None when one of the
    `watch` byte strings occurs in it (across chunk boundaries too)."""
    digest = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
    read = 0
    tail = b""
    found = False
    while chunk := os.read(fd, _CHUNK):
        digest.update(chunk)
        read += len(chunk)
        if watch and not found:
            window = tail + chunk
            found = any(needle in window for needle in watch)
            tail = chunk[-3:]
    if read != size:
        raise Unreadable(path, "changed while cagr was reading it")
    return None if found else digest.digest()


def _read_whole(fd: int, size: int, path: bytes) -> bytes:
    """An opened file's `size` bytes."""
    chunks = []
    read = 0
    while chunk := os.read(fd, _CHUNK):
        chunks.append(chunk)
        read += len(chunk)
    if read != size:
        raise Unreadable(path, "changed while cagr was reading it")
    return b"".join(chunks)


def _unvouched(
    entries: tuple[IndexEntry, ...],
    root: bytes,
    exec_bit: int,
    index_mtime_ns: int,
    every: bool = False,
) -> list[int]:
    """The positions of the entries whose stat data does not vouch for the file on disk now:
    lstat fails, a field differs, or the entry is racily clean or an intent to add. Entries git
    uses as they are (assume-unchanged, skip-worktree) are skipped unless `every`. What is
    beneath a folder that is no folder any more is not known here: the caller looks again."""
    found: list[int] = []
    lstat = os.lstat
    is_regular = stat.S_ISREG
    for position, entry in enumerate(entries):  # once per tracked file: kept inline
        path, _, mode, _, size, mtime_ns, ctime_ns, ino, valid, intent_to_add, skip = entry
        if (valid or skip) and not every:
            continue
        try:
            st = lstat(root + path)
        except OSError:
            found.append(position)
            continue
        if not (
            st.st_mtime_ns == mtime_ns
            and st.st_ctime_ns == ctime_ns
            and st.st_size & 0xFFFFFFFF == size
            and st.st_ino & 0xFFFFFFFF == ino
            and is_regular(st.st_mode)
            and mode == (0o100755 if st.st_mode & exec_bit else 0o100644)
            and mtime_ns < index_mtime_ns  # else racily clean: git would hash it too
            and not intent_to_add
        ):
            found.append(position)
    return found


PARALLEL_FROM = 50_000  # index entries from which the stat check runs in a forked process
Parsed = tuple[tuple[IndexEntry, ...], int]  # the entries, the mtime their stat data predates


_ANSWER = struct.Struct("<4sIQQ")  # b"cagr", positions found, entries read, their mtime


class StatCheck:
    """`_unvouched` for the whole index, run on Linux in a forked child while this process
    parses the index, builds its trees, reads the base's and walks the untracked files (git
    stats on several threads; Python threads take the GIL back for every lstat). The child is
    forked before the index is parsed and reads the same bytes itself (`quick`: straight from
    them, without building entries; else `parse`), so neither process copies pages the other
    wrote. It answers in a shared anonymous mapping (memory, no file), read once it has
    exited. The answer is used only when the child exited cleanly having read as many entries
    with the same mtime; anything else and the check runs here instead, with the same
    predicate."""

    def __init__(
        self,
        parse: Callable[[], Parsed],
        count: int,
        root: str,
        filemode: bool,
        quick: Callable[[bytes, int], tuple[list[int], int] | None] | None = None,
    ) -> None:
        self.root = os.fsencode(root) + b"/"
        self.exec_bit = 0o100 if filemode else 0
        self.pid = 0
        self.status = -1
        self.answer: mmap.mmap | None = None
        if count >= PARALLEL_FROM and _may_fork():
            self._fork(parse, quick, count)

    def _fork(
        self,
        parse: Callable[[], Parsed],
        quick: Callable[[bytes, int], tuple[list[int], int] | None] | None,
        count: int,
    ) -> None:
        try:
            answer = mmap.mmap(-1, _ANSWER.size + 4 * count)  # shared with the child
        except (OSError, ValueError):
            return
        try:
            pid = os.fork()
        except (OSError, DeprecationWarning):  # the latter: 3.12's warning beside threads, as error
            answer.close()
            return
        if pid == 0:  # the child: check, answer, and leave without any cleanup
            code = 1
            try:
                for fd in (0, 1, 2):  # a caller reading the output must not wait for the child
                    with contextlib.suppress(OSError):
                        os.close(fd)
                quickly = None if quick is None else quick(self.root, self.exec_bit)
                if quickly is None:
                    entries, mtime_ns = parse()
                    found = _unvouched(entries, self.root, self.exec_bit, mtime_ns, every=True)
                    read = len(entries)
                else:  # straight from the index's bytes, as many entries as its header says
                    found, mtime_ns = quickly
                    read = count
                if _ANSWER.size + 4 * len(found) <= len(answer):
                    _ANSWER.pack_into(answer, 0, b"cagr", len(found), read, mtime_ns)
                    answer[_ANSWER.size : _ANSWER.size + 4 * len(found)] = struct.pack(
                        f"<{len(found)}I", *found
                    )
                    code = 0
            finally:
                os._exit(code)
        self.pid, self.answer = pid, answer

    def result(self, entries: tuple[IndexEntry, ...], index_mtime_ns: int) -> list[int]:
        """The positions `_unvouched` finds among `entries` (this process's parse), from the
        child when it answered in full for the same entries."""
        found = self._collect(len(entries), index_mtime_ns)
        if found is None:
            return _unvouched(entries, self.root, self.exec_bit, index_mtime_ns)
        return found

    def _collect(self, count: int, index_mtime_ns: int) -> list[int] | None:
        answer = self.answer
        if not self.pid or answer is None:
            return None
        try:
            self._reap()
            if self.status != 0:
                return None
            magic, size, entries, mtime_ns = _ANSWER.unpack_from(answer, 0)
            if (magic, entries, mtime_ns) != (b"cagr", count, index_mtime_ns):
                return None
            if _ANSWER.size + 4 * size > len(answer):
                return None
            found = list(struct.unpack_from(f"<{size}I", answer, _ANSWER.size))
        finally:
            self.close()
        if any(p >= count for p in found):
            return None
        return found

    def _reap(self) -> None:
        if self.pid and self.status < 0:
            try:
                self.status = os.waitpid(self.pid, 0)[1]
            except ChildProcessError:  # reaped elsewhere: its answer is not trusted
                self.status = 1

    def close(self) -> None:
        """Reap the child (after `result`, or when the status fails before it)."""
        self._reap()
        if self.answer is not None:
            self.answer.close()
            self.answer = None


WAITING_WORKER = "cagr-check"  # cagr_hooks.worker's thread, whose caller only waits for it


def _may_fork() -> bool:
    """Linux only (other systems' libraries are not safe to use in a forked child), and no
    other thread running (a lock it holds would stay held in the child), unless this is the
    hooks' deadline worker and the only other thread is the main one, which waits for it
    (`join`) and holds nothing the child uses."""
    if sys.platform != "linux" or not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")
    if threading is None or threading.active_count() == 1:
        return True
    current = threading.current_thread()
    others = [thread for thread in threading.enumerate() if thread is not current]
    return current.name == WAITING_WORKER and others == [threading.main_thread()]


class WorkTree:
    """Reads one work tree's files the way git would see them."""

    def __init__(
        self,
        root: str,
        checkin: Checkin,
        filemode: bool,
        symlinks: bool = True,
        read_blob: Callable[[bytes], bytes | None] = lambda _: None,
    ) -> None:
        self.root = os.fsencode(root)
        self.checkin = checkin
        self.filemode = filemode
        self.symlinks = symlinks
        self.read_blob = read_blob  # an index blob's content (None: not in the store)
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

    def hash_path(
        self, path: bytes, st: os.stat_result, mode: int, index_sha: bytes | None = None
    ) -> TreeEntry:
        """The entry git would record for this file or symlink right now: its content as git
        converts it on the way in (`index_sha`: the index's blob there, which automatic
        line-ending conversion consults). Unreadable when that cannot be known exactly."""
        absolute = self._abs(path)
        self.hashed[path] = (st.st_size, st.st_mtime_ns, st.st_ino)
        if stat.S_ISLNK(st.st_mode):
            try:
                return mode, blob_id(os.readlink(absolute))
            except OSError as error:
                raise Unreadable(path, f"cannot be read ({error.strerror})") from error
        try:
            conversion = self.checkin.conversion(path)
            alternative = self.checkin.alternative(path, conversion)
        except (AttributeFileProblem, Unconvertible) as error:
            raise Unreadable(path, str(error)) from error
        if st.st_size and alternative is not None and alternative[0].unreproduced is not None:
            raise Unreadable(path, alternative[1])  # one way, git runs what cagr does not
        if conversion.unreproduced is not None and st.st_size:
            raise Unreadable(path, conversion.unreproduced)  # git would run what cagr does not
        try:
            fd = os.open(absolute, _OPEN_FLAGS)
        except OSError as error:
            raise Unreadable(path, f"cannot be read ({error.strerror})") from error
        try:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode) or opened.st_ino != st.st_ino:
                raise Unreadable(path, "changed while cagr was reading it")
            if conversion.plain and alternative is None:
                digest = _stream_hash(fd, st.st_size, path)
                assert digest is not None
                return mode, digest
            if st.st_size > MAX_CONVERTED_BYTES:
                # Too large to hold whole: exact as long as nothing in it would convert.
                digest = _stream_hash(fd, st.st_size, path, (b"\r\n", b"$Id"))
                if digest is None:
                    why = "is too large for cagr to convert its line endings as git does"
                    raise Unreadable(path, why)
                return mode, digest
            data = _read_whole(fd, st.st_size, path)
        except OSError as error:
            raise Unreadable(path, f"cannot be read ({error.strerror})") from error
        finally:
            os.close(fd)
        digest = self._converted(path, data, conversion, index_sha)
        if alternative is not None and self._converted(path, data, alternative[0], index_sha) != (
            digest
        ):
            raise Unreadable(path, alternative[1])  # git's commands see two contents here
        return mode, digest

    def _converted(
        self, path: bytes, data: bytes, conversion: Conversion, index_sha: bytes | None
    ) -> bytes:
        """The blob id of `data` as git stores it under `conversion`."""
        try:
            return blob_id(to_git(data, conversion, lambda: self._index_has_crlf(index_sha)))
        except Unconvertible as error:
            raise Unreadable(path, str(error)) from error

    def _index_has_crlf(self, sha: bytes | None) -> bool:
        """convert.c's has_crlf_in_index(): the index's version is text with a CRLF in it."""
        blob = self.read_blob(sha) if sha is not None else None
        return blob is not None and b"\r\n" in blob and not looks_binary(blob)

    def read(self, path: bytes, mode: int, limit: int) -> bytes | None:
        """Up to `limit` bytes of a file's content (None for a symlink or submodule, which are
        never followed); OSError when it cannot be read, or is no regular file any more."""
        if mode not in (0o100644, 0o100755):
            return None
        fd = os.open(self._abs(path), _OPEN_FLAGS)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{os.fsdecode(path)} is no longer a regular file")
            chunks = []
            while limit > 0 and (chunk := os.read(fd, min(limit, _CHUNK))):
                chunks.append(chunk)
                limit -= len(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def submodule_head(self, path: bytes) -> bytes | None:
        """The commit a submodule (or nested repository) has checked out: None when the folder
        holds no repository (an unpopulated submodule). Unreadable when it holds one whose
        checked-out commit cagr cannot read exactly (a broken `.git`, a repository format cagr
        does not read, an unborn or unreadable HEAD)."""
        folder = self._abs(path)
        if not os.path.lexists(folder + b"/.git"):
            return None
        try:
            checkout = checkout_at(os.fsdecode(folder))
        except NotARepository as error:
            raise Unreadable(path, f"is a submodule cagr cannot open ({error})") from error
        problem = unsupported(checkout)
        if problem is not None:
            raise Unreadable(path, f"is a submodule cagr cannot read: {problem}")
        head = read_ref(checkout, "HEAD")
        if head is None:
            raise Unreadable(path, "is a submodule whose checked-out commit cagr cannot read")
        return bytes.fromhex(head)

    def scan(  # noqa: PLR0913  # the index, what differs, and what the walk found
        self,
        entries: tuple[IndexEntry, ...],
        differs: dict[bytes, TreeEntry | None],
        index_mtime_ns: int,
        replaced: set[bytes] = frozenset(),  # type: ignore[assignment]
        staged: Container[bytes] = frozenset(),
        *,
        unvouched: Iterable[int] | None = None,
    ) -> Scan:
        """Every tracked path: what W has there, compared with the base and with the index.

        `differs` holds the base's entry (None: none) at every path where the base and the
        index differ; everywhere else the base has what the index has.

        The index's stat data vouches for a file only when every field matches and the entry is
        not racily clean (written in the same instant as the index); otherwise it is hashed.
        `unvouched` are the positions of the entries it does not vouch for (`_unvouched`, found
        here when not given); only those, the paths in `differs` and those beneath a
        `replaced` folder (now a symlink or a file: gone) are looked at again. A `staged` path
        (the index differs from HEAD there) whose file differs from the index is pending: what
        `git commit` would record is neither what was checked nor HEAD's.
        """
        result = Scan()
        if unvouched is None:
            unvouched = _unvouched(
                entries, self.root + b"/", 0o100 if self.filemode else 0, index_mtime_ns
            )
        look = {entries[position][0] for position in unvouched}
        look.update(differs)
        if replaced:
            look.update(entry[0] for entry in entries if _beneath(entry[0], replaced))
        if not look:
            return result
        lstat = os.lstat
        root = self.root + b"/"
        exec_bit = 0o100 if self.filemode else 0
        is_regular = stat.S_ISREG
        for entry in entries:
            if entry[0] not in look:
                continue  # the stat data vouches for it, and the base has what the index has
            path, _, mode, sha, size, mtime_ns, ctime_ns, ino, valid, intent_to_add, skip = entry
            if valid or skip:  # assume-unchanged or skip-worktree: git uses the entry as it is
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
        mode = mode_from_stat(st.st_mode, entry.mode, self.filemode, self.symlinks)
        if mode is not None:
            sha = None if entry.intent_to_add else entry.sha
            return self.hash_path(entry.path, st, mode, sha)
        if stat.S_ISDIR(st.st_mode):
            self.folders_for_files.append(entry.path)  # its files are untracked
            return None  # a folder replaced the file
        raise Unreadable(entry.path, "is no file, symlink or folder (a FIFO, socket or device)")

    def untracked(  # noqa: PLR0915  # one loop per name, kept inline: it runs for every file
        self, index: IndexTree, ignores: IgnoreRules, start: Iterable[bytes] = (b"",)
    ) -> Walk:
        """Non-ignored files (and nested repositories) that the index does not track, walking
        from the folders `start` (the root; later, tracked files that are folders on disk now),
        as `git ls-files -o --exclude-standard` finds them.

        Only names the index does not know, and tracked folders (still folders? ignored?), are
        looked at one by one (lstat, ignore rules). An ignored folder is not entered, tracked
        or not. With `core.ignoreCase` a name the index has in another case is tracked.
        """
        walk = Walk()
        no_names: set[bytes] = set()
        # Folders to list, and whether their untracked names count: an ignored tracked folder
        # is still walked for its tracked folders (a symlink there removes what the index has
        # beneath it), but nothing untracked in it is listed.
        stack: list[tuple[bytes, bool]] = []
        fold = ignores.fold
        folded = _CaseFolded(index)
        for folder in start:
            if folder:
                self._folder(folder, ignores, walk, stack)
            else:
                stack.append((folder, True))
        lstat = os.lstat
        while stack:
            directory, listing = stack.pop()
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
            # The common case, a tracked file, is set aside at C speed (in listing order).
            for name in filterfalse(files.__contains__, names):
                if name == b".git":
                    continue
                tracked_folder = name in folders
                if fold:  # git compares whole paths without case: so does every lookup below
                    if name.lower() == b".git":
                        continue
                    folded_files, folded_folders = folded.names(directory)
                    tracked_folder = tracked_folder or name.lower() in folded_folders
                if not (listing or tracked_folder):
                    continue
                path = prefix + name
                try:
                    st = lstat(self.root + b"/" + path)
                except FileNotFoundError:
                    continue  # removed since the folder was listed
                except OSError as error:
                    walk.unreadable.append(Unreadable(path, f"cannot be read ({error.strerror})"))
                    continue
                is_dir = stat.S_ISDIR(st.st_mode)
                if fold and not is_dir and name.lower() in folded_files:
                    continue  # tracked in another case
                if tracked_folder:
                    if is_dir:
                        lists = listing and not self._ignored(ignores, directory, name, True, walk)
                        stack.append((path, lists))
                        continue
                    walk.replaced.add(path)  # a symlink or file where the index has a folder
                    if not listing:
                        continue
                if is_dir:
                    self._folder(path, ignores, walk, stack)
                else:
                    self._file(path, st, ignores, walk)
        return walk

    @staticmethod
    def _ignored(
        ignores: IgnoreRules, folder: bytes, name: bytes, is_dir: bool, walk: Walk
    ) -> bool:
        """Whether git ignores `name` in `folder`; a path whose rules cannot be read as git
        reads them is unreadable (and so not listed)."""
        try:
            return ignores.excluded(folder, name, is_dir)
        except IgnoreFileProblem as error:
            path = folder + b"/" + name if folder else name
            walk.unreadable.append(Unreadable(path + b"/" if is_dir else path, str(error)))
            return True

    def _folder(
        self, path: bytes, ignores: IgnoreRules, walk: Walk, stack: list[tuple[bytes, bool]]
    ) -> None:
        """An untracked folder: skipped when ignored, a gitlink when it is a repository."""
        folder, _, name = path.rpartition(b"/")
        if self._ignored(ignores, folder, name, True, walk):
            return
        dotgit = self._abs(path) + b"/.git"
        if not os.path.lexists(dotgit) or not is_repository(os.fsdecode(dotgit)):
            stack.append((path, True))  # no repository: git lists the folder as usual
            return
        try:
            head = self.submodule_head(path)
        except Unreadable as error:
            why = f"is a nested repository whose checked-out commit cagr cannot read ({error.why})"
            walk.unreadable.append(Unreadable(path, why))
            return
        if head is not None:
            walk.untracked[path] = (GITLINK, head)

    def _file(self, path: bytes, st: os.stat_result, ignores: IgnoreRules, walk: Walk) -> None:
        """An untracked file or symlink: its entry, unless it is ignored."""
        folder, _, name = path.rpartition(b"/")
        if self._ignored(ignores, folder, name, False, walk):
            return
        mode = mode_from_stat(st.st_mode, None, self.filemode, self.symlinks)
        if mode is None:
            return  # a FIFO, socket or device: git does not list it
        try:
            walk.untracked[path] = self.hash_path(path, st, mode)
        except Unreadable as error:
            walk.unreadable.append(error)


class _CaseFolded:
    """The index's names in lower case (ASCII), as git compares them under `core.ignoreCase`:
    per folder, worked out the first time a name there is not found as it is."""

    def __init__(self, index: IndexTree) -> None:
        self.index = index
        self.folders: dict[bytes, list[bytes]] | None = None  # lower case -> as indexed
        self.found: dict[bytes, tuple[set[bytes], set[bytes]]] = {}

    def names(self, directory: bytes) -> tuple[set[bytes], set[bytes]]:
        """The tracked files and folders in `directory`, whatever its case, in lower case."""
        key = directory.lower()
        found = self.found.get(key)
        if found is None:
            if self.folders is None:
                self.folders = {}
                for folder in self.index.files:
                    self.folders.setdefault(folder.lower(), []).append(folder)
            same = self.folders.get(key, [])
            files = {n.lower() for f in same for n in self.index.files.get(f, ())}
            folders = {n.lower() for f in same for n in self.index.folders.get(f, ())}
            found = self.found[key] = (files, folders)
        return found
