"""Fuzzing what reads git's bytes: real files git wrote (index, packs and their indexes, loose
objects, the commit-graph, config), damaged by hypothesis, read by cagr's readers.

A damaged file is never a traceback and never a hang; and what a reader hands back is never a
wrong value: it is git's own reading (the objects `git cat-file` lists, the entries `git
ls-files` lists, the merge bases `git merge-base` finds from the objects, the settings `git
config --list` lists), or the reader refuses with the error its callers turn into *unchecked*.
Files damaged and then given a right checksum again reach the parser behind the checksum.
`CAGR_FUZZ_EXAMPLES` sets the examples per test (25 by default).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cagr_git import worktree
from cagr_git.gitconfig import GitConfigError, parse_config
from cagr_git.history import CommitGraph, GraphDamaged, History, merge_bases
from cagr_git.index import UnreadableIndex, index_file, load_index, unvouched_positions
from cagr_git.objects import (
    COMMIT,
    EMPTY_TREE,
    TREE,
    TYPE_NAMES,
    DamagedObject,
    ObjectReader,
    read_raw,
)
from cagr_git.trees import diff_trees, read_tree
from tests.property.strategies import damaged
from tests.support.fuzz import FUZZ_EXAMPLES, rechecksummed, within
from tests.support.git import git

KINDS = {name.encode(): kind for kind, name in TYPE_NAMES.items()}
FUZZ = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SECONDS = 20.0  # far beyond any read of these small files: past it, a reader hangs


class Made:
    """A repository git wrote, and git's own answers about it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.gitdir = root / ".git"
        self.objects = _every_object(root)
        self.commits = [oid for oid, (kind, _) in self.objects.items() if kind == COMMIT]
        tips = [git(root, "rev-parse", ref).decode().strip() for ref in _TIPS]
        self.pairs = [(a, b) for a in tips for b in tips if a < b]
        self.bases = {
            pair: sorted(_merge_bases_git(root, *pair, "-c", "core.commitGraph=false"))
            for pair in self.pairs
        }


_TIPS = ["main", "side", "octo", "main~7", "side~1", "HEAD~20"]


def _every_object(root: Path) -> dict[bytes, tuple[int, bytes]]:
    out = git(root, "cat-file", "--batch-all-objects", "--batch")
    found: dict[bytes, tuple[int, bytes]] = {}
    at = 0
    while at < len(out):
        end = out.index(b"\n", at)
        oid, kind, size = out[at:end].split(b" ")
        start = end + 1
        found[bytes.fromhex(oid.decode())] = (KINDS[kind], out[start : start + int(size)])
        at = start + int(size) + 1
    return found


def _merge_bases_git(root: Path, one: str, two: str, *options: str) -> list[str] | None:
    result = subprocess.run(
        ["git", *options, "-C", str(root), "merge-base", "--all", one, two],
        capture_output=True,
        check=False,
        timeout=60,
    )
    if result.returncode not in (0, 1):
        return None  # git could not read it either
    return result.stdout.decode().split()


def _build(root: Path) -> None:
    """A history with many versions of a few files (deltas of blobs and trees), a branch merged
    back, an octopus merge (a commit-graph's extra edges), loose and packed objects, a
    commit-graph, an index with intent-to-add and skip-worktree entries, and a config of every
    kind of line git writes."""
    git(root, "init", "-q", "-b", "main")
    stream = []
    lines = [f"line {n} of a file with one line changed per commit" for n in range(40)]
    for number in range(30):
        lines[number % 40] = f"line {number % 40}, version {number}"
        text = "\n".join(lines) + "\n"
        message = f"commit {number}\n"
        stream.append(f"commit refs/heads/main\ncommitter t <t@x> {1_700_000_000 + number} +0000\n")
        stream.append(f"data {len(message)}\n{message}")
        stream.append(f"M 100644 inline src/edited.txt\ndata {len(text)}\n{text}\n")
        stream.append(f"M 100644 inline d{number % 3}/f{number % 5}.txt\ndata 2\n{number % 10}\n\n")
    git(root, "fast-import", "--quiet", stdin="".join(stream).encode())
    git(root, "checkout", "-q", "main")
    for branch, start in (("side", "main~12"), ("two", "main~5"), ("three", "main~3")):
        git(root, "checkout", "-q", "-b", branch, start)
        for number in range(3):
            (root / f"{branch}.txt").write_text(f"{branch} {number}\n")
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", f"{branch} {number}")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-edit", "side")
    git(root, "checkout", "-q", "-b", "octo", "main~2")
    git(root, "merge", "-q", "--no-edit", "two", "three")  # three parents
    git(root, "checkout", "-q", "main")
    git(root, "repack", "-adq")
    git(root, "commit-graph", "write", "--reachable")
    for number in range(3):  # loose objects after the pack
        (root / f"loose{number}.txt").write_text(f"loose {number}\n" * (number + 1))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "loose")
    (root / "later.txt").write_text("intended\n")
    git(root, "add", "-N", "later.txt")
    git(root, "update-index", "--skip-worktree", "d0/f0.txt")
    git(root, "remote", "add", "origin", "https://example.invalid/a/b.git")
    git(root, "config", "branch.main.remote", "origin")
    git(root, "config", "user.name", 'A "quoted" name\\with a backslash')
    git(root, "config", "--add", "x.multi", "one")
    git(root, "config", "--add", "x.multi", "two ; not a comment")
    git(root, "config", 'weird.sub "section".key', "  spaces kept  ")
    git(root, "config", "include.path", "other.config")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    root = tmp_path_factory.mktemp("fuzz") / "repo"
    root.mkdir()
    _build(root)  # the identity and clock come from the suite's GIT_ENV
    return Made(root)


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    """A folder for the examples' files, each example in a folder of its own (`_fresh`)."""
    folder = Path(tempfile.mkdtemp())
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _fresh(folder: Path) -> Path:
    """An empty folder inside `folder` for one example (hypothesis runs many per test)."""
    return Path(tempfile.mkdtemp(dir=folder))


# --- the index -------------------------------------------------------------------------------


def _index_variants(made: Made, folder: Path) -> dict[str, Path]:
    """Git directories holding only an index, as git wrote it: version 2 with extended flags,
    version 4, and split (with its shared index beside it)."""
    variants = {}
    for name, setup in (
        ("v3", []),
        ("v4", [["update-index", "--index-version=4"]]),
        ("split", [["update-index", "--split-index"]]),
    ):
        copy = folder / name
        shutil.copytree(made.root, copy, symlinks=True)
        for args in setup:
            git(copy, *args)
        if name == "split":
            git(copy, "update-index", "--add", "--cacheinfo", f"100644,{'1' * 40},split-added")
        variants[name] = copy / ".git"
    return variants


@pytest.fixture(scope="module")
def indexes(made: Made, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _index_variants(made, tmp_path_factory.mktemp("indexes"))


def _ours(gitdir: Path) -> list[tuple[str, str, int, str, int, int, int, int]] | None:
    try:
        with within(SECONDS):
            index, _ = load_index(str(gitdir))
    except UnreadableIndex:
        return None
    return [
        (
            f"{e.mode:06o}",
            e.sha.hex(),
            e.stage,
            e.path.decode("utf-8", "surrogateescape"),
            e.ctime_ns,
            e.mtime_ns,
            e.ino,
            e.size,
        )
        for e in index.entries
    ]


def _git_entries(gitdir: Path, index: Path) -> list[tuple[str, str, int, str, int, int, int, int]]:
    """git's reading of the index file `index` (`git ls-files --stage --debug`); [] when git
    refuses it."""
    result = subprocess.run(
        ["git", "--git-dir", str(gitdir), "ls-files", "--stage", "--debug", "-z"],
        env={**os.environ, "GIT_INDEX_FILE": str(index)},
        capture_output=True,
        check=False,
        timeout=60,
    )
    if result.returncode != 0:
        return []
    return [
        (
            mode.decode(),
            oid.decode(),
            int(stage),
            path.decode("utf-8", "surrogateescape"),
            int(cs) * 1_000_000_000 + int(cns),
            int(ms) * 1_000_000_000 + int(mns),
            int(ino),
            int(size),
        )
        for mode, oid, stage, path, cs, cns, ms, mns, ino, size in _LS_FILES.findall(result.stdout)
    ]


_LS_FILES = re.compile(
    rb"([0-7]+) ([0-9a-f]{40}) ([0-3])\t([^\0]*)\0  ctime: (\d+):(\d+)\n  mtime: (\d+):(\d+)\n"
    rb"  dev: \d+\tino: (\d+)\n  uid: \d+\tgid: \d+\n  size: (\d+)\tflags: [0-9a-f]+\n"
)


class TestIndex:
    """ "An index file cagr cannot read exactly is unchecked": damaged anywhere, it is refused
    (its checksum, or what git itself refuses); damaged behind a right checksum, what cagr reads
    is what git reads, entry for entry (mode, id, stage, path and stat data)."""

    @FUZZ
    @given(st.data(), st.sampled_from(["v3", "v4", "split"]))
    def test_a_damaged_index_is_refused(
        self, indexes: dict[str, Path], scratch: Path, data: st.DataObject, variant: str
    ) -> None:
        source = indexes[variant]
        folder = _fresh(scratch)
        for shared in source.glob("sharedindex.*"):
            shutil.copy(shared, folder)
        original = (source / "index").read_bytes()
        (folder / "index").write_bytes(data.draw(damaged(original)))
        assert _ours(folder) is None

    @FUZZ
    @given(st.data())
    def test_a_damaged_shared_index_is_refused(
        self, indexes: dict[str, Path], scratch: Path, data: st.DataObject
    ) -> None:
        source = indexes["split"]
        folder = _fresh(scratch)
        shutil.copy(source / "index", folder)
        (shared,) = source.glob("sharedindex.*")
        (folder / shared.name).write_bytes(data.draw(damaged(shared.read_bytes())))
        assert _ours(folder) is None

    @FUZZ
    @given(st.data(), st.sampled_from(["v3", "v4", "split"]), st.booleans())
    def test_the_quick_stat_read_never_crashes_and_agrees_where_the_index_is_read(  # noqa: PLR0917  # fixtures, then what is drawn
        self,
        made: Made,
        indexes: dict[str, Path],
        scratch: Path,
        data: st.DataObject,
        variant: str,
        checksummed: bool,
    ) -> None:
        source = indexes[variant]
        folder = _fresh(scratch)
        for shared in source.glob("sharedindex.*"):
            shutil.copy(shared, folder)
        original = (source / "index").read_bytes()
        mutated = data.draw(damaged(original[:-20], protect=12)) + bytes(20)
        if checksummed:
            mutated = rechecksummed(mutated)
        (folder / "index").write_bytes(mutated)
        root = os.fsencode(made.root) + b"/"
        quick = unvouched_positions(mutated, root, 0o100, 1 << 62)  # never raises
        file = index_file(str(folder))
        assert file is not None
        try:
            entries = file.parse()[0].entries
        except UnreadableIndex:
            return  # a status refuses the index: the quick answer is never used
        if quick is not None:
            assert quick == worktree._unvouched(entries, root, 0o100, 1 << 62, every=True)

    @FUZZ
    @given(st.data(), st.sampled_from(["v3", "v4", "split"]))
    def test_behind_a_right_checksum_cagr_reads_what_git_reads(
        self, indexes: dict[str, Path], scratch: Path, data: st.DataObject, variant: str
    ) -> None:
        source = indexes[variant]
        folder = _fresh(scratch)
        for shared in source.glob("sharedindex.*"):
            shutil.copy(shared, folder)
        original = (source / "index").read_bytes()
        mutated = rechecksummed(data.draw(damaged(original[:-20], protect=12)) + bytes(20))
        (folder / "index").write_bytes(mutated)
        ours = _ours(folder)
        if ours is not None:
            assert ours == _git_entries(source, folder / "index")


# --- packs and their indexes -----------------------------------------------------------------


def _pack_variants(made: Made, folder: Path) -> dict[str, tuple[bytes, bytes]]:
    """(pack, index) pairs of every object, as git writes them: offset deltas with index
    version 2, reference deltas with version 1, and version 2 with every offset in its table
    of 64-bit offsets."""
    names = git(made.root, "rev-list", "--objects", "--all").splitlines()
    ids = b"\n".join(line.split(b" ")[0] for line in names) + b"\n"
    variants = {}
    for name, pack_options, index_version in (
        ("ofs-v2", ["--delta-base-offset"], "2"),
        ("ref-v1", [], "1"),
        ("ofs-v2-large", ["--delta-base-offset"], "2,0"),
    ):
        pack = git(made.root, "pack-objects", "--stdout", "-q", *pack_options, stdin=ids)
        path = folder / f"{name}.pack"
        path.write_bytes(pack)
        git(made.root, "index-pack", f"--index-version={index_version}", str(path))
        variants[name] = (pack, path.with_suffix(".idx").read_bytes())
    return variants


@pytest.fixture(scope="module")
def packs(made: Made, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[bytes, bytes]]:
    return _pack_variants(made, tmp_path_factory.mktemp("packs"))


def _read_all(objects: Path, made: Made, ids: list[bytes] | None = None) -> None:
    """Read every object git knows: each is git's own, or refused as damaged or missing."""
    with within(SECONDS), ObjectReader(str(objects)) as reader:
        for oid in ids if ids is not None else list(made.objects):
            try:
                found = reader.read(oid)
            except (DamagedObject, KeyError):
                continue
            assert found == made.objects[oid], oid.hex()
        for prefix in ("00", "a1", "ff", "5e"):
            reader.ids_with_prefix(prefix)


class TestPacks:
    """ "An object cagr cannot read back as it should be is damaged": whatever part of a pack or
    of its index is damaged, every object read is the one `git cat-file` shows, or it is refused
    (DamagedObject, or missing)."""

    @FUZZ
    @given(st.data(), st.sampled_from(["ofs-v2", "ref-v1", "ofs-v2-large"]), st.booleans())
    def test_a_damaged_pack_or_pack_index(  # noqa: PLR0917  # fixtures, then what is drawn
        self,
        made: Made,
        packs: dict[str, tuple[bytes, bytes]],
        scratch: Path,
        data: st.DataObject,
        variant: str,
        damage_the_index: bool,
    ) -> None:
        pack, index = packs[variant]
        if damage_the_index:
            index = data.draw(damaged(index))
        else:
            pack = data.draw(damaged(pack, protect=12))
        objects = _fresh(scratch)
        (objects / "pack").mkdir()
        (objects / "pack" / "pack-x.pack").write_bytes(pack)
        (objects / "pack" / "pack-x.idx").write_bytes(index)
        _read_all(objects, made)

    @FUZZ
    @given(st.data())
    def test_a_damaged_pack_index_behind_a_right_checksum(
        self, made: Made, packs: dict[str, tuple[bytes, bytes]], scratch: Path, data: st.DataObject
    ) -> None:
        pack, index = packs["ofs-v2-large"]
        index = rechecksummed(data.draw(damaged(index[:-20], protect=8)) + bytes(20))
        objects = _fresh(scratch)
        (objects / "pack").mkdir()
        (objects / "pack" / "pack-x.pack").write_bytes(pack)
        (objects / "pack" / "pack-x.idx").write_bytes(index)
        _read_all(objects, made)


class TestLooseObjects:
    """ "A loose object is read only when its content hashes to its name": damaged, it is refused."""

    @FUZZ
    @given(st.data())
    def test_a_damaged_loose_object(self, made: Made, scratch: Path, data: st.DataObject) -> None:
        loose = sorted(p for p in (made.gitdir / "objects").glob("??/*") if p.is_file())
        path = data.draw(st.sampled_from(loose))
        oid = bytes.fromhex(path.parent.name + path.name)
        objects = _fresh(scratch)
        (objects / path.parent.name).mkdir()
        if data.draw(st.booleans()):  # damage the stream, or what it holds (a right stream)
            content = data.draw(damaged(path.read_bytes()))
        else:
            content = zlib.compress(data.draw(damaged(zlib.decompress(path.read_bytes()))))
        (objects / path.parent.name / path.name).write_bytes(content)
        _read_all(objects, made, [oid])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare repository that damaged objects are written into, by their right ids."""
    root = tmp_path_factory.mktemp("store") / "store.git"
    git(root.parent, "init", "-q", "--bare", str(root))
    return root


def _written(store: Path, kind: str, raw: bytes) -> str:
    """The id git gives `raw` as an object of `kind`, written as it is (`--literally`)."""
    found = git(store, "hash-object", "-t", kind, "-w", "--literally", "--stdin", stdin=raw)
    return found.decode().strip()


def _git_tree(store: Path, oid: str) -> list[tuple[bytes, int, bytes]] | None:
    """git's reading of a tree (`git ls-tree -z`): (name, mode, id) of each entry, in order;
    None when git refuses it."""
    result = subprocess.run(
        ["git", "-C", str(store), "ls-tree", "-z", oid], capture_output=True, check=False
    )
    if result.returncode != 0:
        return None
    entries = []
    for record in result.stdout.split(b"\0")[:-1]:
        meta, _, name = record.partition(b"\t")
        mode, _, child = meta.split(b" ")
        entries.append((name, int(mode, 8), bytes.fromhex(child.decode())))
    return entries


def _git_commit(store: Path, oid: str) -> tuple[list[str], int] | None:
    """git's reading of a commit's parents and the commit time its walks order by (`git
    rev-list --timestamp --parents`), or None when git refuses it."""
    result = subprocess.run(
        ["git", "-C", str(store), "rev-list", "--timestamp", "--parents", "--no-walk", oid],
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        return None
    time, _, ids = result.stdout.decode().strip().partition(" ")
    return ids.split()[1:], int(time)


class TestTreesAndCommits:
    """ "A tree or commit git cannot parse is damaged": written with a right id but damaged
    inside, a tree reads as `git ls-tree` lists it and a commit's parents and time are `git
    show`'s, or cagr calls the object damaged."""

    @FUZZ
    @given(st.data())
    def test_a_damaged_tree(self, made: Made, store: Path, data: st.DataObject) -> None:
        trees = sorted(oid for oid, (kind, _) in made.objects.items() if kind == TREE)
        raw = data.draw(damaged(made.objects[data.draw(st.sampled_from(trees))][1]))
        oid = _written(store, "tree", raw)
        with within(SECONDS), ObjectReader(str(store / "objects")) as reader:
            try:
                ours = read_tree(reader, bytes.fromhex(oid))
            except DamagedObject:
                return
            theirs = _git_tree(store, oid)
            assert theirs is not None
            assert sorted((name, *entry) for name, entry in ours.items()) == sorted(theirs)
            with contextlib.suppress(KeyError):  # its subtrees are not in this store
                diff_trees(reader, bytes.fromhex(oid), EMPTY_TREE)  # no traceback, no hang

    @FUZZ
    @given(st.data())
    def test_a_damaged_commit(self, made: Made, store: Path, data: st.DataObject) -> None:
        raw = data.draw(damaged(made.objects[data.draw(st.sampled_from(made.commits))][1]))
        oid = _written(store, "commit", raw)
        with within(SECONDS), ObjectReader(str(store / "objects")) as reader:
            history = History(lambda sha: read_raw(reader, sha, COMMIT), None, set())
            try:
                parents, time, _ = history.info(bytes.fromhex(oid))
            except DamagedObject:
                return
        theirs = _git_commit(store, oid)
        assert theirs is not None, raw
        assert ([p.hex() for p in parents], time) == theirs  # type: ignore[union-attr]


# --- the commit-graph ------------------------------------------------------------------------


def _graph_answers(graph: CommitGraph | None, made: Made) -> None:
    """Every answer the graph gives is the objects' own; a merge-base walk with it finds what
    `git merge-base --all` finds from the objects."""
    with ObjectReader(str(made.gitdir / "objects")) as reader:
        for one, two in made.pairs:
            history = History(lambda oid: read_raw(reader, oid, COMMIT), graph, set())
            with within(SECONDS):
                found = merge_bases(history, bytes.fromhex(one), bytes.fromhex(two))
            assert sorted(oid.hex() for oid in found) == made.bases[(one, two)]
        if graph is None:
            return
        for oid in made.commits:
            with within(SECONDS):
                position = graph.position(oid)
                if position is None:
                    continue
                try:
                    parents, time, _ = graph.info(position)
                except GraphDamaged:
                    continue
            raw = made.objects[oid][1]
            expected = [line[7:47] for line in raw.split(b"\n") if line.startswith(b"parent ")]
            assert [graph.oid(p).hex().encode() for p in parents] == expected, oid.hex()
            committer = next(line for line in raw.split(b"\n") if line.startswith(b"committer "))
            assert time == int(committer.rsplit(b" ", 2)[1])


def _load(objects: Path) -> CommitGraph | None:
    with within(SECONDS):
        return CommitGraph.load(objects)


class TestCommitGraph:
    """ "A commit-graph found damaged is dropped": damaged anywhere, the graph is not read (or a
    split chain is read up to the damaged layer) and every merge base is the objects' own."""

    @FUZZ
    @given(st.data())
    def test_a_damaged_graph(self, made: Made, scratch: Path, data: st.DataObject) -> None:
        objects = _fresh(scratch)
        (objects / "info").mkdir()
        graph = (made.gitdir / "objects" / "info" / "commit-graph").read_bytes()
        (objects / "info" / "commit-graph").write_bytes(data.draw(damaged(graph)))
        _graph_answers(_load(objects), made)

    @FUZZ
    @given(st.data(), st.integers(0, 3))
    def test_a_damaged_split_chain(
        self, made: Made, split_chain: Path, scratch: Path, data: st.DataObject, which: int
    ) -> None:
        objects = _fresh(scratch)
        shutil.copytree(split_chain / "info", objects / "info")
        chain = objects / "info" / "commit-graphs"
        names = (chain / "commit-graph-chain").read_text().split()
        target = chain / "commit-graph-chain" if which == len(names) else (
            chain / f"graph-{names[min(which, len(names) - 1)]}.graph"
        )  # fmt: skip
        target.write_bytes(data.draw(damaged(target.read_bytes())))
        _graph_answers(_load(objects), made)

    @FUZZ
    @given(st.data())
    def test_behind_a_right_checksum_no_traceback_and_no_hang(
        self, made: Made, scratch: Path, data: st.DataObject
    ) -> None:
        # A graph that is well made but wrong cannot be told from a right one without reading
        # every commit (git trusts it too): here only its shape is damaged.
        objects = _fresh(scratch)
        (objects / "info").mkdir()
        graph = (made.gitdir / "objects" / "info" / "commit-graph").read_bytes()
        mutated = rechecksummed(data.draw(damaged(graph[:-20], protect=8)) + bytes(20))
        (objects / "info" / "commit-graph").write_bytes(mutated)
        loaded = _load(objects)
        with ObjectReader(str(made.gitdir / "objects")) as reader:
            for one, two in made.pairs:
                history = History(lambda oid: read_raw(reader, oid, COMMIT), loaded, set())
                try:
                    with within(SECONDS):
                        merge_bases(history, bytes.fromhex(one), bytes.fromhex(two))
                except (KeyError, DamagedObject):
                    continue  # a position that names no commit: unchecked, as a missing one


@pytest.fixture(scope="module")
def split_chain(made: Made, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the objects' `info` with a split commit-graph chain of three layers."""
    copy = tmp_path_factory.mktemp("chain") / "repo"
    shutil.copytree(made.root, copy, symlinks=True)
    (copy / ".git" / "objects" / "info" / "commit-graph").unlink()
    for start in ("main~20", "main~5", "--all"):
        revisions = ["--all"] if start == "--all" else [start]
        listed = git(copy, "rev-list", *revisions)
        git(copy, "commit-graph", "write", "--split=no-merge", "--stdin-commits", stdin=listed)
    names = (copy / ".git/objects/info/commit-graphs/commit-graph-chain").read_text().split()
    assert len(names) == 3, names
    return copy / ".git" / "objects"


# --- config ----------------------------------------------------------------------------------


def _config_ours(data: bytes) -> list[tuple[str, str | None]] | None:
    try:
        with within(SECONDS):
            found = parse_config(data, "config")
    except GitConfigError:
        return None
    return [
        (".".join(part for part in (section, sub, name) if part is not None).lstrip("."), value)
        for (section, sub, name), value in found
    ]


def _config_git(path: Path) -> list[tuple[str, str | None]] | None:
    result = subprocess.run(
        ["git", "config", "--file", str(path), "--no-includes", "--list", "-z"],
        capture_output=True,
        check=False,
        timeout=60,
    )
    if result.returncode != 0:
        return None
    entries = []
    for item in result.stdout.split(b"\0")[:-1]:
        key, newline, value = item.partition(b"\n")
        entries.append(
            (
                key.decode("utf-8", "surrogateescape"),
                value.decode("utf-8", "surrogateescape") if newline else None,
            )
        )
    return entries


class TestConfig:
    """ "A configuration git refuses is refused": a config file git wrote, damaged, reads as
    `git config --list` reads it, or is refused where git refuses it."""

    @FUZZ
    @given(st.data())
    def test_a_damaged_config(self, made: Made, scratch: Path, data: st.DataObject) -> None:
        original = (made.gitdir / "config").read_bytes()
        mutated = data.draw(damaged(original))
        path = _fresh(scratch) / "config"
        path.write_bytes(mutated)
        assert _config_ours(mutated) == _config_git(path)


def test_the_files_fuzzed_are_what_they_say(made: Made, indexes: dict[str, Path]) -> None:
    """The fixtures hold what the fuzzing needs: deltas, an octopus's extra edges, large
    offsets, extended index flags and a split index."""
    graph = (made.gitdir / "objects" / "info" / "commit-graph").read_bytes()
    chunks = {graph[8 + 12 * n : 12 + 12 * n] for n in range(graph[6])}
    assert {b"OIDF", b"OIDL", b"CDAT", b"EDGE", b"GDA2"} <= chunks
    assert list(indexes["split"].glob("sharedindex.*"))
    assert struct.unpack(">L", (indexes["v4"] / "index").read_bytes()[4:8]) == (4,)
    assert _ours(indexes["v3"]) == _git_entries(indexes["v3"], indexes["v3"] / "index")
