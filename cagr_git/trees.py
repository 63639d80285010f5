"""Tree objects: diffing two trees, and the trees the index would write.

Trees are read through cagr's object reader and compared by mode and object id, never by
content, with no rename or copy detection: a rename is a deletion plus an addition.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable

from .index import IndexEntry
from .objects import TREE as TREE_TYPE
from .objects import DamagedObject, ObjectReader, read_raw

TREE_MODE = 0o040000
GITLINK = 0o160000
TreeEntry = tuple[int, bytes]  # (mode, raw 20-byte object id)
_TREE_ENTRY = re.compile(rb"([0-7]+) ([^\0]+)\0(.{20})", re.DOTALL)
_WHOLE_TREE = re.compile(rb"(?:[0-7]+ [^\0]+\0.{20})*", re.DOTALL)  # git refuses empty names
TREE = b"40000"  # a subtree's mode, as tree objects write it
_Entry = tuple[bytes, bytes, bytes]
ReadTree = Callable[[bytes], bytes]  # raw tree id -> the tree object's raw bytes
_MODE_TEXT = {0o100644: b"100644 ", 0o100755: b"100755 ", 0o120000: b"120000 ", GITLINK: b"160000 "}


def normal_mode(mode: int) -> int:
    """Old gits wrote 100664-style modes: git reads any regular mode as 100644, or as 100755
    when its owner may execute it (`ce_permissions`); other modes are kept."""
    if mode & 0o170000 == 0o100000:
        return 0o100755 if mode & 0o100 else 0o100644
    return mode


def tree_mode(mode: int) -> int:
    """A tree entry's mode as git reads it (`canon_mode`): regular modes as `normal_mode`, any
    folder mode is a tree (40755, written by other tools), any symlink mode 120000, and every
    other mode a submodule."""
    kind = mode & 0o170000
    if kind in (0o100000, 0o120000, TREE_MODE):
        return normal_mode(mode) if kind == 0o100000 else kind
    return GITLINK


def read_tree(store: ObjectReader, sha: bytes) -> dict[bytes, TreeEntry]:
    """One tree object's entries by name: (mode, raw 20-byte id)."""
    return _by_name(_entries(store, sha), sha)


def _by_name(entries: list[_Entry], sha: bytes | None) -> dict[bytes, TreeEntry]:
    """Entries by name, as git reads their modes; DamagedObject for a name held twice (git fsck
    calls such a tree broken, and which of the two git reads is not known)."""
    modes = _MODES
    named = {name: (modes[octal], child) for octal, name, child in entries}
    if len(named) != len(entries):
        raise DamagedObject((sha or b"").hex(), "a tree that holds one name twice")
    return named


def _raw_tree(store: ObjectReader, sha: bytes) -> bytes:
    return read_raw(store, sha, TREE_TYPE)


def _entries(read: ObjectReader | ReadTree, sha: bytes) -> list[_Entry]:
    """(octal mode, name, raw id) of each entry of tree `sha`, parsed by one regular expression:
    dulwich's Tree objects sort and re-wrap every entry, and a loop per entry was 3x slower."""
    raw = _raw_tree(read, sha) if isinstance(read, ObjectReader) else read(sha)
    if _WHOLE_TREE.fullmatch(raw) is None:
        raise DamagedObject(sha.hex(), "not a well-formed tree")
    return _TREE_ENTRY.findall(raw)


class _Modes(dict[bytes, int]):
    """Octal mode text -> the mode git reads it as (`tree_mode`), filled as modes are met."""

    def __missing__(self, octal: bytes) -> int:
        mode = self[octal] = tree_mode(int(octal, 8) & 0xFFFFFFFF)  # git's unsigned int
        return mode


_MODES = _Modes()


def tree_id(raw: bytes) -> bytes:
    digest = hashlib.sha1(b"tree %d\0" % len(raw), usedforsecurity=False)
    digest.update(raw)
    return digest.digest()


class IndexTree:
    """The index seen as folders: the trees it would write (`git write-tree`, without writing
    them), the root tree's id, and each folder's tracked names (`files`: entries, with those
    added with intent to add; `folders`: tracked subfolders), by folder path (root: b"")."""

    __slots__ = ("files", "folders", "root", "trees")

    def __init__(
        self,
        root: bytes,
        trees: dict[bytes, bytes],
        files: dict[bytes, set[bytes]],
        folders: dict[bytes, set[bytes]],
    ) -> None:
        self.root = root
        self.trees = trees
        self.files = files
        self.folders = folders

    def tracks(self, path: bytes) -> bool:
        """Whether the index has an entry at `path`."""
        folder, _, name = path.rpartition(b"/")
        return name in self.files.get(folder, ())


def index_tree(entries: Iterable[IndexEntry]) -> IndexTree:
    """The index (stage-0 entries, in index order) as an IndexTree. Entries added with intent
    to add are in no tree, as git leaves them out, but are tracked names.

    Index order is tree order (a folder sorts as its name and `/`), so each folder's tree is
    written when the entries leave it. Equal ids mean identical trees, whatever wrote them; a
    tree written otherwise than git would only differs in id, and is then compared entry by entry.
    """
    trees: dict[bytes, bytes] = {}
    files: dict[bytes, set[bytes]] = {b"": set()}
    folders: dict[bytes, set[bytes]] = {b"": set()}
    stack: list[tuple[bytes, list[bytes]]] = [(b"", [])]
    top = b""
    records = stack[0][1]
    names = files[b""]
    modes = _MODE_TEXT
    intended: list[bytes] = []

    def close() -> None:
        folder, written = stack.pop()
        raw = b"".join(written)
        oid = tree_id(raw)
        trees[oid] = raw
        stack[-1][1].extend((b"40000 ", folder.rpartition(b"/")[2], b"\0", oid))

    for path, _, mode, sha, _, _, _, _, _, intent_to_add, _ in entries:  # once per tracked file
        if intent_to_add:
            intended.append(path)
            continue
        folder, _, name = path.rpartition(b"/")
        if folder != top:
            while top and not (folder == top or folder.startswith(top + b"/")):
                close()
                top = stack[-1][0]
            rest = folder[len(top) + 1 :] if top else folder
            if rest:
                for component in rest.split(b"/"):
                    folders[top].add(component)
                    top = top + b"/" + component if top else component
                    stack.append((top, []))
                    files[top] = set()
                    folders[top] = set()
            records = stack[-1][1]
            names = files[folder]
        names.add(name)
        # A tree's records as their parts, joined once per tree (no bytes built per entry).
        records.extend((modes.get(mode) or b"%o " % mode, name, b"\0", sha))
    while len(stack) > 1:
        close()
    raw = b"".join(stack[0][1])
    root = tree_id(raw)
    trees[root] = raw
    for path in intended:
        *parts, name = path.split(b"/")
        folder = b""
        for component in parts:
            folders.setdefault(folder, set()).add(component)
            folder = folder + b"/" + component if folder else component
            files.setdefault(folder, set())
            folders.setdefault(folder, set())
        files[folder].add(name)
    return IndexTree(root, trees, files, folders)


def diff_trees(
    store: ObjectReader | ReadTree, old_id: bytes | None, new_id: bytes | None
) -> list[tuple[bytes, TreeEntry | None, TreeEntry | None]]:
    """Changed non-tree entries between two trees (raw ids), descending only where they differ.

    Trees come from the object reader, or from `store(id)` (the index's trees, say). Per pair
    of trees, the entries both have byte for byte are set aside in one set difference; only the
    others are looked at one by one. Modes are compared as git reads them (`tree_mode`).
    """
    out: list[tuple[bytes, TreeEntry | None, TreeEntry | None]] = []
    stack: list[tuple[bytes, bytes | None, bytes | None]] = [(b"", old_id, new_id)]
    while stack:
        prefix, old, new = stack.pop()
        olds = _entries(store, old) if old else []
        news = _entries(store, new) if new else []
        if olds and news:
            kept = set(olds).intersection(news)
            olds = [entry for entry in olds if entry not in kept]
            news = [entry for entry in news if entry not in kept]
        before = _by_name(olds, old)
        after = _by_name(news, new)
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
            o_entry = None if o is None or o_tree else o
            n_entry = None if n is None or n_tree else n
            if o_entry != n_entry:
                out.append((path, o_entry, n_entry))
    out.sort()
    return out
