"""Commit history for merge bases: parents, commit times and generation numbers, and git's walk.

Commits come from git's commit-graph when it lists them (a single `objects/info/commit-graph`
file, else the split chain in `objects/info/commit-graphs/`), as positions: parents, times and
generation numbers are read from the file, no object is parsed. Other commits are parsed from
their raw objects. The walk is git's own (`git merge-base --all`): "paint down to common" finds
the commits reachable from both sides, newest first; then those that are ancestors of another
are removed, with generation numbers as a cut-off when the commit-graph has them and git's
per-candidate paint when it does not. A commit-graph found damaged is dropped and the walk is
done again from the objects, never half from each. A graph file whose checksum does not hold
is not read at all (git reads it and trusts it; `git commit-graph verify` would not).
"""

from __future__ import annotations

import hashlib
import heapq
import os
import re
import struct
from binascii import unhexlify
from collections.abc import Callable

from .files import open_regular
from .objects import DamagedObject

_NO_PARENT = 0x70000000
_EXTRA_EDGES = 0x80000000
_LAST_EDGE = 0x80000000
_OVERFLOW = 0x80000000  # a corrected commit date offset kept in the overflow chunk
INFINITY = 0xFFFFFFFFFFFFFFFF  # git's generation of a commit the graph does not list
ONE, TWO, STALE, RESULT = 1, 2, 4, 8
QUEUED = 16  # flags above RESULT count a commit's entries in the walk's queue
_CHUNK = struct.Struct(">4sQ")
_PARENTS_AND_TIME = struct.Struct(">LLLL")
_OFFSET = struct.Struct(">L")

Node = int | bytes  # a commit: its global position in the commit-graph, or its raw 20-byte id
ReadCommit = Callable[[bytes], bytes]  # raw id -> the raw commit object; KeyError when missing


def _read(path: str) -> bytes:
    with open(open_regular(path), "rb") as handle:
        return handle.read()


class GraphDamaged(Exception):
    """A commit-graph entry that cannot be right (a parent outside the graph, say)."""


class GraphLayer:
    """One commit-graph file: a single `commit-graph`, or one layer of a split chain.

    Positions are global: a layer's first commit comes after every commit of the layers below
    it (`offset`), and parent positions may point into those layers.
    """

    def __init__(self, data: bytes, offset: int, bases: list[bytes]) -> None:
        """ValueError (or struct.error, IndexError) unless the file's checksum holds, every
        chunk read lies inside the file and the layers below are the ones this layer was
        written on (`bases`, their hashes)."""
        if data[:4] != b"CGPH" or data[4] != 1 or data[5] != 1:
            raise ValueError("not a version 1, SHA-1 commit-graph")
        if hashlib.sha1(memoryview(data)[:-20], usedforsecurity=False).digest() != data[-20:]:
            raise ValueError("a damaged commit-graph (its checksum does not match)")
        count = data[6]
        if data[7] != len(bases):
            raise ValueError("the file was written on another number of layers")
        table = [_CHUNK.unpack_from(data, 8 + 12 * index) for index in range(count + 1)]
        end = len(data) - 20  # the trailing checksum
        offsets = [offset for _, offset in table]
        if offsets != sorted(offsets) or offsets[-1] > end:
            raise ValueError("the chunk table does not fit the file")
        chunks = {name: (start, following) for (name, start), following in
                  zip(table, offsets[1:], strict=False)}  # fmt: skip
        self.data = data
        self.offset = offset
        fanout, fanout_end = chunks[b"OIDF"]
        if fanout_end - fanout != 256 * 4:
            raise ValueError("the fanout chunk has the wrong size")
        self.fanout = fanout
        self.size: int = struct.unpack_from(">L", data, fanout + 255 * 4)[0]
        self.oids, oids_end = chunks[b"OIDL"]
        self.commits, commits_end = chunks[b"CDAT"]
        if oids_end - self.oids != 20 * self.size or commits_end - self.commits != 36 * self.size:
            raise ValueError("the commit chunks do not hold the commits the fanout counts")
        edges = chunks.get(b"EDGE")
        self.edges = edges[0] if edges else None
        self.edges_end = edges[1] if edges else 0
        if bases:
            start, stop = chunks[b"BASE"]
            if data[start:stop] != b"".join(bases):
                raise ValueError("the layers below are not the ones this layer was written on")
        dates = chunks.get(b"GDA2")
        if dates is not None and dates[1] - dates[0] != 4 * self.size:
            raise ValueError("the generation data chunk has the wrong size")
        self.dates = dates[0] if dates else None
        overflow = chunks.get(b"GDO2")
        self.overflow = overflow if overflow else (0, 0)

    def oid(self, local: int) -> bytes:
        start = self.oids + 20 * local
        return self.data[start : start + 20]

    def find(self, oid: bytes) -> int | None:
        """The oid's local position: a binary search within its fanout bucket."""
        first = oid[0]
        data = self.data
        low: int = struct.unpack_from(">L", data, self.fanout + 4 * (first - 1))[0] if first else 0
        high: int = struct.unpack_from(">L", data, self.fanout + 4 * first)[0]
        oids = self.oids
        while low < high:
            middle = (low + high) // 2
            start = oids + 20 * middle
            found = data[start : start + 20]
            if found < oid:
                low = middle + 1
            elif found > oid:
                high = middle
            else:
                return middle
        return None


class CommitGraph:
    """The commit-graph as git reads it: the single file, else the longest valid prefix of the
    split chain. Read-only."""

    def __init__(self, layers: list[GraphLayer], corrected_dates: bool) -> None:
        self.layers = layers
        self.size = sum(layer.size for layer in layers)
        # Corrected commit dates only when every layer has them (git disables a mixed chain).
        top = layers[-1]
        first = struct.unpack_from(">L", top.data, top.commits + 28)[0] >> 2 if top.size else 0
        self.generations = bool(first)  # graphs by gits before 2.18 wrote no generations
        self.corrected = (
            corrected_dates
            and self.generations
            and all(layer.dates is not None for layer in layers)
        )

    @classmethod
    def load(
        cls, objects: str | os.PathLike[str], corrected_dates: bool = True
    ) -> CommitGraph | None:
        """None when there is no usable graph: absent, unreadable, or damaged at its base."""
        info = os.path.join(objects, "info")
        layers: list[GraphLayer] = []
        try:
            layers.append(GraphLayer(_read(os.path.join(info, "commit-graph")), 0, []))
        except (OSError, ValueError, KeyError, struct.error, IndexError):
            layers = cls._chain(os.path.join(info, "commit-graphs"))
        return cls(layers, corrected_dates) if layers else None

    @staticmethod
    def _chain(folder: str) -> list[GraphLayer]:
        """The layers of a split chain, bottom first, up to the first that cannot be read."""
        try:
            names = _read(os.path.join(folder, "commit-graph-chain")).decode("ascii").split()
        except (OSError, UnicodeDecodeError):
            return []
        layers: list[GraphLayer] = []
        bases: list[bytes] = []
        offset = 0
        for name in names:
            try:
                raw = bytes.fromhex(name)
                if len(raw) != 20:
                    break
                data = _read(os.path.join(folder, f"graph-{name}.graph"))
                if data[-20:] != raw:
                    break  # a layer is named by its checksum: this is not that layer
                layer = GraphLayer(data, offset, list(bases))
            except (OSError, ValueError, KeyError, struct.error, IndexError):
                break
            layers.append(layer)
            bases.append(raw)
            offset += layer.size
        return layers

    def _layer(self, position: int) -> GraphLayer:
        if position < self.layers[0].size:
            return self.layers[0]  # the usual case: one file, or the chain's bottom layer
        for layer in self.layers:
            if position < layer.offset + layer.size:
                return layer
        raise GraphDamaged("a position outside the graph")

    def position(self, oid: bytes) -> int | None:
        for layer in reversed(self.layers):
            local = layer.find(oid)
            if local is not None:
                return layer.offset + local
        return None

    def oid(self, position: int) -> bytes:
        layer = self._layer(position)
        return layer.oid(position - layer.offset)

    def first_parent(self, position: int) -> int | None:
        """The first parent's position (None: a root commit), and nothing else read."""
        layer = self._layer(position)
        at = layer.commits + 36 * (position - layer.offset) + 20
        (first,) = _OFFSET.unpack_from(layer.data, at)
        if first == _NO_PARENT:
            return None
        if first >= layer.offset + layer.size:
            raise GraphDamaged("a parent's position is outside the graph")
        return int(first)

    def info(self, position: int) -> tuple[tuple[int, ...], int, int]:
        """(parent positions, commit time, generation) of the commit at `position`."""
        layer = self._layer(position)
        local = position - layer.offset
        data = layer.data
        first, second, high, low = _PARENTS_AND_TIME.unpack_from(
            data, layer.commits + 36 * local + 20
        )
        time = ((high & 0x3) << 32) | low
        limit = layer.offset + layer.size  # parents lie in this layer or below
        if first == _NO_PARENT:
            parents: tuple[int, ...] = ()
        elif second == _NO_PARENT:
            if first >= limit:
                raise GraphDamaged("a parent's position is outside the graph")
            parents = (first,)
        else:
            parents = (first, second) if not second & _EXTRA_EDGES else (
                first, *self._extra(layer, second & ~_EXTRA_EDGES)
            )  # fmt: skip
            if max(parents) >= limit:
                raise GraphDamaged("a parent's position is outside the graph")
        if not self.corrected:
            return parents, time, high >> 2 if self.generations else INFINITY
        (offset,) = _OFFSET.unpack_from(data, layer.dates + 4 * local)  # type: ignore[operator]
        if offset & _OVERFLOW:
            start = layer.overflow[0] + 8 * (offset & ~_OVERFLOW)
            if start + 8 > layer.overflow[1]:
                raise GraphDamaged("a corrected date's overflow lies outside its chunk")
            (offset,) = struct.unpack_from(">Q", data, start)
        return parents, time, time + offset

    @staticmethod
    def _extra(layer: GraphLayer, index: int) -> list[int]:
        if layer.edges is None:
            raise GraphDamaged("a merge's extra parents are not in the file")
        parents = []
        edge = layer.edges + 4 * index
        while True:
            if edge + 4 > layer.edges_end:
                raise GraphDamaged("a merge's extra parents run past their chunk")
            (value,) = struct.unpack_from(">L", layer.data, edge)
            parents.append(value & ~_LAST_EDGE)
            if value & _LAST_EDGE:
                return parents
            edge += 4


class History:
    """Parents, commit times and generation numbers of commits, by node (see `Node`)."""

    def __init__(
        self, read_commit: ReadCommit, graph: CommitGraph | None, shallow: set[bytes]
    ) -> None:
        self.read_commit = read_commit
        # git reads no commit-graph in a shallow clone: its parents are not the graph's.
        self.graph = graph if not shallow else None
        self.shallow = shallow  # raw ids whose parents this clone does not have
        self.known: dict[Node, tuple[tuple[Node, ...], int, int]] = {}

    def node(self, oid: bytes) -> Node:
        position = self.graph.position(oid) if self.graph is not None else None
        return oid if position is None else position

    def oid(self, node: Node) -> bytes:
        if isinstance(node, bytes):
            return node
        assert self.graph is not None
        return self.graph.oid(node)

    def info(self, node: Node) -> tuple[tuple[Node, ...], int, int]:
        """(parents, commit time, generation); KeyError when the commit is missing."""
        found = self.known.get(node)
        if found is not None:
            return found
        if isinstance(node, int):
            assert self.graph is not None
            found = self.graph.info(node)
        else:
            raw = self.read_commit(node)
            try:
                _, oids, time = parse_commit(raw)
            except ValueError as error:
                raise DamagedObject(node.hex(), f"not a well-formed commit ({error})") from error
            parents = () if node in self.shallow else tuple(self.node(p) for p in oids)
            found = (parents, time, INFINITY)
        self.known[node] = found
        return found

    @property
    def by_generation(self) -> bool:
        """Whether git orders its first walk by generation (corrected commit dates) first."""
        return self.graph is not None and self.graph.generations and self.graph.corrected

    @property
    def generations(self) -> bool:
        return self.graph is not None and self.graph.generations


def parse_commit(raw: bytes) -> tuple[bytes, tuple[bytes, ...], int]:
    """(tree, parents, commit time) of a raw commit as git reads them (`parse_commit_buffer`):
    ValueError where git calls the commit bogus (no `tree` line, a bad `parent` line). The time
    is `parse_commit_date`'s: the number after the committer's `>`, read as `strtoumax` reads
    it (git 2.39's), or 0 when the `author` and `committer` lines are not where git looks."""
    size = len(raw)
    if size <= 46 or not raw.startswith(b"tree ") or raw[45] != 0x0A:
        raise ValueError("a commit that does not start with its tree")
    tree = unhexlify(raw[5:45])
    parents = []
    at = 46
    while at + 47 < size and raw.startswith(b"parent ", at):
        if size <= at + 48 or raw[at + 47] != 0x0A:
            raise ValueError("a bad parent line")
        parents.append(unhexlify(raw[at + 7 : at + 47]))
        at += 48
    return tree, tuple(parents), _commit_date(raw, at)


_TIMESTAMP = re.compile(rb"[ \t\n\v\f\r]*([+-]?)([0-9]*)")  # what strtoumax reads
_MAX_TIME = (1 << 64) - 1  # git's timestamp_t, a uintmax_t


def _commit_date(raw: bytes, at: int) -> int:
    """git 2.39's parse_commit_date() from `at`, just past the parents: the `author` line, then
    a line starting `committer`, then the number after the first `>` from there, read by
    `strtoumax` (a line end must follow it somewhere); 0 when any of it is missing."""
    size = len(raw)
    if at + 6 >= size or raw[at : at + 6] != b"author":
        return 0
    line = raw.find(b"\n", at)
    at = size if line == -1 else line + 1
    if at + 9 >= size or raw[at : at + 9] != b"committer":
        return 0
    close = raw.find(b">", at)
    if close == -1 or close + 1 >= size:
        return 0
    end = raw.find(b"\n", close + 1)
    if end == -1 or end + 1 >= size:
        return 0
    number = _TIMESTAMP.match(raw, close + 1)
    assert number is not None  # every part of it may be empty
    sign, digits = number.groups()
    if not digits:
        return 0
    value = int(digits)
    if value > _MAX_TIME:
        return _MAX_TIME  # strtoumax saturates
    return (-value) & _MAX_TIME if sign == b"-" else value


def merge_bases(history: History, one: bytes, two: bytes) -> list[bytes]:
    """All best common ancestors of two commits (`git merge-base --all`), as raw ids.

    A commit-graph found damaged midway is dropped, and the walk starts again without it.
    """
    try:
        return _merge_bases(history, one, two)
    except GraphDamaged:
        history.graph = None
        history.known.clear()
        return _merge_bases(history, one, two)


def _merge_bases(history: History, one: bytes, two: bytes) -> list[bytes]:
    if one == two:
        return [one]
    first, second = history.node(one), history.node(two)
    found, flags = _paint_down_to_common(history, first, [second], 0)
    candidates = [node for node in found if not flags[node] & STALE]
    if len(candidates) > 1:
        with_generations = history.generations and any(
            history.info(node)[2] < INFINITY for node in candidates
        )
        remove = _remove_redundant_with_gen if with_generations else _remove_redundant_no_gen
        candidates = remove(history, candidates)
    return [history.oid(node) for node in candidates]


def _paint_down_to_common(
    history: History, one: Node, twos: list[Node], min_generation: int
) -> tuple[list[Node], dict[Node, int]]:
    """git's paint_down_to_common: the commits reached from `one` and from some of `twos`
    before a stale one (newest first by date, ties in the order found), and every commit's flags.

    The queue is ordered by generation, then commit time, when git's is: with a cut-off
    (`min_generation`) or corrected commit dates; else by commit time alone. Equal keys leave
    in the order they came, as in git's priority queue.
    """
    known = history.known
    info = history.info
    by_generation = bool(min_generation) or history.by_generation
    # Each commit's flags, plus QUEUED times the number of its entries in the queue (a commit
    # painted stale takes its queued entries out of the count of those that are not).
    flags: dict[Node, int] = {one: ONE + QUEUED}
    for two in twos:
        flags[two] = (flags.get(two, 0) | TWO) + QUEUED
    queue: list[tuple[int, int, int, Node, tuple[tuple[Node, ...], int, int]]] = []
    for counter, node in enumerate([one, *twos]):
        entry = info(node)
        queue.append((-entry[2] if by_generation else 0, -entry[1], counter, node, entry))
    heapq.heapify(queue)
    counter = len(queue)
    nonstale = len(queue)
    results: list[tuple[int, int, Node]] = []
    push, replace = heapq.heappush, heapq.heapreplace
    # The loop runs once per commit walked: lookups are inlined, git's rules kept. The first
    # parent replaces its child at the top of the heap (one sift instead of a pop and a push).
    while nonstale:
        _, _, _, commit, (parents, time, generation) = top = queue[0]
        current = flags[commit] - QUEUED
        flags[commit] = current
        if not current & STALE:
            nonstale -= 1
        if by_generation and generation < min_generation:
            break
        paint = current & (ONE | TWO | STALE)
        if paint == ONE | TWO:
            if not current & RESULT:
                flags[commit] = current | RESULT
                results.append((-time, len(results), commit))
            paint |= STALE
        for parent in parents:
            before = flags.get(parent, 0)
            if before & paint == paint:
                continue
            if paint & STALE and not before & STALE:
                nonstale -= before >> 4  # its queued entries are stale from now on
            now = flags[parent] = (before | paint) + QUEUED
            entry = known.get(parent) or info(parent)
            counter += 1
            item = (-entry[2] if by_generation else 0, -entry[1], counter, parent, entry)
            if queue[0] is top:
                replace(queue, item)
            else:
                push(queue, item)
            if not now & STALE:
                nonstale += 1
        if queue and queue[0] is top:
            heapq.heappop(queue)
    results.sort()  # newest first; equal times in the order found, as git's list keeps them
    return [node for _, _, node in results], flags


def _remove_redundant_no_gen(history: History, candidates: list[Node]) -> list[Node]:
    """git's remove_redundant_no_gen: per candidate, one paint against the others; a candidate
    the others reach, or one that reaches another, is redundant."""
    redundant = [False] * len(candidates)
    for index, candidate in enumerate(candidates):
        if redundant[index]:
            continue
        others = [i for i in range(len(candidates)) if i != index and not redundant[i]]
        minimum = min(history.info(candidates[i])[2] for i in [index, *others])
        _, flags = _paint_down_to_common(
            history, candidate, [candidates[i] for i in others], minimum
        )
        if flags[candidate] & TWO:
            redundant[index] = True
        for other in others:
            if flags[candidates[other]] & ONE:
                redundant[other] = True
    return [node for node, gone in zip(candidates, redundant, strict=True) if not gone]


def _remove_redundant_with_gen(history: History, candidates: list[Node]) -> list[Node]:
    """git's remove_redundant_with_gen: one depth-first walk from the candidates' parents marks
    what they reach, never below the lowest generation of a candidate not yet reached."""
    info = history.info

    def order(node: Node) -> tuple[int, int]:
        _, time, generation = info(node)
        return generation, time

    ordered = sorted(candidates, key=order)
    min_generation = info(ordered[0])[2]
    flags: dict[Node, int] = {}
    starts: list[Node] = []
    for candidate in candidates:
        flags[candidate] = flags.get(candidate, 0) | RESULT
    for candidate in candidates:
        for parent in info(candidate)[0]:
            if not flags.get(parent, 0) & STALE:
                flags[parent] = flags.get(parent, 0) | STALE
                starts.append(parent)
    starts.sort(key=order)
    for start in starts:
        flags[start] &= ~STALE  # walked through below, so not stale yet
    independent = len(candidates)
    lowest = 0  # the first candidate, by generation, not yet known to be reached
    for start in reversed(starts):
        if independent <= 1:
            break
        stack = [start]
        flags[start] |= STALE
        while stack:
            commit = stack[-1]
            if flags[commit] & RESULT:
                flags[commit] &= ~RESULT
                independent -= 1
                if independent <= 1:
                    break
                if commit == ordered[lowest]:
                    while lowest < len(ordered) - 1 and flags.get(ordered[lowest], 0) & STALE:
                        lowest += 1
                    min_generation = info(ordered[lowest])[2]
            parents, _, generation = info(commit)
            if generation < min_generation:
                stack.pop()
                continue
            for parent in parents:
                if not flags.get(parent, 0) & STALE:
                    flags[parent] = flags.get(parent, 0) | STALE
                    stack.append(parent)
                    break
            else:
                stack.pop()
    return [node for node in candidates if not flags.get(node, 0) & STALE]
