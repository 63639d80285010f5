"""False passes: states where cagr exited 0 although the control run exits 1."""

from __future__ import annotations

import json
import marshal
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.adversarial import Outcome, denied, run_process
from tests.support.git import collect, commit, git, oracle, rows, write
from tests.support.hooks import committed_check, gate, hook, payload

Cagr = Callable[..., Outcome]


def _changes(cagr: Cagr, root: Path) -> list[tuple[str, str]]:
    outcome = cagr(root, "changes", "--format", "json")
    return [(c["status"], c["path"]) for c in json.loads(outcome.out)["changes"]]


def _paths_rule(root: Path, pattern: str, old: str = "src/schema.ts") -> None:
    text = (root / "cagr.toml").read_text().replace(f'"{old}"]', f'"{pattern}"]', 1)
    (root / "cagr.toml").write_text(text)
    commit(root, "rule")


def test_01_tracked_folder_replaced_by_a_link_to_a_folder_outside(
    feature: Path, tmp_path: Path, cagr: Cagr
) -> None:
    outside = tmp_path / "o"
    outside.mkdir()
    (outside / "schema.ts").write_text("one\n")  # the committed content, outside the repo
    shutil.rmtree(feature / "src")
    os.symlink(outside, feature / "src")
    # git: `D src/schema.ts` plus an untracked symlink `src`; the link is never followed.
    base = git(feature, "merge-base", "main", "HEAD").decode().strip()
    assert rows(collect(feature)) == oracle(feature, base)
    assert _changes(cagr, feature) == [("A", "src"), ("D", "src/schema.ts")]
    assert cagr(feature, "rules", "check").code == 1


def test_02_nested_repository_without_commits_loses_no_untracked_file(
    feature: Path, cagr: Cagr
) -> None:
    _paths_rule(feature, "src/**")
    git(feature, "checkout", "-q", "src/schema.ts")
    write(feature, "src/new.ts", "n\n")
    git(feature, "init", "-q", "scratch")
    assert ("A", "src/new.ts") in _changes(cagr, feature)
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 1
    assert "src/new.ts was added" in outcome.out


def _unlistable_trigger(root: Path) -> Path:
    _paths_rule(root, "src/**")
    git(root, "checkout", "-q", "src/schema.ts")
    write(root, "src/gen/made.ts", "x\n")
    return root / "src" / "gen"


@pytest.mark.parametrize("mode", [0o311, 0o000])
def test_03_untracked_folder_that_cannot_be_listed_is_unchecked(feature: Path, mode: int) -> None:
    folder = _unlistable_trigger(feature)
    os.chmod(folder, mode)
    if not denied(folder):
        pytest.skip("this system lets even a process without DAC override list the folder")
    outcome = run_process(["rules", "check"], feature, permissions_apply=True)
    assert outcome.code == 3, outcome
    assert "src/gen" in outcome.out
    assert "Traceback" not in outcome.err


def test_03_untracked_folder_that_cannot_be_listed_is_unchecked_deterministic(
    feature: Path, cagr: Cagr, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same fault injected, so it is exercised even where the OS grants access (root).
    folder = os.fsencode(_unlistable_trigger(feature))
    for name in ("scandir", "listdir"):
        real = getattr(os, name)

        def refuse(path: object = ".", real: Callable[..., object] = real) -> object:
            if isinstance(path, bytes | str) and os.fsencode(path).rstrip(b"/") == folder:
                raise PermissionError(13, "Permission denied", path)
            return real(path)

        monkeypatch.setattr(os, name, refuse)
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 3
    assert "src/gen" in outcome.out
    # A rule that cannot match beneath the folder is still decided.
    _paths_rule(feature, "docs/**", old="src/**")
    assert cagr(feature, "rules", "check").code == 0


def test_04_fake_git_folder_in_a_subfolder(
    feature: Path, cagr: Cagr, monkeypatch: pytest.MonkeyPatch
) -> None:
    (feature / "sub" / ".git").mkdir(parents=True)
    monkeypatch.chdir(feature / "sub")
    outcome = cagr(None, "rules", "check")
    assert outcome.code == 1
    assert "Change rule schema-out failed" in outcome.out


@pytest.mark.parametrize("target", ["nowhere.toml", "cagr.toml"])
def test_05_config_that_is_a_dangling_or_looping_link(
    feature: Path, cagr: Cagr, target: str
) -> None:
    (feature / "cagr.toml").unlink()
    os.symlink(target, feature / "cagr.toml")
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 2
    assert "cagr.toml: cannot be read" in outcome.err


def test_06_fragment_folder_that_is_a_link(feature: Path, cagr: Cagr, tmp_path: Path) -> None:
    (feature / "conf" / "s").mkdir(parents=True)
    (feature / "cagr.toml").rename(feature / "conf" / "s" / "rules.toml")
    (feature / ".cagr").mkdir()
    os.symlink("../conf/s", feature / ".cagr" / "s")
    assert cagr(feature, "rules", "check").code == 1  # followed: it stays inside
    (feature / ".cagr" / "s").unlink()
    os.symlink(tmp_path, feature / ".cagr" / "s")
    outcome = cagr(feature, "rules", "check")
    assert outcome.code == 2
    assert ".cagr/s: links outside the repository" in outcome.err


def test_07_bare_clone_with_head_on_the_branch(feature: Path, tmp_path: Path, cagr: Cagr) -> None:
    commit(feature, "edit")
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(feature), str(bare))
    assert git(bare, "symbolic-ref", "HEAD").decode().strip() == "refs/heads/feature"
    outcome = cagr(bare, "rules", "check", "--committed")
    assert outcome.code == 2
    assert "bare repository" in outcome.err


def test_08_merge_base_state_written_by_hand_is_not_trusted(feature: Path, cagr: Cagr) -> None:
    commit(feature, "edit")
    assert cagr(feature, "rules", "check", "--committed").code == 1
    head = git(feature, "rev-parse", "HEAD").decode().strip()
    target = git(feature, "rev-parse", "main").decode().strip()
    (feature / ".git" / "cagr" / "merge-base").write_text(f"{target} {head} {head}")
    assert cagr(feature, "rules", "check", "--committed").code == 1


def test_08_base_tree_cache_for_another_tree_is_not_trusted(feature: Path, cagr: Cagr) -> None:
    commit(feature, "edit")
    write(feature, "notes.txt", "dirty\n")
    base_tree = git(feature, "rev-parse", "main^{tree}").decode().strip()
    head_tree = git(feature, "rev-parse", "HEAD^{tree}").decode().strip()
    # The cache older versions kept (`cagr base trees 3`: each tree's id, length and bytes),
    # holding HEAD's trees with HEAD's root relabelled as the baseline's: the working tree
    # would look unchanged against it. cagr keeps no such cache now, and must not read one.
    listed = git(feature, "ls-tree", "-r", "-t", "HEAD").decode().split("\n")
    trees = [head_tree] + [line.split()[2] for line in listed if " tree " in line]
    records = b""
    for tree in trees:
        raw = git(feature, "cat-file", "tree", tree)
        label = base_tree if tree == head_tree else tree
        records += bytes.fromhex(label) + len(raw).to_bytes(4, "big") + raw
    (feature / ".git" / "cagr").mkdir(exist_ok=True)
    (feature / ".git" / "cagr" / "base-tree").write_bytes(b"cagr base trees 3\n" + records)
    assert cagr(feature, "rules", "check").code == 1


@pytest.mark.parametrize(
    "entries", [{b"src/schema.ts": "junk"}, {b"src/schema.ts": (1,)}, {"x": None}, []]
)
def test_08_base_tree_cache_with_wrong_value_types(
    feature: Path, cagr: Cagr, entries: object
) -> None:
    assert cagr(feature, "rules", "check").code == 1
    tree = bytes.fromhex(git(feature, "rev-parse", "main^{tree}").decode().strip())
    cache = feature / ".git" / "cagr" / "base-tree"  # older versions kept the base tree here
    cache.parent.mkdir(exist_ok=True)
    for version in range(5):
        cache.write_bytes(marshal.dumps((version, tree, entries)))
        outcome = cagr(feature, "rules", "check")
        assert outcome.code == 1, outcome


@pytest.mark.parametrize("base", ["", " "])
def test_09_empty_base_is_a_usage_error(feature: Path, cagr: Cagr, base: str) -> None:
    outcome = cagr(feature, "rules", "check", "--base", base)
    assert outcome.code == 2
    assert "--base" in outcome.err


def _clone_of_the_branch(feature: Path, tmp_path: Path) -> Path:
    """What an agent sandbox does: `git clone` of a repository whose HEAD is on `feature`, so
    origin/HEAD names origin/feature; then one more local commit."""
    commit(feature, "the violation, on the branch")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(feature), str(clone))
    assert (clone / ".git/refs/remotes/origin/HEAD").read_text() == (
        "ref: refs/remotes/origin/feature\n"
    )
    write(clone, "notes.txt", "one more commit\n")
    commit(clone, "unpushed")
    return clone


@pytest.mark.parametrize("args", [(), ("--committed",)])
def test_10_the_branchs_own_remote_copy_is_no_target(
    feature: Path, tmp_path: Path, cagr: Cagr, args: tuple[str, ...]
) -> None:
    clone = _clone_of_the_branch(feature, tmp_path)
    outcome = cagr(clone, "rules", "check", *args)
    assert outcome.code == 3, outcome  # before: 0, only the unpushed commit was judged
    assert "which is the branch being checked itself" in outcome.out
    assert cagr(clone, "rules", "check", "--base", "origin/main", *args).code == 1


def test_10_nor_is_its_copy_under_another_remote(feature: Path, tmp_path: Path, cagr: Cagr) -> None:
    clone = _clone_of_the_branch(feature, tmp_path)
    git(clone, "remote", "add", "fork", str(feature))
    git(clone, "update-ref", "refs/remotes/fork/feature", "refs/remotes/origin/feature")
    # origin/HEAD names `fork/feature`, which git reads as refs/remotes/fork/feature.
    (clone / ".git/refs/remotes/origin/HEAD").write_text("ref: refs/remotes/origin/fork/feature\n")
    outcome = cagr(clone, "rules", "check", "--committed")
    assert outcome.code == 3, outcome
    assert "resolved to refs/remotes/fork/feature" in outcome.out


def test_10_an_upstream_of_another_name_is_the_target(feature: Path, cagr: Cagr) -> None:
    commit(feature, "the violation, on the branch")
    git(feature, "update-ref", "refs/remotes/origin/main", "main")
    git(feature, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    git(
        feature, "config", "branch.feature.remote", "origin"
    )  # as `checkout -b feature origin/main`
    git(feature, "config", "branch.feature.merge", "refs/heads/main")
    assert cagr(feature, "rules", "check", "--committed").code == 1


def test_10_the_turn_end_and_the_gate_do_not_pass_it(feature: Path, tmp_path: Path) -> None:
    clone = _clone_of_the_branch(feature, tmp_path)
    stop = hook(payload("claude", 0, clone), "--agent", "claude")
    assert "which is the branch being checked itself" in stop.text  # before: silence
    assert committed_check(clone) == 3
    answer = gate(clone, "gh pr create --title t --body b")
    assert "unchecked" in answer.text  # before: let through with nothing said


def _linked_config(feature: Path, how: str) -> None:
    """The rule moved to conf/rules.toml and reached through a link, committed on main."""
    git(feature, "checkout", "-q", "--", "src/schema.ts")
    git(feature, "checkout", "-q", "main")
    (feature / "conf").mkdir()
    (feature / "cagr.toml").rename(feature / "conf" / "rules.toml")
    if how == "cagr.toml":
        os.symlink("conf/rules.toml", feature / "cagr.toml")
    elif how == ".cagr":
        os.symlink("conf", feature / ".cagr")
    else:  # a fragment
        (feature / ".cagr").mkdir()
        os.symlink("../conf/rules.toml", feature / ".cagr" / "rules.toml")
    commit(feature, "config through a link")
    git(feature, "checkout", "-q", "feature")
    git(feature, "rebase", "-q", "main")
    write(feature, "src/schema.ts", "two\n")
    commit(feature, "edit")


@pytest.mark.parametrize("how", ["cagr.toml", ".cagr", "fragment"])
def test_11_a_committed_config_reached_through_a_link_is_read_by_every_check(
    feature: Path, cagr: Cagr, how: str
) -> None:
    _linked_config(feature, how)
    assert cagr(feature, "rules", "check").code == 1
    committed = cagr(feature, "rules", "check", "--committed")
    assert committed.code == 1, committed  # before: 2 (not a regular file) or 3 (commit them)
    assert "Change rule schema-out failed" in committed.out
    ci = run_process(["ci", "--base", "main"], feature)
    assert ci.code == 1, ci  # before: 2 or 3, as the committed check


@pytest.mark.parametrize("target", ["/etc/hostname", "../../outside.toml"])
def test_11_a_link_leaving_the_repository_is_refused_alike(
    feature: Path, cagr: Cagr, target: str
) -> None:
    os.symlink(target, feature / ".cagr")
    commit(feature, "a link out")
    said = ".cagr: links outside the repository"
    for args in (("rules", "check"), ("rules", "check", "--committed")):
        outcome = cagr(feature, *args)
        assert outcome.code == 2, outcome
        assert said in outcome.err
