"""Finding the repository a folder belongs to, and reading refs, the way git does (stdlib only)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cagr_git.discover import NotARepository, find_checkout
from cagr_git.refs import branch_ref, head_ref, read_ref
from tests.support.git import commit, git, write


def rev(root: Path, name: str) -> str:
    return git(root, "rev-parse", name).decode().strip()


class TestDiscovery:
    def test_walks_up_from_a_subfolder(self, repo: Path) -> None:
        (repo / "a" / "b").mkdir(parents=True)
        checkout = find_checkout(str(repo / "a" / "b"))
        assert checkout.root == str(repo.resolve())
        assert checkout.gitdir == str(repo.resolve() / ".git")
        assert not checkout.bare

    def test_a_fake_git_folder_is_passed_over_as_git_passes_over_it(self, repo: Path) -> None:
        (repo / "sub" / ".git").mkdir(parents=True)
        commit(repo)
        assert git(repo / "sub", "rev-parse", "--show-toplevel").decode().strip() == str(repo)
        assert find_checkout(str(repo / "sub")).root == str(repo.resolve())

    def test_linked_worktree_has_its_own_gitdir_and_the_common_one(
        self, repo: Path, tmp_path: Path
    ) -> None:
        commit(repo)
        git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
        checkout = find_checkout(str(tmp_path / "wt"))
        assert checkout.root == str((tmp_path / "wt").resolve())
        assert checkout.gitdir == str(repo.resolve() / ".git" / "worktrees" / "wt")
        assert checkout.commondir == str(repo.resolve() / ".git")

    def test_a_broken_worktree_says_so(self, repo: Path, tmp_path: Path) -> None:
        commit(repo)
        git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
        git(repo, "worktree", "remove", "--force", str(tmp_path / "wt"))
        (tmp_path / "wt").mkdir()
        write(tmp_path / "wt", ".git", f"gitdir: {repo}/.git/worktrees/wt\n")
        with pytest.raises(NotARepository, match="this worktree is broken"):
            find_checkout(str(tmp_path / "wt"))

    def test_bare_repository(self, repo: Path, tmp_path: Path) -> None:
        commit(repo)
        git(tmp_path, "clone", "-q", "--bare", str(repo), str(tmp_path / "bare.git"))
        checkout = find_checkout(str(tmp_path / "bare.git"))
        assert checkout.bare
        assert checkout.gitdir == str((tmp_path / "bare.git").resolve())

    def test_outside_any_repository(self, tmp_path: Path) -> None:
        with pytest.raises(NotARepository, match="is not inside a git repository"):
            find_checkout(str(tmp_path))


class TestRefs:
    def test_loose_packed_and_symbolic_refs_match_git(self, repo: Path) -> None:
        first = commit(repo, "one")
        git(repo, "branch", "old")
        git(repo, "pack-refs", "--all")
        second = commit(repo, "two")  # main is loose again, `old` stays packed
        git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/old")
        checkout = find_checkout(str(repo))
        assert read_ref(checkout, "HEAD") == second == rev(repo, "HEAD")
        assert read_ref(checkout, "refs/heads/old") == first
        assert read_ref(checkout, "refs/heads/alias") == first
        assert read_ref(checkout, "refs/heads/nope") is None
        assert head_ref(checkout) == "refs/heads/main"

    def test_detached_head(self, repo: Path) -> None:
        sha = commit(repo)
        git(repo, "checkout", "-q", "--detach")
        checkout = find_checkout(str(repo))
        assert head_ref(checkout) is None
        assert read_ref(checkout, "HEAD") == sha

    def test_worktree_head_is_its_own(self, repo: Path, tmp_path: Path) -> None:
        first = commit(repo, "one")
        git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
        second = commit(repo, "two")
        assert read_ref(find_checkout(str(tmp_path / "wt")), "HEAD") == first
        assert read_ref(find_checkout(str(repo)), "HEAD") == second

    def test_junk_in_a_ref_is_unknown_not_guessed(self, repo: Path) -> None:
        commit(repo)
        (repo / ".git" / "refs" / "heads" / "bad").write_text("not a sha\n")
        assert read_ref(find_checkout(str(repo)), "refs/heads/bad") is None

    def test_branch_ref_prefers_origin(self, repo: Path) -> None:
        sha = commit(repo)
        checkout = find_checkout(str(repo))
        assert branch_ref(checkout, "main") == "refs/heads/main"
        git(repo, "update-ref", "refs/remotes/origin/main", sha)
        assert branch_ref(checkout, "main") == "refs/remotes/origin/main"
        assert branch_ref(checkout, "missing") is None

    def test_unborn_head(self, repo: Path) -> None:
        checkout = find_checkout(str(repo))
        assert read_ref(checkout, "HEAD") is None
        assert head_ref(checkout) == "refs/heads/main"
        assert os.path.isdir(checkout.gitdir)
