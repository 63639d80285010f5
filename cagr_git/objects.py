"""Reading raw objects from a repository's object store: pack files, loose objects, alternates.

cagr's own reader, standard library only: pack indexes (versions 1 and 2) and pack files are
mapped into memory, an object is found by searching its fanout bucket of the index, and delta
chains are resolved once: every object resolved is kept (by pack and offset, up to a byte
budget), so the many trees of a diff that share delta bases unpack each base once. dulwich's
reader resolved each chain anew and took about 30 µs per object.

A missing object is a KeyError (a shallow or incomplete clone, which has its own advice); any
other failure to read one (zlib errors, a truncated pack, a delta that does not fit its base, a
size that does not match) is DamagedObject naming it, so a check reports it as unchecked with
what to do. Nothing is written.
"""

from __future__ import annotations

import hashlib
import mmap
import operator
import os
import struct
import zlib

from cagr_core.errors import CagrError

from .files import open_regular, read_regular
from .substitutes import NONE, Substitutes

COMMIT, TREE, BLOB, TAG = 1, 2, 3, 4
TYPE_NAMES = {COMMIT: "commit", TREE: "tree", BLOB: "blob", TAG: "tag"}
_LOOSE_TYPES = {b"commit": COMMIT, b"tree": TREE, b"blob": BLOB, b"tag": TAG}
_OFS_DELTA, _REF_DELTA = 6, 7
_IDX_MAGIC = b"\377tOc"
_CACHE_BYTES = 64 << 20  # resolved objects kept for later deltas
_MAX_DEPTH = 10_000  # git writes chains of at most 4,095; a longer one is a loop
_MAX_HOPS = 64  # packs one chain may pass through (a loop across packs otherwise)
_MAX_LOOSE_BYTES = 1 << 40
_MAX_RATIO = (
    1032  # zlib inflates a byte to at most 1,032 (deflate's longest match, 258, per 2 bits)
)
# The empty tree: git knows it without storing it (a commit of nothing may name it while no
# pack or loose object holds it).
EMPTY_TREE = bytes.fromhex("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
_HEX_DIGITS = frozenset("0123456789abcdef")


class DamagedObject(CagrError):
    """An object the store has but cannot read back as it should be."""

    def __init__(self, oid: str, why: str) -> None:
        self.oid = oid
        self.why = why
        super().__init__(self.advice)

    @property
    def advice(self) -> str:
        return (
            f"the object {self.oid} is damaged ({self.why}). Run `git fsck` to see what is"
            " broken, then restore it (fetch again, or clone afresh), and check again."
        )


class _Damaged(Exception):
    """Inside a pack: why an object cannot be read (named by the caller, who knows its id)."""


def _map(path: str) -> mmap.mmap | bytes:
    with open(open_regular(path), "rb") as handle:
        try:
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file cannot be mapped
            return b""


class _Pack:
    """One pack file and its index."""

    def __init__(self, index_path: str) -> None:
        self.index_path = index_path
        self.pack_path = index_path[: -len(".idx")] + ".pack"
        index = _map(index_path)
        pack = _map(self.pack_path)  # OSError when the pack is gone: the pack is skipped
        self.index = index
        self.pack = pack
        if index[:4] == _IDX_MAGIC:
            if struct.unpack_from(">L", index, 4)[0] != 2:
                raise ValueError("unknown pack index version")
            self.fanout = 8
            self.count = struct.unpack_from(">L", index, 8 + 255 * 4)[0]
            self.names = 8 + 256 * 4
            self.stride = 20
            self.offsets = self.names + 24 * self.count  # past the names and their CRCs
            self.large = self.offsets + 4 * self.count
            size = self.large + 40
            largest = size + 8 * max(self.count - 1, 0)  # and a table of 64-bit offsets
        else:  # version 1: (offset, name) pairs
            self.fanout = 0
            self.count = struct.unpack_from(">L", index, 255 * 4)[0]
            self.names = 256 * 4 + 4
            self.stride = 24
            self.offsets = self.large = 0
            size = largest = self.names - 4 + 24 * self.count + 40
        # git's own checks (`check_packed_git_idx`): the size the count implies, and a fanout
        # that never goes down; anything else is a damaged index, passed over as git does.
        if not size <= len(index) <= largest or pack[:4] != b"PACK" or len(pack) < 32:
            raise ValueError("a truncated pack or index")
        self.bounds = (0, *struct.unpack_from(">256L", index, self.fanout))  # bucket ends
        if any(map(operator.gt, self.bounds, self.bounds[1:])):
            raise ValueError("a pack index whose fanout goes down")

    def close(self) -> None:
        for mapped in (self.index, self.pack):
            if isinstance(mapped, mmap.mmap):
                mapped.close()

    def find(self, oid: bytes) -> int | None:
        """The object's offset in the pack, or None.

        Names are sorted and evenly spread, so the search starts in a window around where the
        name would be if its bucket were spread exactly evenly; the window is widened to the
        whole bucket when its ends do not bracket the name.
        """
        index = self.index
        first = oid[0]
        low = self.bounds[first]
        high = self.bounds[first + 1]
        if high <= low:
            return None
        stride, names = self.stride, self.names
        if high - low > 128:
            guess = low + (((high - low) * int.from_bytes(oid[1:4], "big")) >> 24)
            start = max(low, guess - 48)
            stop = min(high, guess + 48)
            at = names + stride * start
            if start > low and index[at : at + 20] > oid:
                start = low
            at = names + stride * (stop - 1)
            if stop < high and index[at : at + 20] < oid:
                stop = high
            low, high = start, stop
        start = names + stride * low
        end = names + stride * high
        at = index.find(oid, start, end)
        while at != -1 and (at - names) % stride:  # a match across two names: search on
            at = index.find(oid, at + 1, end)
        if at == -1:
            return None
        position = (at - names) // stride
        if stride == 24:
            return int(struct.unpack_from(">L", index, at - 4)[0])
        offset: int = struct.unpack_from(">L", index, self.offsets + 4 * position)[0]
        if offset & 0x80000000:
            large = self.large + 8 * (offset & 0x7FFFFFFF)
            offset = struct.unpack_from(">Q", index, large)[0]
        return offset


class ObjectReader:
    """The objects of one repository: its pack files, loose objects and alternates, read with
    the replacements and grafts git reads in their place (`substitutes`)."""

    def __init__(self, objects: str, substitutes: Substitutes = NONE) -> None:
        self.substitutes = substitutes
        self.directories = _with_alternates(objects)
        self.packs: list[_Pack] | None = None
        self.last_pack = 0
        self.cache: dict[tuple[int, int], tuple[int, bytes]] = {}  # by pack and offset
        self.recent: dict[bytes, tuple[int, bytes]] = {}  # by id
        self.cached_bytes = 0

    def close(self) -> None:
        for pack in self.packs or ():
            pack.close()
        self.packs = None
        self.last_pack = 0
        self.cache.clear()
        self.recent.clear()
        self.cached_bytes = 0

    def __enter__(self) -> ObjectReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _load_packs(self) -> list[_Pack]:
        packs = []
        for directory in self.directories:
            folder = os.path.join(directory, "pack")
            try:
                names = sorted(os.listdir(folder))
            except OSError:
                continue
            for name in names:
                if name.endswith(".idx"):
                    try:
                        packs.append(_Pack(os.path.join(folder, name)))
                    except (OSError, ValueError, struct.error):
                        continue  # an unreadable or half-written pack; git passes over it too
        return packs

    def read(self, oid: bytes) -> tuple[int, bytes]:
        """(type, raw content) of the object with this raw 20-byte id, as git reads it: the
        object a replace ref names in its place, a grafted commit with the graft's parents.

        KeyError when no pack or folder has it; DamagedObject when it cannot be read, or what
        is read does not hash to its id (a copy that does, in another pack or loose, is used).
        """
        found = self.recent.get(oid)
        if found is not None:
            return found
        substitutes = self.substitutes
        stored = substitutes.replacement(oid) if substitutes.replacements else oid
        found = self._stored(stored)
        if found[0] == COMMIT and oid in substitutes.grafts:
            found = (COMMIT, _grafted(found[1], substitutes.grafts[oid]))
        if self.cached_bytes < _CACHE_BYTES:
            self.recent[oid] = found  # revisions, merge bases and diffs read commits again
            self.cached_bytes += len(found[1])
        return found

    def _stored(self, oid: bytes) -> tuple[int, bytes]:
        """The object stored under `oid`, its content checked against its id."""
        if oid == EMPTY_TREE:  # git looks among the objects it knows by heart first
            return TREE, b""
        if self.packs is None:
            self.packs = self._load_packs()
        found = self._read_packed(oid) or self._read_loose(oid)
        if found is not None:
            return found
        self.close()  # packed meanwhile (`git gc`)? look again, once, as git does
        self.packs = self._load_packs()
        found = self._read_packed(oid) or self._read_loose(oid)
        if found is None:
            raise KeyError(oid.hex())
        return found

    def _read_packed(self, oid: bytes) -> tuple[int, bytes] | None:
        """The object from the first pack that holds a sound copy; when every copy is damaged
        and none is loose, DamagedObject for the first damaged copy."""
        assert self.packs is not None
        last = self.last_pack  # objects read together are mostly in one pack: ask it first
        order = [last, *(n for n in range(len(self.packs)) if n != last)] if last else None
        damaged: DamagedObject | None = None
        for number in order or range(len(self.packs)):
            pack = self.packs[number]
            try:
                offset = pack.find(oid)
                if offset is None:
                    continue
                kind, data = self._unpack(number, offset, 0)
                if _object_id(kind, data) != oid:
                    raise _Damaged("its content does not hash to its id")
            except (
                _Damaged,
                zlib.error,
                IndexError,
                ValueError,
                OverflowError,
                struct.error,
            ) as error:
                why = str(error) or type(error).__name__
                damaged = damaged or DamagedObject(oid.hex(), f"in {pack.pack_path}: {why}"[:200])
                continue
            self.last_pack = number
            return kind, data
        if damaged is None:
            return None
        loose = self._read_loose(oid)
        if loose is None:
            raise damaged
        return loose

    def _read_loose(self, oid: bytes) -> tuple[int, bytes] | None:
        name = oid.hex()
        for directory in self.directories:
            path = os.path.join(directory, name[:2], name[2:])
            compressed = read_regular(path, _MAX_LOOSE_BYTES)
            if compressed is None:
                if not os.path.lexists(path):
                    continue
                raise DamagedObject(name, "cannot be read as a regular file")
            try:
                data = zlib.decompress(compressed)
                header, _, raw = data.partition(b"\0")
                kind_name, _, size = header.partition(b" ")
                kind = _LOOSE_TYPES[kind_name]
                if not size.isdigit() or int(size) != len(raw) or b"\0" not in data:
                    raise ValueError("its size is not the header's")
            except (zlib.error, ValueError, KeyError) as error:
                raise DamagedObject(name, f"not a loose object: {error}"[:200]) from None
            if hashlib.sha1(data, usedforsecurity=False).digest() != oid:
                raise DamagedObject(name, "its content does not hash to its name")
            return kind, raw
        return None

    def ids_with_prefix(self, prefix: str) -> list[bytes]:
        """The hex ids (ASCII bytes, sorted) of every object whose id starts with `prefix` (at
        least two lower-case hex digits), in packs and loose."""
        if self.packs is None:
            self.packs = self._load_packs()
        found: set[str] = set()
        first = int(prefix[:2], 16)
        for pack in self.packs:
            for position in range(pack.bounds[first], pack.bounds[first + 1]):
                at = pack.names + pack.stride * position
                name = bytes(pack.index[at : at + 20]).hex()
                if name.startswith(prefix):
                    found.add(name)
        for directory in self.directories:
            try:
                names = os.listdir(os.path.join(directory, prefix[:2]))
            except OSError:
                continue
            for name in names:
                full = prefix[:2] + name
                if len(full) == 40 and full.startswith(prefix) and _HEX_DIGITS.issuperset(full):
                    found.add(full)
        return sorted(name.encode("ascii") for name in found)

    def _unpack(self, number: int, offset: int, hops: int) -> tuple[int, bytes]:
        """The object at `offset` in pack `number`, its delta chain resolved (walked down to a
        whole object or one already resolved, then applied upwards: no recursion). `hops`
        counts the other packs a chain has gone through."""
        assert self.packs is not None
        pack = self.packs[number].pack
        chain: list[tuple[int, int, int]] = []  # (offset, where its delta starts, its size)
        while True:
            found = self.cache.get((number, offset))
            if found is not None:
                kind, data = found
                break
            if len(chain) > _MAX_DEPTH:
                raise _Damaged("a delta chain that never ends")
            byte = pack[offset]
            kind = (byte >> 4) & 7
            size = byte & 15
            shift = 4
            at = offset + 1
            while byte & 0x80:
                byte = pack[at]
                at += 1
                size |= (byte & 0x7F) << shift
                shift += 7
            if kind in TYPE_NAMES:
                data = _inflate(pack, at, size)
                self._keep(number, offset, kind, data)
                break
            if kind == _OFS_DELTA:
                byte = pack[at]
                at += 1
                distance = byte & 0x7F
                while byte & 0x80:
                    byte = pack[at]
                    at += 1
                    distance = ((distance + 1) << 7) | (byte & 0x7F)
                if not 0 < distance <= offset:
                    raise _Damaged("a delta whose base lies outside the pack")
                chain.append((offset, at, size))
                offset -= distance
            elif kind == _REF_DELTA:
                base_id = bytes(pack[at : at + 20])
                chain.append((offset, at + 20, size))
                base = self.packs[number].find(base_id)
                if base is None:  # in another pack, or loose
                    kind, data = self._elsewhere(base_id, hops + 1)
                    break
                offset = base
            else:
                raise _Damaged(f"an unknown object type {kind}")
        for delta_offset, at, size in reversed(chain):
            data = _apply_delta(data, _inflate(pack, at, size))
            self._keep(number, delta_offset, kind, data)
        return kind, data

    def _keep(self, number: int, offset: int, kind: int, data: bytes) -> None:
        if self.cached_bytes < _CACHE_BYTES:
            self.cache[(number, offset)] = (kind, data)
            self.cached_bytes += len(data)

    def _elsewhere(self, oid: bytes, hops: int) -> tuple[int, bytes]:
        """A delta base outside the delta's pack (a thin pack's, completed by another)."""
        if hops > _MAX_HOPS:
            raise _Damaged("a delta chain that goes round the packs")
        assert self.packs is not None
        for number, pack in enumerate(self.packs):
            offset = pack.find(oid)
            if offset is not None:
                return self._unpack(number, offset, hops)
        found = self._read_loose(oid)
        if found is None:
            raise _Damaged(f"the delta base {oid.hex()} is missing")
        return found


def _object_id(kind: int, data: bytes) -> bytes:
    """The id git gives an object of this type and content."""
    header = b"%s %d\0" % (TYPE_NAMES[kind].encode(), len(data))
    digest = hashlib.sha1(header, usedforsecurity=False)
    digest.update(data)
    return digest.digest()


def _grafted(raw: bytes, parents: tuple[bytes, ...]) -> bytes:
    """A commit as git parses it under a graft: the graft's parents in place of its own (a
    commit git cannot parse is left as it is, for the reader to call damaged)."""
    start = raw.find(b"\n") + 1
    if not raw.startswith(b"tree ") or not start:
        return raw
    end = start
    while raw.startswith(b"parent ", end) and raw[end + 47 : end + 48] == b"\n":
        end += 48
    return raw[:start] + b"".join(b"parent %s\n" % p.hex().encode() for p in parents) + raw[end:]


def _inflate(pack: mmap.mmap | bytes, at: int, size: int) -> bytes:
    """The zlib stream at `at`, which must inflate to exactly `size` bytes and end there."""
    if size > (len(pack) - at) * _MAX_RATIO + 64:
        raise _Damaged("an object larger than the rest of its pack could inflate to")
    inflater = zlib.decompressobj()
    # Usually one slice holds the whole stream (zlib adds a few bytes to what it cannot shrink).
    data = inflater.decompress(pack[at : at + size + 64], size + 1)  # one more: "too long"
    if inflater.eof and len(data) == size:
        return data
    out = [data]
    have = len(data)
    pending = inflater.unconsumed_tail
    at += size + 64
    chunk = 1 << 16
    while not inflater.eof and have <= size:
        if not pending:
            pending = pack[at : at + chunk]
            at += chunk
            if not pending:
                raise _Damaged("a truncated object")
        data = inflater.decompress(pending, size + 1 - have)
        have += len(data)
        out.append(data)
        pending = inflater.unconsumed_tail
    if have != size:
        raise _Damaged(f"an object {'longer' if have > size else 'shorter'} than its header says")
    return b"".join(out)


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _apply_delta(base: bytes, delta: bytes) -> bytes:
    """git's delta format: the base's size, the result's, then copy and insert instructions.
    A copy names its offset and length by up to four and three bytes, each present when its
    bit of the instruction is set (unrolled: this runs for every instruction of every delta)."""
    base_size, at = _varint(delta, 0)
    size, at = _varint(delta, at)
    if base_size != len(base):
        raise _Damaged("a delta for a base of another size")
    out = []
    end = len(delta)
    while at < end:
        op = delta[at]
        at += 1
        if op & 0x80:
            start = length = 0
            if op & 0x01:
                start = delta[at]
                at += 1
            if op & 0x02:
                start |= delta[at] << 8
                at += 1
            if op & 0x04:
                start |= delta[at] << 16
                at += 1
            if op & 0x08:
                start |= delta[at] << 24
                at += 1
            if op & 0x10:
                length = delta[at]
                at += 1
            if op & 0x20:
                length |= delta[at] << 8
                at += 1
            if op & 0x40:
                length |= delta[at] << 16
                at += 1
            length = length or 0x10000
            if start + length > base_size:
                raise _Damaged("a delta that copies past its base")
            out.append(base[start : start + length])
        elif op:
            out.append(delta[at : at + op])
            at += op
        else:
            raise _Damaged("a delta with a reserved instruction")
    result = b"".join(out)
    if len(result) != size:
        raise _Damaged("a delta whose result has the wrong size")
    return result


def _with_alternates(objects: str, depth: int = 0) -> list[str]:
    """The objects folder and those its `info/alternates` names (nested up to five deep)."""
    folders = [objects]
    if depth >= 5:
        return folders
    try:
        with open(open_regular(os.path.join(objects, "info", "alternates")), "rb") as handle:
            lines = handle.read().decode("utf-8", "surrogateescape").splitlines()
    except OSError:
        return folders
    for text in lines:
        line = text.strip()
        if not line or line.startswith("#"):
            continue
        folder = os.path.normpath(os.path.join(objects, line))
        if os.path.isdir(folder):
            folders.extend(f for f in _with_alternates(folder, depth + 1) if f not in folders)
    return folders


def read_raw(objects: ObjectReader, oid: bytes, kind: int) -> bytes:
    """The raw content of object `oid` (20 raw bytes), which must be of type `kind`.

    KeyError when the store does not have it (or has another type); DamagedObject when reading
    it fails any other way.
    """
    found, raw = objects.read(oid)
    if found != kind:
        raise KeyError(f"{oid.hex()} is not a {TYPE_NAMES.get(kind, kind)}")
    return raw


def commit_tree(objects: ObjectReader, commit: str) -> bytes:
    """The raw id of a commit's tree (`commit`: hex)."""
    raw = read_raw(objects, bytes.fromhex(commit), COMMIT)
    if not raw.startswith(b"tree ") or raw[45:46] != b"\n":
        raise DamagedObject(commit, "a commit that does not start with its tree")
    try:
        return bytes.fromhex(raw[5:45].decode("ascii"))
    except ValueError as error:
        raise DamagedObject(commit, "a commit whose tree id is not hex") from error
