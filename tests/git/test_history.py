"""Merge bases against `git merge-base --all`, on generated histories, with and without a
commit-graph file."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cagr_git.history import CommitGraph, History, merge_bases
from cagr_git.objects import COMMIT, ObjectReader, read_raw
from tests.support.git import git


@st.composite
def dags(draw: st.DrawFn) -> tuple[list[tuple[int, list[int]]], int, int]:
    """Commits in topological order: (time offset, parent indices); and two tips to compare."""
    count = draw(st.integers(min_value=2, max_value=25))
    commits: list[tuple[int, list[int]]] = [(0, [])]
    for index in range(1, count):
        parents = draw(
            st.lists(
                st.integers(0, index - 1),
                min_size=0 if draw(st.integers(0, 9)) == 0 else 1,
                max_size=3,
                unique=True,
            )
        )
        skew = draw(st.integers(-3, 10))  # mostly forward in time, sometimes a skewed clock
        commits.append((commits[index - 1][0] + skew, parents))
    one = draw(st.integers(0, count - 1))
    two = draw(st.integers(0, count - 1))
    return commits, one, two


@st.composite
def crossing_lines(draw: st.DrawFn) -> tuple[list[tuple[int, list[int]]], int, int]:
    """Parallel lines of work that merge each other often (criss-cross histories, where two
    tips have several merge bases), with clocks often skewed (so the walk finds candidates that
    are ancestors of others); the two tips compared are those of two lines."""
    lines = draw(st.integers(2, 4))
    commits: list[tuple[int, list[int]]] = [(0, [])]
    tips = [0] * lines
    for _ in range(draw(st.integers(lines, 30))):
        line = draw(st.integers(0, lines - 1))
        merged = draw(st.lists(st.integers(0, lines - 1), max_size=2, unique=True))
        parents = list(dict.fromkeys([tips[line], *(tips[other] for other in merged)]))
        skew = draw(st.integers(-10, 10))
        commits.append((commits[-1][0] + skew, parents))
        tips[line] = len(commits) - 1
    one, two = draw(st.lists(st.integers(0, lines - 1), min_size=2, max_size=2, unique=True))
    return commits, tips[one], tips[two]


@st.composite
def merged_bases(draw: st.DrawFn) -> tuple[list[tuple[int, list[int]]], int, int]:
    """Two merges of several "base" commits, some of which descend from others, with times at
    random (clocks skewed at will): git's walk finds candidates that are ancestors of other
    candidates, and removing them is what is tested."""
    count = draw(st.integers(2, 6))
    commits: list[tuple[int, list[int]]] = [(draw(st.integers(0, 30)), [])]
    for index in range(1, count + 1):
        parent = draw(st.integers(0, index - 1))
        commits.append((draw(st.integers(0, 30)), [parent]))
    bases = list(range(1, count + 1))
    tips = []
    for _ in range(2):
        merged = draw(st.lists(st.sampled_from(bases), min_size=2, max_size=count, unique=True))
        between = draw(st.lists(st.integers(0, 30), max_size=3))  # commits on the way
        for time in between:
            commits.append((time, [merged[0]]))
            merged[0] = len(commits) - 1
        commits.append((draw(st.integers(0, 30)), merged))
        tips.append(len(commits) - 1)
    return commits, tips[0], tips[1]


def _build(root: Path, commits: list[tuple[int, list[int]]]) -> list[str]:
    git(root, "init", "-q", "-b", "main")
    stream = []
    for index, (offset, parents) in enumerate(commits):
        stream.append(f"commit refs/heads/c{index}\nmark :{index + 1}\n")
        message = f"c{index}"
        stream.append(f"committer t <t@x> {1_700_000_000 + offset * 60} +0000\n")
        stream.append(f"data {len(message)}\n{message}\n")
        if parents:
            stream.append(f"from :{parents[0] + 1}\n")
            stream.extend(f"merge :{p + 1}\n" for p in parents[1:])
        stream.append(f"M 100644 inline f{index}\ndata 1\nx\n\n")
    git(root, "fast-import", "--quiet", stdin="".join(stream).encode())
    return [git(root, "rev-parse", f"c{i}").decode().strip() for i in range(len(commits))]


def _cagr(root: Path, one: str, two: str) -> set[str]:
    with ObjectReader(str(root / ".git" / "objects")) as objects:
        graph = CommitGraph.load(root / ".git" / "objects")
        history = History(lambda oid: read_raw(objects, oid, COMMIT), graph, set())
        return {b.hex() for b in merge_bases(history, bytes.fromhex(one), bytes.fromhex(two))}


GRAPHS = ("none", "file", "file-v1", "partial", "chain", "chain-v1-below", "chain-v1-above")


def _write_graph(root: Path, ids: list[str], kind: str, split: int) -> None:
    """A commit-graph of this kind: one file (generation v2, git's default, or v1), one file
    listing only the ancestors of commit `split`, or a split chain whose lower layer holds
    those ancestors (either layer written with v1 generations, which disables corrected dates)."""
    v1 = ("-c", "commitGraph.generationVersion=1")
    if kind in ("file", "file-v1"):
        git(root, *(v1 if kind == "file-v1" else ()), "commit-graph", "write", "--reachable")
    elif kind == "partial":
        git(root, "commit-graph", "write", "--stdin-commits", stdin=ids[split].encode())
    elif kind.startswith("chain"):
        below = v1 if kind == "chain-v1-below" else ()
        above = v1 if kind == "chain-v1-above" else ()
        git(root, *below, "commit-graph", "write", "--split=no-merge", "--stdin-commits",
            stdin=ids[split].encode())  # fmt: skip
        git(root, *above, "commit-graph", "write", "--split=no-merge", "--reachable")
        assert (root / ".git" / "objects" / "info" / "commit-graphs").is_dir()
    if kind != "none":
        assert CommitGraph.load(root / ".git" / "objects") is not None


class TestAgainstGit:
    """cagr's merge bases equal git's, for any two commits of any history, whatever
    commit-graph the repository has."""

    @settings(
        max_examples=int(os.environ.get("CAGR_ORACLE_EXAMPLES", "40")),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(st.one_of(dags(), crossing_lines(), merged_bases()), st.sampled_from(GRAPHS), st.data())
    def test_merge_bases_equal_git(self, dag: tuple, graph: str, data: st.DataObject) -> None:
        commits, one, two = dag
        split = data.draw(st.integers(0, len(commits) - 1))
        root = Path(tempfile.mkdtemp())
        try:
            ids = _build(root, commits)
            _write_graph(root, ids, graph, split)
            expected = set(
                git(root, "merge-base", "--all", ids[one], ids[two], check=False).decode().split()
            )
            assert _cagr(root, ids[one], ids[two]) == expected
        finally:
            shutil.rmtree(root, ignore_errors=True)


def test_commit_graph_with_octopus_merges(tmp_path: Path) -> None:
    ids = _build(tmp_path, [(0, []), (1, [0]), (2, [0]), (3, [0]), (4, [1, 2, 3]), (5, [3])])
    git(tmp_path, "commit-graph", "write", "--reachable")
    graph = CommitGraph.load(tmp_path / ".git" / "objects")
    assert graph is not None
    position = graph.position(bytes.fromhex(ids[4]))
    assert position is not None
    parents, _, _ = graph.info(position)
    assert sorted(graph.oid(p).hex() for p in parents) == sorted(ids[1:4])
    assert _cagr(tmp_path, ids[4], ids[5]) == {ids[3]}


def _criss_cross(root: Path) -> list[str]:
    """Two merges of the same two commits, each with a line of commits below it."""
    commits = [(0, [])] + [(i, [i - 1]) for i in range(1, 8)]
    commits += [(8, [3]), (9, [7, 8]), (10, [8, 7])]
    return _build(root, commits)


def test_a_chain_missing_its_top_layer_is_read_up_to_it(tmp_path: Path) -> None:
    ids = _criss_cross(tmp_path)
    _write_graph(tmp_path, ids, "chain", 5)
    folder = tmp_path / ".git" / "objects" / "info" / "commit-graphs"
    top = (folder / "commit-graph-chain").read_text().split()[-1]
    (folder / f"graph-{top}.graph").unlink()
    graph = CommitGraph.load(tmp_path / ".git" / "objects")
    assert graph is not None
    assert len(graph.layers) == 1  # as git reads it: the layers below the missing one
    expected = set(git(tmp_path, "merge-base", "--all", ids[9], ids[10]).decode().split())
    assert len(expected) == 2
    assert _cagr(tmp_path, ids[9], ids[10]) == expected


def test_a_graph_with_an_impossible_parent_is_dropped(tmp_path: Path) -> None:
    ids = _criss_cross(tmp_path)
    expected = set(git(tmp_path, "merge-base", "--all", ids[9], ids[10]).decode().split())
    git(tmp_path, "commit-graph", "write", "--reachable")
    path = tmp_path / ".git" / "objects" / "info" / "commit-graph"
    graph = CommitGraph.load(tmp_path / ".git" / "objects")
    assert graph is not None
    layer = graph.layers[0]
    position = graph.position(bytes.fromhex(ids[7]))
    assert position is not None
    data = bytearray(path.read_bytes())
    data[layer.commits + 36 * position + 20 : layer.commits + 36 * position + 24] = (
        layer.size + 5
    ).to_bytes(4, "big")  # its first parent: a position past the last commit
    path.write_bytes(bytes(data))  # git itself stops here: "invalid parent position"
    assert _cagr(tmp_path, ids[9], ids[10]) == expected  # walked again from the objects
