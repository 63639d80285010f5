"""Revisions as targets, against `git rev-parse --verify REV^{commit}` (git is the oracle)."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from cagr_git.discover import find_checkout
from cagr_git.repository import open_repo
from cagr_git.revisions import Resolved, RevisionProblem, resolve_revision
from tests.support.git import commit, git, write


def rev_parse(root: Path, text: str) -> str | None:
    """git's answer for the commit `text` names, or None when git names none."""
    result = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--verify", "-q", f"{text}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    return result.stdout.decode().strip() if result.returncode == 0 else None


def resolve(root: Path, text: str) -> Resolved:
    with open_repo(find_checkout(str(root))) as repo:
        return resolve_revision(repo, text)


def problem(root: Path, text: str) -> RevisionProblem:
    with pytest.raises(RevisionProblem) as caught:
        resolve(root, text)
    return caught.value


@pytest.fixture
def history(repo: Path) -> Path:
    """main: a - b - c - merge(side) - d, tags v1.0 (annotated, at c) and light (at b)."""
    for name in ("a", "b", "c"):
        write(repo, f"{name}.txt", name)
        commit(repo, name)
    git(repo, "tag", "-a", "-m", "release", "v1.0", "HEAD")
    git(repo, "tag", "light", "HEAD~1")
    git(repo, "checkout", "-q", "-b", "side", "HEAD~1")
    write(repo, "side.txt", "side")
    commit(repo, "side")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    write(repo, "d.txt", "d")
    commit(repo, "d")
    return repo


REVISIONS = [
    "HEAD",
    "@",
    "HEAD~2",
    "@~1",
    "@^",
    "HEAD^0",
    "HEAD~",
    "HEAD~~",
    "main",
    "main^",
    "main^^2",
    "main^1^2",
    "main~1^2",
    "main^^",
    "main~3",
    "side",
    "v1.0",
    "v1.0~1",
    "v1.0^{}",
    "v1.0^{commit}~1",
    "HEAD^{}~1",
    "light",
    "refs/heads/main",
    "refs/tags/v1.0",
    "heads/side",
    "tags/light",
]


class TestAgainstGit:
    @pytest.mark.parametrize("text", REVISIONS)
    def test_names_and_suffixes(self, history: Path, text: str) -> None:
        expected = rev_parse(history, text)
        assert expected is not None
        assert resolve(history, text).sha == expected

    def test_commit_ids_full_short_uppercase_and_described(self, history: Path) -> None:
        full = git(history, "rev-parse", "HEAD~1").decode().strip()  # the merge
        for text in (
            full,
            full[:7],
            full[:4],
            full[:7].upper(),
            f"{full[:9]}~1",
            f"{full[:7]}^2",
            f"v1.0-2-g{full[:7]}",
        ):
            assert resolve(history, text).sha == rev_parse(history, text), text

    @pytest.mark.parametrize(
        "text",
        [
            "main~9",
            "main^2",
            "main~1^3",
            "light^2",
            "nope",
            "nope~1",
            "deadbeef",
            "deadbeef^",
            "v9.9",
        ],
    )
    def test_what_git_cannot_resolve_is_a_problem(self, history: Path, text: str) -> None:
        assert rev_parse(history, text) is None
        problem(history, text)

    @pytest.mark.parametrize("text", ["main..side", "main@{1}", "main:a.txt", "^main", "~1"])
    def test_what_is_not_one_commit_is_refused_clearly(self, history: Path, text: str) -> None:
        assert "is not a revision cagr can read as one commit" in problem(history, text).message

    def test_trees_and_blobs_are_not_commits(self, history: Path) -> None:
        for what in ("tree", "blob"):
            sha = git(history, "rev-parse", f"HEAD:{'a.txt' if what == 'blob' else ''}").decode()
            sha = sha.strip()
            assert rev_parse(history, sha) is None
            assert f"is a {what}, not a commit" in problem(history, sha).message


class TestNames:
    def test_origin_is_tried_before_the_local_branch(self, history: Path) -> None:
        git(history, "update-ref", "refs/remotes/origin/main", "HEAD~2")
        git(history, "update-ref", "refs/remotes/origin/HEAD", "HEAD~1")
        assert resolve(history, "main") == Resolved(
            "refs/remotes/origin/main", rev_parse(history, "origin/main") or ""
        )
        assert resolve(history, "main~1").ref == "refs/remotes/origin/main~1"
        assert resolve(history, "main~1").sha == rev_parse(history, "origin/main~1")
        # HEAD is this checkout's HEAD, never origin/HEAD
        assert resolve(history, "HEAD").sha == rev_parse(history, "HEAD")
        assert resolve(history, "@~1").ref == "HEAD~1"

    def test_refs_are_named_in_full_and_ids_as_whole_ids(self, history: Path) -> None:
        full = git(history, "rev-parse", "HEAD~1").decode().strip()
        assert resolve(history, "v1.0").ref == "refs/tags/v1.0"
        assert resolve(history, "side").ref == "refs/heads/side"
        assert resolve(history, full[:7]).ref == full
        assert resolve(history, f"{full[:7]}~1").ref == f"{full}~1"

    def test_a_ref_wins_over_a_short_id(self, history: Path) -> None:
        full = git(history, "rev-parse", "HEAD~2").decode().strip()
        git(history, "branch", full[:7], "HEAD")
        assert resolve(history, full[:7]).sha == rev_parse(history, full[:7])

    def test_fetch_head(self, history: Path) -> None:
        git(history, "fetch", "-q", str(history), "side")
        assert resolve(history, "FETCH_HEAD").sha == rev_parse(history, "FETCH_HEAD")


class TestShortIds:
    def _colliding_commits(self, root: Path) -> str:
        """Two commits whose ids share their first four digits; the shared prefix."""
        tree = git(root, "rev-parse", "HEAD^{tree}").decode().strip()
        seen: dict[str, bytes] = {}
        for index in range(100_000):
            body = f"tree {tree}\nauthor A <a@b> 0 +0000\ncommitter A <a@b> 0 +0000\n\n{index}\n"
            data = body.encode()
            sha = hashlib.sha1(b"commit %d\0" % len(data) + data).hexdigest()
            if sha[:4] in seen:
                for raw in (seen[sha[:4]], data):
                    git(root, "hash-object", "-t", "commit", "-w", "--stdin", stdin=raw)
                return sha[:4]
            seen[sha[:4]] = data
        raise AssertionError("no collision")

    def test_an_ambiguous_short_id_is_a_clear_error(self, history: Path) -> None:
        prefix = self._colliding_commits(history)
        assert rev_parse(history, prefix) is None
        found = problem(history, prefix)
        assert f"the short id {prefix} is ambiguous: 2 objects start with it" in found.message
        assert found.fix == "Give more digits of the commit id with --base."

    def test_a_commit_wins_over_a_blob_with_the_same_prefix(self, history: Path) -> None:
        target = git(history, "rev-parse", "HEAD~2").decode().strip()
        for index in range(1_000_000):
            data = f"{index}\n".encode()
            if hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()[:4] == target[:4]:
                git(history, "hash-object", "-w", "--stdin", stdin=data)
                break
        assert resolve(history, target[:4]).sha == rev_parse(history, target[:4]) == target


class TestAdvice:
    def test_fetch_advice_names_the_branch(self, history: Path) -> None:
        found = problem(history, "release-2.0")
        assert found.message == (
            "cannot find the target branch release-2.0 (tried refs/remotes/origin/release-2.0,"
            " refs/heads/release-2.0, then tags and other refs named release-2.0)."
        )
        assert found.fix == (
            "Fetch it (`git fetch origin release-2.0`) or name the target with --base."
        )
        found = problem(history, "release-2.0~1")
        assert found.message.startswith("cannot find the target branch release-2.0 (in")
        assert "`git fetch origin release-2.0`" in found.fix

    def test_a_typo_of_a_branch_or_tag_says_what_was_meant(self, history: Path) -> None:
        found = problem(history, "mian")
        assert found.fix == (
            "Did you mean main (`--base main`)? If mian is a branch on origin that this clone"
            " lacks, fetch it (`git fetch origin mian`)."
        )
        assert problem(history, "v1.1").fix.startswith("Did you mean v1.0 (`--base v1.0`)?")
        assert "Did you mean" not in problem(history, "release-2.0").fix

    def test_a_remote_branch_typo(self, history: Path) -> None:
        git(history, "update-ref", "refs/remotes/origin/main", "HEAD")
        git(history, "update-ref", "refs/remotes/origin/qa", "HEAD")
        git(history, "pack-refs", "--all")
        git(history, "update-ref", "refs/remotes/origin/api", "HEAD")  # loose beside packed
        found = problem(history, "origin/mian")
        assert found.fix == (
            "Did you mean origin/main (`--base origin/main`)? If mian is a branch on origin"
            " that this clone lacks, fetch it (`git fetch origin mian`)."
        )
        assert "git fetch origin origin/" not in str(found)
        assert problem(history, "origin/release").fix == (
            "Fetch it (`git fetch origin release`) or name the target with --base."
        )
        assert problem(history, "origin/ap").fix.startswith("Did you mean origin/api")

    def test_no_branch_fetch_advice_for_commit_ids(self, history: Path) -> None:
        found = problem(history, "534af9880^")
        assert found.message.startswith(
            "cannot find 534af9880 (in 534af9880^): no commit in this clone has an id starting"
        )
        assert found.fix == "Fetch the history that holds it (`git fetch origin`), or check the id."
        assert "534af9880^`" not in str(found)

    def test_no_fetch_advice_for_refs_that_are_not_branches(self, history: Path) -> None:
        assert problem(history, "refs/notes/x").fix == (
            "Name an existing branch, tag or commit with --base."
        )
        assert problem(history, "CHERRY_PICK_HEAD").fix == (
            "Name an existing branch, tag or commit with --base."
        )

    def test_pseudo_refs_as_git_reads_them(self, history: Path) -> None:
        # The merge in the fixture left ORIG_HEAD behind, in the git directory.
        assert resolve(history, "ORIG_HEAD").sha == rev_parse(history, "ORIG_HEAD")

    def test_past_the_root(self, history: Path) -> None:
        root = git(history, "rev-list", "--max-parents=0", "HEAD").decode().strip()
        found = problem(history, "main~9")
        assert found.message == f"main~9 does not exist: {root[:7]} has no parent."

    def test_shallow_boundary(self, history: Path, tmp_path: Path) -> None:
        clone = tmp_path / "shallow"
        git(tmp_path, "clone", "-q", "--depth", "2", f"file://{history}", str(clone))
        assert rev_parse(clone, "HEAD~2") is None
        assert "where this shallow clone's history stops" in problem(clone, "HEAD~2").message


class TestWithACommitGraph:
    """The same answers when first parents come from the commit-graph (`HEAD~1500` then reads
    no commit object, as git reads none)."""

    @pytest.fixture
    def graphed(self, history: Path) -> Path:
        git(history, "commit-graph", "write", "--reachable")
        return history

    @pytest.mark.parametrize("text", [*REVISIONS, "main~4", "main~9", "v1.0~2", "main~1^3"])
    def test_as_git_resolves_them(self, graphed: Path, text: str) -> None:
        expected = rev_parse(graphed, text)
        if expected is None:
            problem(graphed, text)
        else:
            assert resolve(graphed, text).sha == expected

    def test_past_the_root_is_said_the_same_way(self, graphed: Path) -> None:
        root = git(graphed, "rev-list", "--max-parents=0", "HEAD").decode().strip()
        assert (
            problem(graphed, "main~9").message
            == f"main~9 does not exist: {root[:7]} has no parent."
        )

    def test_the_steps_are_taken_in_the_graph(self, graphed: Path) -> None:
        middle = git(graphed, "rev-parse", "main~2").decode().strip()
        (graphed / ".git" / "objects" / middle[:2] / middle[2:]).unlink()
        expected = rev_parse(graphed, "main~3")  # git too steps through the graph
        assert expected is not None
        assert resolve(graphed, "main~3").sha == expected

    def test_a_damaged_graph_is_stepped_around(self, graphed: Path) -> None:
        expected = rev_parse(graphed, "main~3")
        path = graphed / ".git" / "objects" / "info" / "commit-graph"
        data = bytearray(path.read_bytes())
        start = data.index(b"CDAT")  # the chunk table: id, then the chunk's offset
        cdat = int.from_bytes(data[start + 4 : start + 12], "big")
        for number in range(4):  # every first parent points past the last commit
            at = cdat + 36 * number + 20
            data[at : at + 4] = (1000).to_bytes(4, "big")
        os.chmod(path, 0o644)
        path.write_bytes(bytes(data))
        assert resolve(graphed, "main~3").sha == expected
