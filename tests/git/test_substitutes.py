"""Replace refs and grafts, read as git reads them: the merge base (`git merge-base`), the
change (`git diff --raw`), a revision (`git rev-parse`) and a manifest's content (`git show`)
come out as git's own, with a commit-graph written before they were made, and not at all when
git is told to leave replace refs alone. git is the oracle throughout."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from cagr_core.changes import Stage
from cagr_git.discover import find_checkout
from cagr_git.repository import open_repo
from cagr_git.revisions import resolve_revision
from tests.support.git import collect, commit, git, oracle, rows, write


def _history(root: Path) -> dict[str, str]:
    """main: base -> migration -> more; feature forks at `migration` and adds `b`."""
    write(root, "a", "a\n")
    ids = {"base": commit(root, "base")}
    write(root, "migrations/0001.sql", "create table t;\n")
    ids["migration"] = commit(root, "migration")
    git(root, "checkout", "-q", "-b", "feature")
    write(root, "b", "b\n")
    ids["feature"] = commit(root, "feature")
    git(root, "checkout", "-q", "main")
    write(root, "c", "c\n")
    ids["main"] = commit(root, "more")
    git(root, "checkout", "-q", "feature")
    git(root, "commit-graph", "write", "--reachable")  # parents the substitutes change
    return ids


def _agrees_with_git(root: Path, head: str = "HEAD") -> str:
    """cagr's committed change and its base are git's; the base, for the test to look at."""
    base = git(root, "merge-base", "main", head).decode().strip()
    changes = collect(
        root, "main", committed=True, head=git(root, "rev-parse", head).decode().strip()
    )
    assert changes.unchecked == ()
    assert changes.range is not None
    assert changes.range.base == base
    assert rows(changes) == oracle(root, base, head)
    return base


def test_a_graft_gives_a_commit_the_parents_git_reads(repo: Path) -> None:
    ids = _history(repo)
    (repo / ".git" / "info" / "grafts").write_text(f"{ids['feature']} {ids['base']}\n")
    assert _agrees_with_git(repo) == ids["base"]  # the migration is now the branch's own


def test_a_graft_file_read_line_by_line_as_git_reads_it(repo: Path) -> None:
    ids = _history(repo)
    lines = [
        "# a comment, then an empty line",
        "",
        f"{ids['feature'][:39]} {ids['base']}",  # a short id: bad graft data, passed over
        f"{ids['feature'].upper()}\t{ids['base']}  \r",  # upper case, a tab, trailing blanks
        f"{ids['feature']} {ids['migration']}",  # a second line for it: the first one wins
    ]
    (repo / ".git" / "info" / "grafts").write_text("\n".join(lines) + "\n")
    assert _agrees_with_git(repo) == ids["base"]


def test_a_graft_of_no_parents_and_the_graft_file_from_the_environment(
    repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ids = _history(repo)
    elsewhere = tmp_path / "grafts"
    elsewhere.write_text(f"{ids['feature']}\n")  # a root now: no history shared with main
    monkeypatch.setenv("GIT_GRAFT_FILE", str(elsewhere))
    changes = collect(repo, "main", committed=True, head=ids["feature"])
    assert git(repo, "merge-base", "main", "HEAD", check=False) == b""
    assert changes.range is None
    assert [u.stage for u in changes.unchecked] == [Stage.RANGE]
    assert "share no history" in changes.unchecked[0].message


def test_a_replaced_commit_is_read_as_its_replacement(repo: Path) -> None:
    ids = _history(repo)
    git(repo, "replace", "--graft", ids["feature"], ids["base"])
    assert _agrees_with_git(repo) == ids["base"]


def test_a_replaced_tree_changes_what_the_commit_holds(repo: Path) -> None:
    ids = _history(repo)
    git(repo, "replace", git(repo, "rev-parse", "feature^{tree}").decode().strip(),
        git(repo, "rev-parse", "main^{tree}").decode().strip())  # fmt: skip
    assert _agrees_with_git(repo) == ids["migration"]  # c added, b gone: main's tree, as git reads


def test_a_replaced_blob_is_the_content_cagr_reads(repo: Path) -> None:
    _history(repo)
    write(repo, "package.json", '{"dependencies": {}}\n')
    commit(repo, "manifest")
    write(repo, "package.json", '{"dependencies": {"left-pad": "1"}}\n')
    commit(repo, "dependency")
    old = git(repo, "rev-parse", "HEAD:package.json").decode().strip()
    new = git(repo, "hash-object", "-w", "--stdin", stdin=b'{"dependencies": {"evil": "1"}}\n')
    git(repo, "replace", old, new.decode().strip())
    with open_repo(find_checkout(str(repo))) as opened:
        assert opened.objects.read(bytes.fromhex(old))[1] == git(repo, "show", "HEAD:package.json")
    _agrees_with_git(repo)


def test_revisions_walk_the_parents_git_reads(repo: Path) -> None:
    ids = _history(repo)
    git(repo, "replace", "--graft", ids["feature"], ids["base"])
    with open_repo(find_checkout(str(repo))) as opened:
        assert opened.commit_graph is None  # git reads none while a replacement is in force
        found = resolve_revision(opened, "HEAD~1").sha
    assert found == git(repo, "rev-parse", "HEAD~1").decode().strip() == ids["base"]


@pytest.mark.parametrize("off", ["GIT_NO_REPLACE_OBJECTS", "core.useReplaceRefs"])
def test_replace_refs_git_is_told_to_leave_alone_change_nothing(
    repo: Path, monkeypatch: pytest.MonkeyPatch, off: str
) -> None:
    ids = _history(repo)
    git(repo, "replace", "--graft", ids["feature"], ids["base"])
    if off == "GIT_NO_REPLACE_OBJECTS":
        monkeypatch.setenv(off, "")  # set, however empty: git reads no replacement
    else:
        git(repo, "config", off, "false")
    assert _agrees_with_git(repo) == ids["migration"]
    with open_repo(find_checkout(str(repo))) as opened:
        assert opened.commit_graph is not None


def test_replace_refs_in_another_namespace_and_packed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _history(repo)
    git(repo, "replace", "--graft", ids["feature"], ids["base"])
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "replace" / ids["feature"]).exists()
    assert _agrees_with_git(repo) == ids["base"]
    monkeypatch.setenv("GIT_REPLACE_REF_BASE", "refs/elsewhere/")
    assert _agrees_with_git(repo) == ids["migration"]


def test_a_replacement_chain_git_refuses_is_unchecked(repo: Path) -> None:
    ids = _history(repo)
    chain = [ids["feature"]]
    for number in range(5):  # five replacements deep: git stops after four
        tree = git(repo, "rev-parse", "HEAD^{tree}").decode().strip()
        made = (
            git(repo, "commit-tree", tree, "-p", ids["base"], "-m", f"r{number}").decode().strip()
        )
        chain.append(made)
    for original, replacement in itertools.pairwise(chain):
        git(repo, "update-ref", f"refs/replace/{original}", replacement)
    assert git(repo, "merge-base", "main", "HEAD", check=False) == b""  # git dies
    changes = collect(repo, "main", committed=True, head=ids["feature"])
    assert [u.stage for u in changes.unchecked] == [Stage.RANGE]
    assert "deeper than 5" in changes.unchecked[0].message


def test_a_working_tree_check_reads_them_too(repo: Path) -> None:
    ids = _history(repo)
    (repo / ".git" / "info" / "grafts").write_text(f"{ids['feature']} {ids['base']}\n")
    write(repo, "b", "edited\n")
    base = git(repo, "merge-base", "main", "HEAD").decode().strip()
    changes = collect(repo, "main")
    assert changes.unchecked == ()
    assert rows(changes) == oracle(repo, base)
    assert "migrations/0001.sql" in {c.path for c in changes.changes}


def test_a_graft_file_that_is_a_fifo_is_unchecked_not_a_hang(repo: Path) -> None:
    _history(repo)
    os.mkfifo(repo / ".git" / "info" / "grafts")
    changes = collect(repo, "main", committed=True)
    assert [u.stage for u in changes.unchecked] == [Stage.RANGE]
    assert "grafts" in changes.unchecked[0].message
