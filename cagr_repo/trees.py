"""Tree objects: flattening a commit's tree (cached by tree id) and diffing two trees.

Both read objects through dulwich and compare entries by mode and object id, never by content,
with no rename or copy detection: a rename is a deletion plus an addition.
"""

from __future__ import annotations

import marshal

from dulwich.object_store import BaseObjectStore
from dulwich.objects import ObjectID, Tree

from .state import BASE_TREE, load, save

TREE_MODE = 0o040000
GITLINK = 0o160000
TreeEntry = tuple[int, bytes]  # (mode, raw 20-byte object id)
_CACHE_VERSION = 2


def normal_mode(mode: int) -> int:
    """Old gits wrote 100664-style modes; git reads any regular mode as 100644 or 100755."""
    if mode & 0o170000 == 0o100000:
        return 0o100755 if mode & 0o111 else 0o100644
    return mode


def read_tree(store: BaseObjectStore, sha: bytes) -> dict[bytes, TreeEntry]:
    """One tree object's entries by name: (mode, raw 20-byte id).

    Parsed from the raw object: dulwich's Tree objects sort and re-wrap every entry, which
    made tree walks about four times slower.
    """
    kind, raw = store.get_raw(ObjectID(sha.hex().encode("ascii")))
    if kind != Tree.type_num:
        raise KeyError(f"{sha.hex()} is not a tree")
    out: dict[bytes, TreeEntry] = {}
    index = 0
    find = raw.index
    while index < len(raw):
        space = find(b" ", index)
        nul = find(b"\0", space)
        out[raw[space + 1 : nul]] = (int(raw[index:space], 8), raw[nul + 1 : nul + 21])
        index = nul + 21
    return out


def flatten(store: BaseObjectStore, tree_id: bytes) -> dict[bytes, TreeEntry]:
    """Every non-tree entry of the tree, by full path (submodules are entries, not descended)."""
    out: dict[bytes, TreeEntry] = {}
    stack: list[tuple[bytes, bytes]] = [(b"", tree_id)]
    while stack:
        prefix, sha = stack.pop()
        for name, (mode, child) in read_tree(store, sha).items():
            if mode == TREE_MODE:
                stack.append((prefix + name + b"/", child))
            else:
                out[prefix + name] = (normal_mode(mode), child)
    return out


def flatten_cached(store: BaseObjectStore, tree_id: bytes, gitdir: str) -> dict[bytes, TreeEntry]:
    """`flatten`, kept in one cache file under cagr's state folder, keyed by the tree id.

    The cache only saves work: a missing, damaged or other-tree cache is rebuilt, and a cache
    that cannot be written is simply not kept.
    """
    data = load(gitdir, BASE_TREE)
    if data is not None:
        try:
            version, cached_id, cached = marshal.loads(data)
            if version == _CACHE_VERSION and cached_id == tree_id and isinstance(cached, dict):
                return cached
        except (ValueError, EOFError, TypeError):
            pass
    entries = flatten(store, tree_id)
    save(gitdir, BASE_TREE, marshal.dumps((_CACHE_VERSION, tree_id, entries)))
    return entries


def diff_trees(
    store: BaseObjectStore, old_id: bytes | None, new_id: bytes | None
) -> list[tuple[bytes, TreeEntry | None, TreeEntry | None]]:
    """Changed non-tree entries between two trees (raw ids), descending only where they differ."""
    out: list[tuple[bytes, TreeEntry | None, TreeEntry | None]] = []
    stack: list[tuple[bytes, bytes | None, bytes | None]] = [(b"", old_id, new_id)]
    while stack:
        prefix, old, new = stack.pop()
        olds = read_tree(store, old) if old else {}
        news = read_tree(store, new) if new else {}
        for name in olds.keys() | news.keys():
            o = olds.get(name)
            n = news.get(name)
            if o == n:
                continue
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
