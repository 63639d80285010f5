"""Tree objects: flattening a commit's tree (cached by tree id) and diffing two trees.

Both read objects through cagr's object reader and compare entries by mode and object id,
never by content, with no rename or copy detection: a rename is a deletion plus an addition.
"""

from __future__ import annotations

import hashlib
import re
import struct
from collections.abc import Callable

from .objects import TREE as TREE_TYPE
from .objects import DamagedObject, ObjectReader, read_raw
from .state import BASE_TREE, load, save

TREE_MODE = 0o040000
GITLINK = 0o160000
TreeEntry = tuple[int, bytes]  # (mode, raw 20-byte object id)
_CACHE_MAGIC = b"cagr base trees 3\n"
_RECORD = struct.Struct(">20sL")  # a tree's raw id and the length of its raw bytes
_TREE_ENTRY = re.compile(rb"([0-7]+) ([^\0]*)\0(.{20})", re.DOTALL)
_WHOLE_TREE = re.compile(rb"(?:[0-7]+ [^\0]*\0.{20})*", re.DOTALL)
TREE = b"40000"  # a subtree's mode, as tree objects write it
_Entry = tuple[bytes, bytes, bytes]


def normal_mode(mode: int) -> int:
    """Old gits wrote 100664-style modes; git reads any regular mode as 100644 or 100755."""
    if mode & 0o170000 == 0o100000:
        return 0o100755 if mode & 0o111 else 0o100644
    return mode


def read_tree(store: ObjectReader, sha: bytes) -> dict[bytes, TreeEntry]:
    """One tree object's entries by name: (mode, raw 20-byte id)."""
    return {name: (_MODES[octal], child) for octal, name, child in _entries(store, sha)}


def _raw_tree(store: ObjectReader, sha: bytes) -> bytes:
    return read_raw(store, sha, TREE_TYPE)


def _entries(read: ObjectReader | Callable[[bytes], bytes], sha: bytes) -> list[_Entry]:
    """(octal mode, name, raw id) of each entry of tree `sha`, parsed by one regular expression:
    dulwich's Tree objects sort and re-wrap every entry, and a loop per entry was 3x slower."""
    raw = _raw_tree(read, sha) if isinstance(read, ObjectReader) else read(sha)
    if _WHOLE_TREE.fullmatch(raw) is None:
        raise DamagedObject(sha.hex(), "not a well-formed tree")
    return _TREE_ENTRY.findall(raw)


class _Modes(dict[bytes, int]):
    """Octal mode text -> mode, filled as modes are met."""

    def __init__(self, normal: bool) -> None:
        super().__init__()
        self.normal = normal

    def __missing__(self, octal: bytes) -> int:
        mode = int(octal, 8)
        mode = self[octal] = normal_mode(mode) if self.normal else mode
        return mode


_MODES = _Modes(normal=False)
_NORMAL_MODES = _Modes(normal=True)


def flatten(store: ObjectReader, tree_id: bytes) -> dict[bytes, TreeEntry]:
    """Every non-tree entry of the tree, by full path (submodules are entries, not descended)."""
    return _flatten(lambda sha: _raw_tree(store, sha), tree_id)


def _flatten(read: Callable[[bytes], bytes], tree_id: bytes) -> dict[bytes, TreeEntry]:
    out: dict[bytes, TreeEntry] = {}
    modes = _NORMAL_MODES
    stack: list[tuple[bytes, bytes]] = [(b"", tree_id)]
    while stack:
        prefix, sha = stack.pop()
        entries = _entries(read, sha)
        # Two comprehensions over the entries beat one loop with a branch per entry.
        out.update(
            {
                prefix + name: (modes[octal], child)
                for octal, name, child in entries
                if octal != TREE
            }
        )
        stack.extend(
            (prefix + name + b"/", child) for octal, name, child in entries if octal == TREE
        )
    return out


def flatten_cached(store: ObjectReader, tree_id: bytes, gitdir: str) -> dict[bytes, TreeEntry]:
    """`flatten`, from tree objects kept in one cache file under cagr's state folder.

    The cache holds raw tree objects, each checked against its id (a hash of its bytes) before
    use, so a cache for another tree, a damaged one or one written by hand is never believed: it
    is read again from the repository and rewritten. A cache that cannot be written is simply
    not kept.
    """
    data = load(gitdir, BASE_TREE)
    if data is not None:
        entries = _from_cache(data, tree_id)
        if entries is not None:
            return entries
    trees: dict[bytes, bytes] = {}

    def read(sha: bytes) -> bytes:
        raw = trees[sha] = _raw_tree(store, sha)
        return raw

    entries = _flatten(read, tree_id)
    records = b"".join(_RECORD.pack(sha, len(raw)) + raw for sha, raw in trees.items())
    save(gitdir, BASE_TREE, _CACHE_MAGIC + records)
    return entries


class _NotInCache(Exception):
    """A tree the cache lacks, or holds with bytes that do not hash to its id."""


def _tree_id(raw: bytes) -> bytes:
    digest = hashlib.sha1(b"tree %d\0" % len(raw), usedforsecurity=False)
    digest.update(raw)
    return digest.digest()


def _from_cache(data: bytes, tree_id: bytes) -> dict[bytes, TreeEntry] | None:
    """The flattened tree from cached tree objects, or None when the cache cannot vouch for it."""
    if not data.startswith(_CACHE_MAGIC):
        return None
    trees: dict[bytes, bytes] = {}
    offset = len(_CACHE_MAGIC)
    try:
        while offset < len(data):
            sha, length = _RECORD.unpack_from(data, offset)
            offset += _RECORD.size
            trees[sha] = data[offset : offset + length]
            offset += length
    except struct.error:
        return None

    def read(sha: bytes) -> bytes:
        raw = trees.get(sha)
        if raw is None or _tree_id(raw) != sha:
            raise _NotInCache
        return raw

    try:
        return _flatten(read, tree_id)
    except (_NotInCache, DamagedObject):
        return None


def diff_trees(
    store: ObjectReader, old_id: bytes | None, new_id: bytes | None
) -> list[tuple[bytes, TreeEntry | None, TreeEntry | None]]:
    """Changed non-tree entries between two trees (raw ids), descending only where they differ.

    Per pair of trees, the entries both have byte for byte are set aside in one set difference;
    only the others are looked at one by one.
    """
    out: list[tuple[bytes, TreeEntry | None, TreeEntry | None]] = []
    stack: list[tuple[bytes, bytes | None, bytes | None]] = [(b"", old_id, new_id)]
    modes = _MODES
    while stack:
        prefix, old, new = stack.pop()
        olds = _entries(store, old) if old else []
        news = _entries(store, new) if new else []
        if olds and news:
            kept = set(olds).intersection(news)
            olds = [entry for entry in olds if entry not in kept]
            news = [entry for entry in news if entry not in kept]
        before = {name: (modes[octal], child) for octal, name, child in olds}
        after = {name: (modes[octal], child) for octal, name, child in news}
        for name in before.keys() | after.keys():
            o = before.get(name)
            n = after.get(name)
            if o == n:
                continue  # the same mode and id, written differently ("040000")
            path = prefix + name
            o_tree = o is not None and o[0] == TREE_MODE
            n_tree = n is not None and n[0] == TREE_MODE
            if o_tree or n_tree:
                stack.append(
                    (path + b"/", o[1] if o and o_tree else None, n[1] if n and n_tree else None)
                )
            o_entry = None if o is None or o_tree else (normal_mode(o[0]), o[1])
            n_entry = None if n is None or n_tree else (normal_mode(n[0]), n[1])
            if o_entry != n_entry:
                out.append((path, o_entry, n_entry))
    out.sort()
    return out
