"""Commit history for merge bases: parents and commit times, and the merge-base walk itself.

Parents come from git's commit-graph file when it lists the commit (positions, no object
reads), else from the raw commit object. dulwich's walk parses full Commit objects and took
about ten times git's time on a 10,000-commit history; this one reads only what it needs.
The walk is git's "paint down to common": commits reachable from both sides, newest first,
then the redundant ones (ancestors of another result) removed.
"""

from __future__ import annotations

import heapq
import struct
from pathlib import Path

from dulwich.object_store import BaseObjectStore
from dulwich.objects import Commit

from .objects import DamagedObject, read_raw

_NO_PARENT = 0x70000000
_EXTRA_EDGES = 0x80000000
_LAST_EDGE = 0x80000000
ONE, TWO, STALE, RESULT = 1, 2, 4, 8


class CommitGraph:
    """A single commit-graph file (`objects/info/commit-graph`), read-only."""

    def __init__(self, data: bytes) -> None:
        """ValueError (or struct.error) unless every chunk the walk reads lies inside the file:
        a truncated graph is read around, as if it were absent."""
        if data[:4] != b"CGPH" or data[4] != 1 or data[5] != 1:
            raise ValueError("not a version 1, SHA-1 commit-graph")
        count = data[6]
        table = [struct.unpack_from(">4sQ", data, 8 + 12 * index) for index in range(count + 1)]
        end = len(data) - 20  # the trailing checksum
        offsets = [offset for _, offset in table]
        if offsets != sorted(offsets) or offsets[-1] > end:
            raise ValueError("the chunk table does not fit the file")
        chunks = {name: (offset, following) for (name, offset), following in
                  zip(table, offsets[1:], strict=False)}  # fmt: skip
        self.data = data
        fanout, fanout_end = chunks[b"OIDF"]
        if fanout_end - fanout != 256 * 4:
            raise ValueError("the fanout chunk has the wrong size")
        self.fanout = fanout
        self.size = struct.unpack_from(">L", data, fanout + 255 * 4)[0]
        self.oids, oids_end = chunks[b"OIDL"]
        self.commits, commits_end = chunks[b"CDAT"]
        if oids_end - self.oids != 20 * self.size or commits_end - self.commits != 36 * self.size:
            raise ValueError("the commit chunks do not hold the commits the fanout counts")
        edges = chunks.get(b"EDGE")
        self.edges = edges[0] if edges else None
        self.edges_end = edges[1] if edges else 0

    @classmethod
    def load(cls, objects: Path) -> CommitGraph | None:
        try:
            return cls((objects / "info" / "commit-graph").read_bytes())
        except (OSError, ValueError, KeyError, struct.error, IndexError):
            return None  # absent, split into a chain, or unreadable: read objects instead

    def oid(self, position: int) -> bytes:
        start = self.oids + 20 * position
        return self.data[start : start + 20]

    def position(self, oid: bytes) -> int | None:
        """Binary search within the oid's fanout bucket."""
        first = oid[0]
        low: int = (
            struct.unpack_from(">L", self.data, self.fanout + 4 * (first - 1))[0] if first else 0
        )
        high: int = struct.unpack_from(">L", self.data, self.fanout + 4 * first)[0]
        while low < high:
            middle = (low + high) // 2
            found = self.oid(middle)
            if found < oid:
                low = middle + 1
            elif found > oid:
                high = middle
            else:
                return middle
        return None

    def parents_and_time(self, position: int) -> tuple[list[int], int]:
        start = self.commits + 36 * position
        first, second, high, low = struct.unpack_from(">LLLL", self.data, start + 20)
        time = ((high & 0x3) << 32) | low
        parents = [] if first == _NO_PARENT else [first]
        if second == _NO_PARENT:
            return parents, time
        if not second & _EXTRA_EDGES:
            return [*parents, second], time
        if self.edges is None:
            raise ValueError("a merge's extra parents are not in the file")
        edge = self.edges + 4 * (second & ~_EXTRA_EDGES)
        while True:
            if edge + 4 > self.edges_end:
                raise ValueError("a merge's extra parents run past their chunk")
            (value,) = struct.unpack_from(">L", self.data, edge)
            parents.append(value & ~_LAST_EDGE)
            if value & _LAST_EDGE:
                return parents, time
            edge += 4


class History:
    """Parents and commit times by raw 20-byte id, from the commit-graph or the objects."""

    def __init__(self, store: BaseObjectStore, objects: Path, shallow: set[bytes]) -> None:
        self.store = store
        self.graph = CommitGraph.load(objects)
        self.shallow = shallow  # raw ids whose parents this clone does not have
        self.known: dict[bytes, tuple[tuple[bytes, ...], int]] = {}
        self.positions: dict[bytes, int] = {}  # graph positions learnt from children

    def info(self, oid: bytes) -> tuple[tuple[bytes, ...], int]:
        """(parents, commit time); KeyError when the commit is missing."""
        found = self.known.get(oid)
        if found is not None:
            return found
        found = self._from_graph(oid) if self.graph is not None else None
        if found is None:
            raw = read_raw(self.store, oid, Commit.type_num)
            try:
                found = _parse_commit(raw)
            except (ValueError, IndexError) as error:
                raise DamagedObject(oid.hex(), "not a well-formed commit") from error
        parents, time = found
        if oid in self.shallow:
            parents = ()
        self.known[oid] = (parents, time)
        return parents, time

    def _from_graph(self, oid: bytes) -> tuple[tuple[bytes, ...], int] | None:
        """(parents, time) from the commit-graph; None when it does not list the commit. A
        graph found damaged is dropped, and commits are read from the objects instead."""
        graph = self.graph
        assert graph is not None
        try:
            position = self.positions.get(oid)
            if position is None:
                position = graph.position(oid)
            if position is None:
                return None
            positions, time = graph.parents_and_time(position)
            if any(p >= graph.size for p in positions):
                raise ValueError("a parent's position is outside the graph")
        except (ValueError, struct.error, IndexError):
            self.graph = None
            self.positions.clear()
            return None
        parents = tuple(graph.oid(p) for p in positions)
        self.positions.update(zip(parents, positions, strict=True))
        return parents, time


def _parse_commit(raw: bytes) -> tuple[tuple[bytes, ...], int]:
    parents = []
    index = raw.index(b"\n") + 1  # past "tree <hex>"
    while raw.startswith(b"parent ", index):
        parents.append(bytes.fromhex(raw[index + 7 : index + 47].decode("ascii")))
        index += 48
    committer = raw.index(b"\ncommitter ", index - 1)
    line_end = raw.index(b"\n", committer + 1)
    time = int(raw[committer:line_end].rsplit(b" ", 2)[1])
    return tuple(parents), time


def merge_bases(history: History, one: bytes, two: bytes) -> list[bytes]:
    """All best common ancestors of two commits (`git merge-base --all`), as raw ids."""
    if one == two:
        return [one]
    candidates = _paint_down_to_common(history, one, [two])
    return _remove_redundant(history, candidates)


def _paint_down_to_common(history: History, one: bytes, twos: list[bytes]) -> list[bytes]:
    flags: dict[bytes, int] = {one: ONE}
    queue: list[tuple[int, bytes]] = []
    queued: dict[bytes, int] = {}  # heap entries per commit
    nonstale = 0

    def push(oid: bytes) -> None:
        nonlocal nonstale
        heapq.heappush(queue, (-history.info(oid)[1], oid))
        queued[oid] = queued.get(oid, 0) + 1
        if not flags[oid] & STALE:
            nonstale += 1

    def mark(oid: bytes, added: int) -> None:
        nonlocal nonstale
        before = flags.get(oid, 0)
        if added & STALE and not before & STALE:
            nonstale -= queued.get(oid, 0)
        flags[oid] = before | added

    push(one)
    for two in twos:
        mark(two, TWO)
        push(two)
    results: list[bytes] = []
    while nonstale:
        _, commit = heapq.heappop(queue)
        queued[commit] -= 1
        current = flags[commit]
        if not current & STALE:
            nonstale -= 1
        paint = current & (ONE | TWO | STALE)
        if paint == ONE | TWO:
            if not current & RESULT:
                flags[commit] = current | RESULT
                results.append(commit)
            paint |= STALE
        for parent in history.info(commit)[0]:
            if flags.get(parent, 0) & paint == paint:
                continue
            mark(parent, paint)
            push(parent)
    return [oid for oid in results if not flags[oid] & STALE]  # else an ancestor of another


def _remove_redundant(history: History, candidates: list[bytes]) -> list[bytes]:
    """Drop candidates that are ancestors of another candidate (criss-cross histories)."""
    unique = list(dict.fromkeys(candidates))
    if len(unique) < 2:
        return unique
    keep = []
    for index, candidate in enumerate(unique):
        others = unique[:index] + unique[index + 1 :]
        if not any(_is_ancestor(history, candidate, other) for other in others):
            keep.append(candidate)
    return keep


def _is_ancestor(history: History, ancestor: bytes, descendant: bytes) -> bool:
    """Whether `ancestor` is reachable from `descendant` (a full walk: rare, small inputs)."""
    seen = {descendant}
    stack = [descendant]
    while stack:
        commit = stack.pop()
        if commit == ancestor:
            return True
        for parent in history.info(commit)[0]:
            if parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return False
