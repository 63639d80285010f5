"""Reading raw objects from a repository's object store, with damage named.

dulwich reports a damaged object in many ways (zlib errors, format and checksum exceptions,
assertions, struct and buffer errors); every one becomes DamagedObject naming the object, so a
check reports it as unchecked with what to do. A missing object stays a KeyError: that is a
shallow or incomplete clone, which has its own advice.
"""

from __future__ import annotations

from dulwich.object_store import BaseObjectStore
from dulwich.objects import Blob, Commit, ObjectID, Tree

from cagr_core.errors import CagrError

TYPE_NAMES = {Commit.type_num: "commit", Tree.type_num: "tree", Blob.type_num: "blob"}


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


def read_raw(store: BaseObjectStore, oid: bytes, kind: int) -> bytes:
    """The raw content of object `oid` (20 raw bytes), which must be of type `kind`.

    KeyError when the store does not have it (or has another type); DamagedObject when reading
    it fails any other way.
    """
    hex_id = oid.hex()
    try:
        found, raw = store.get_raw(ObjectID(hex_id.encode("ascii")))
    except KeyError:
        raise
    except Exception as error:  # dulwich's many ways of saying "damaged": see the docstring
        raise DamagedObject(hex_id, f"{type(error).__name__}: {error}"[:200]) from error
    if found != kind:
        raise KeyError(f"{hex_id} is not a {TYPE_NAMES.get(kind, kind)}")
    return raw


def commit_tree(store: BaseObjectStore, commit: str) -> bytes:
    """The raw id of a commit's tree (`commit`: hex)."""
    raw = read_raw(store, bytes.fromhex(commit), Commit.type_num)
    if not raw.startswith(b"tree ") or raw[45:46] != b"\n":
        raise DamagedObject(commit, "a commit that does not start with its tree")
    try:
        return bytes.fromhex(raw[5:45].decode("ascii"))
    except ValueError as error:
        raise DamagedObject(commit, "a commit whose tree id is not hex") from error
