"""Merge bases against `git merge-base --all`, on generated histories, with and without a
commit-graph file."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from dulwich.repo import Repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cagr_repo.history import CommitGraph, History, merge_bases

from .gitutil import git


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
    with Repo(str(root)) as repo:
        history = History(repo.object_store, root / ".git" / "objects", set())
        return {b.hex() for b in merge_bases(history, bytes.fromhex(one), bytes.fromhex(two))}


class TestAgainstGit:
    """cagr's merge bases equal git's, for any two commits of any history."""

    @settings(
        max_examples=int(os.environ.get("CAGR_ORACLE_EXAMPLES", "40")),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(dags(), st.booleans())
    def test_merge_bases_equal_git(self, dag: tuple, with_graph: bool) -> None:
        commits, one, two = dag
        root = Path(tempfile.mkdtemp())
        try:
            ids = _build(root, commits)
            if with_graph:
                git(root, "commit-graph", "write", "--reachable")
                assert CommitGraph.load(root / ".git" / "objects") is not None
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
    parents, _ = graph.parents_and_time(position)
    assert sorted(graph.oid(p).hex() for p in parents) == sorted(ids[1:4])
    assert _cagr(tmp_path, ids[4], ids[5]) == {ids[3]}
