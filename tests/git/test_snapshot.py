"""Acceptance rows Snapshot, Range and Git details (docs/checks.md), on real repositories."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from cagr_config.compile import compile_rules
from cagr_config.rules import RequiresRule
from cagr_core.changes import ChangeSet
from cagr_core.pull_request import Phase, PrBody
from cagr_git.worktree import WorkTree
from tests.support.evaluation import judge
from tests.support.git import collect, commit, git, oracle, rows, write

SCHEMA = RequiresRule(
    id="schema", paths=["src/schema.py"], require=["schema.json"], reason="Regenerate schema.json."
)


def status(changes: ChangeSet) -> str:
    return judge(compile_rules([SCHEMA]), changes, PrBody(None), Phase.TURN).status


def paths(changes: ChangeSet) -> dict[str, str]:
    return {c.path: c.status.value for c in changes.changes}


@pytest.fixture
def branch(repo: Path) -> Path:
    """main with a schema source and its generated file; HEAD on a new branch `work`."""
    write(repo, "src/schema.py", "v1")
    write(repo, "schema.json", "{}")
    write(repo, ".gitignore", "*.log\nbuild/\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    return repo


class TestSnapshot:
    def test_committed_staged_unstaged_and_untracked_all_count_at_turn_end(
        self, branch: Path
    ) -> None:
        write(branch, "src/schema.py", "v2")
        commit(branch, "edit schema source")
        assert status(collect(branch)) == "fail"
        write(branch, "schema.json", '{"v": 2}')  # unstaged
        assert status(collect(branch)) == "pass"
        git(branch, "add", "schema.json")  # staged, same as the working tree
        assert status(collect(branch)) == "pass"
        assert status(collect(branch, committed=True)) == "fail"  # not committed yet

    def test_untracked_companion_counts_at_turn_end_only(self, branch: Path) -> None:
        write(branch, "src/schema.py", "v2")
        git(branch, "rm", "-q", "--cached", "schema.json")
        write(branch, "schema.json", '{"v": 2}')
        changes = collect(branch)
        assert paths(changes)["schema.json"] == "M"  # untracked now, but W has new content
        assert status(changes) == "pass"

    def test_staged_only_content_cannot_hide_a_failure(self, branch: Path) -> None:
        write(branch, "src/schema.py", "v2")
        write(branch, "schema.json", '{"v": 2}')
        git(branch, "add", "schema.json")
        write(branch, "schema.json", "{}")  # reverted in the working tree, still staged
        changes = collect(branch)
        assert "schema.json" not in paths(changes)
        assert changes.pending_staged == ("schema.json",)
        assert status(changes) == "fail"

    def test_staged_then_reverted_edit_is_no_net_change(self, branch: Path) -> None:
        write(branch, "src/schema.py", "v2")
        git(branch, "add", "src/schema.py")
        write(branch, "src/schema.py", "v1")
        changes = collect(branch)
        assert changes.changes == ()
        assert changes.pending_staged == ("src/schema.py",)

    def test_staged_addition_still_present_is_an_addition(self, branch: Path) -> None:
        write(branch, "new.py", "x")
        git(branch, "add", "new.py")
        changes = collect(branch)
        assert paths(changes) == {"new.py": "A"}
        assert changes.pending_staged == ()

    def test_deletions_survive_collection(self, branch: Path) -> None:
        os.unlink(branch / "schema.json")
        git(branch, "rm", "-q", "src/schema.py")
        assert paths(collect(branch)) == {"schema.json": "D", "src/schema.py": "D"}

    def test_shell_edits_are_seen_without_any_tool_record(self, branch: Path) -> None:
        (branch / "src" / "schema.py").write_text("edited by a shell command")
        assert paths(collect(branch)) == {"src/schema.py": "M"}

    def test_ignored_untracked_files_do_not_count_but_tracked_ignored_ones_do(
        self, branch: Path
    ) -> None:
        write(branch, "debug.log", "noise")
        write(branch, "build/out.bin", "noise")
        assert collect(branch).changes == ()
        write(branch, "kept.log", "v1")
        git(branch, "add", "-f", "kept.log")
        commit(branch, "track an ignored name")
        write(branch, "kept.log", "v2")
        assert paths(collect(branch)) == {"kept.log": "A"}  # added on the branch, edited since

    def test_identical_rewrite_is_no_change(self, branch: Path) -> None:
        write(branch, "schema.json", "{}")  # same bytes, new mtime
        assert collect(branch).changes == ()

    def test_added_then_deleted_is_no_change(self, branch: Path) -> None:
        write(branch, "tmp.py", "x")
        git(branch, "add", "tmp.py")
        os.unlink(branch / "tmp.py")
        git(branch, "rm", "-q", "--cached", "tmp.py")
        assert collect(branch).changes == ()


class TestRange:
    def test_obligations_survive_several_commits(self, branch: Path) -> None:
        write(branch, "src/schema.py", "v2")
        commit(branch, "one")
        write(branch, "README.md", "unrelated")
        commit(branch, "two")
        assert status(collect(branch)) == "fail"
        assert status(collect(branch, committed=True)) == "fail"

    def test_initial_dirty_work_is_included_and_labelled(self, branch: Path) -> None:
        write(branch, "src/schema.py", "dirty before any session")
        changes = collect(branch)
        assert changes.range is not None
        assert changes.range.label.endswith("to working tree")
        assert paths(changes) == {"src/schema.py": "M"}

    def test_target_precedence_origin_then_local(self, branch: Path) -> None:
        main = git(branch, "rev-parse", "main").decode().strip()
        write(branch, "x", "1")
        other = commit(branch, "ahead")
        git(branch, "update-ref", "refs/remotes/origin/main", other)
        changes = collect(branch)
        assert changes.range is not None
        assert changes.range.target_ref == "refs/remotes/origin/main"
        assert changes.range.base == other
        git(branch, "update-ref", "-d", "refs/remotes/origin/main")
        assert collect(branch).range.base == main  # type: ignore[union-attr]

    def test_switching_branches_changes_the_baseline(self, branch: Path) -> None:
        write(branch, "src/schema.py", "v2")
        commit(branch, "edit")
        assert paths(collect(branch)) == {"src/schema.py": "M"}
        git(branch, "checkout", "-q", "main")
        write(branch, "schema.json", "{1}")
        commit(branch, "main moves on")
        git(branch, "checkout", "-q", "-b", "other")
        write(branch, "other.py", "x")
        assert paths(collect(branch)) == {"other.py": "A"}  # no stale cached base tree

    def test_missing_target_is_unchecked(self, branch: Path) -> None:
        changes = collect(branch, base="trunk")
        assert changes.changes == ()
        (item,) = changes.unchecked
        assert "cannot find the target branch trunk" in item.message
        assert "git fetch origin trunk" in item.message

    def test_unrelated_histories_have_no_merge_base(self, branch: Path) -> None:
        git(branch, "checkout", "-q", "--orphan", "lonely")
        commit(branch, "orphan")
        (item,) = collect(branch).unchecked
        assert "share no history" in item.message

    def test_multiple_merge_bases_are_unchecked(self, branch: Path) -> None:
        git(branch, "checkout", "-q", "main")
        write(branch, "a", "main")
        commit(branch, "main 1")
        git(branch, "checkout", "-q", "work")
        write(branch, "b", "work")
        commit(branch, "work 1")
        work_1 = git(branch, "rev-parse", "HEAD").decode().strip()
        git(branch, "merge", "-q", "--no-edit", "main")
        git(branch, "checkout", "-q", "main")
        git(branch, "merge", "-q", "--no-edit", work_1)
        git(branch, "checkout", "-q", "work")
        assert len(git(branch, "merge-base", "--all", "main", "work").split()) == 2
        (item,) = collect(branch).unchecked
        assert "2 merge bases" in item.message

    def test_shallow_history_that_stops_before_the_merge_base_is_unchecked(
        self, branch: Path, tmp_path: Path
    ) -> None:
        for number in range(3):
            write(branch, "main.txt", str(number))
            git(branch, "checkout", "-q", "main")
            write(branch, "main.txt", str(number))
            commit(branch, f"main {number}")
        git(branch, "checkout", "-q", "work")
        write(branch, "w", "1")
        commit(branch, "work")
        clone = tmp_path / "shallow"
        git(
            tmp_path,
            "clone",
            "-q",
            "--depth",
            "1",
            "--no-single-branch",
            f"file://{branch}",
            str(clone),
        )
        git(clone, "checkout", "-q", "work")
        changes = collect(clone, base="main")
        (item,) = changes.unchecked
        assert "shallow" in item.message
        assert "git fetch --unshallow" in item.message

    def test_shallow_history_that_hides_the_nearer_merge_base_is_unchecked(
        self, branch: Path, tmp_path: Path
    ) -> None:
        # main: base - C - M (regenerates schema.json) - T. HEAD merges a long chain from M
        # with a short one from C that edits the schema source. The merge base is M, so the
        # change lacks its companion; a clone cut off below the chain only reaches C, whose
        # diff would borrow M's schema.json edit and pass.
        git(branch, "checkout", "-q", "main")
        c = commit(branch, "C")
        write(branch, "schema.json", '{"v": 2}')
        m = commit(branch, "M")
        write(branch, "t.txt", "t")
        commit(branch, "T")
        git(branch, "checkout", "-q", "-B", "work", m)
        for number in range(5):
            write(branch, "chain.txt", str(number))
            commit(branch, f"chain {number}")
        git(branch, "checkout", "-q", "-b", "short", c)
        write(branch, "src/schema.py", "v2")
        commit(branch, "edit the schema source")
        git(branch, "checkout", "-q", "work")
        git(branch, "merge", "-q", "--no-edit", "short")
        assert status(collect(branch, committed=True)) == "fail"
        clone = tmp_path / "shallow"
        git(
            tmp_path,
            "clone",
            "-q",
            "--depth",
            "3",
            "--no-single-branch",
            f"file://{branch}",
            str(clone),
        )
        git(clone, "checkout", "-q", "work")
        assert git(clone, "cat-file", "-t", m).strip() == b"commit"  # M is there, but cut off
        changes = collect(clone, base="main", committed=True)
        assert status(changes) == "unchecked"
        (item,) = changes.unchecked
        assert "shallow clone" in item.message
        assert "fetch-depth: 0" in item.message

    def test_shallow_history_decides_a_target_that_head_contains(
        self, branch: Path, tmp_path: Path
    ) -> None:
        base = git(branch, "rev-parse", "HEAD").decode().strip()
        for number in range(3):
            write(branch, "w", str(number))
            commit(branch, f"work {number}")
        clone = tmp_path / "shallow"
        git(
            tmp_path,
            "clone",
            "-q",
            "--depth",
            "4",
            "--branch",
            "work",
            f"file://{branch}",
            str(clone),
        )
        changes = collect(clone, base=base, committed=True)
        assert changes.unchecked == ()
        assert changes.range is not None
        assert changes.range.base == base
        assert paths(changes) == {"w": "A"}

    def test_unborn_head_is_unchecked(self, repo: Path) -> None:
        (item,) = collect(repo).unchecked
        assert "no commit yet" in item.message

    def test_detached_head_works(self, branch: Path) -> None:
        write(branch, "x", "1")
        commit(branch, "x")
        git(branch, "checkout", "-q", "--detach")
        assert paths(collect(branch, committed=True)) == {"x": "A"}

    def test_linked_worktree(self, branch: Path, tmp_path: Path) -> None:
        linked = tmp_path / "linked"
        git(branch, "worktree", "add", "-q", "-b", "feature", str(linked), "main")
        write(linked, "feature.py", "x")
        assert paths(collect(linked)) == {"feature.py": "A"}
        assert not (branch / ".git" / "cagr").exists()  # collecting writes no state anywhere


class TestGitDetails:
    @pytest.mark.parametrize(
        "name",
        [
            "with space.py",
            "tab\there.py",
            "new\nline.py",
            "glob*[x]?{a,b}.py",
            'quote"s.py',
            "bad\udcffbyte.py",
        ],
    )
    def test_odd_names_survive(self, branch: Path, name: str) -> None:
        write(branch, name.encode("utf-8", "surrogateescape"), "x")
        changes = collect(branch)
        assert paths(changes) == {name: "A"}
        assert rows(changes) == oracle(branch, "main")

    def test_rename_is_a_deletion_plus_an_addition(self, branch: Path) -> None:
        git(branch, "mv", "schema.json", "renamed.json")
        commit(branch, "rename")
        assert paths(collect(branch, committed=True)) == {"schema.json": "D", "renamed.json": "A"}

    def test_mode_and_type_changes_are_preserved(self, branch: Path) -> None:
        os.chmod(branch / "schema.json", 0o755)
        os.unlink(branch / "src" / "schema.py")
        os.symlink("../schema.json", branch / "src" / "schema.py")
        changes = collect(branch)
        by_path = {c.path: c for c in changes.changes}
        assert by_path["schema.json"].status.value == "M"
        assert by_path["schema.json"].new.mode == 0o100755  # type: ignore[union-attr]
        assert by_path["src/schema.py"].status.value == "T"
        assert rows(changes) == oracle(branch, "main")

    def test_file_replaced_by_a_folder(self, branch: Path) -> None:
        os.unlink(branch / "schema.json")
        write(branch, "schema.json/part.json", "{}")
        assert paths(collect(branch)) == {"schema.json": "D", "schema.json/part.json": "A"}

    def test_submodule_changes_are_gitlinks(self, branch: Path, tmp_path: Path) -> None:
        upstream = tmp_path / "upstream"
        upstream.mkdir()
        git(upstream, "init", "-q", "-b", "main")
        write(upstream, "lib.py", "1")
        commit(upstream, "lib")
        git(
            branch,
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            str(upstream),
            "vendor/lib",
        )
        commit(branch, "add submodule")
        changes = collect(branch, committed=True)
        assert {
            c.path: (c.status.value, c.new.kind.value if c.new else None) for c in changes.changes
        } == {
            ".gitmodules": ("A", "regular"),
            "vendor/lib": ("A", "gitlink"),
        }
        write(branch / "vendor" / "lib", "lib.py", "2")
        commit(branch / "vendor" / "lib", "move submodule")
        working = collect(branch)
        assert rows(working) == oracle(branch, "main")

    def test_conflicts_are_unchecked(self, branch: Path) -> None:
        write(branch, "schema.json", "work")
        commit(branch, "work side")
        git(branch, "checkout", "-q", "main")
        write(branch, "schema.json", "main")
        commit(branch, "main side")
        git(branch, "checkout", "-q", "work")
        git(branch, "merge", "-q", "main", check=False)
        changes = collect(branch)
        assert changes.changes == ()
        (item,) = changes.unchecked
        assert (
            item.message == "unresolved conflicts in schema.json. Resolve them, then check again."
        )

    def test_races_retry_once_then_report_unchecked(
        self, branch: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        write(branch, "src/schema.py", "v2")
        answers = iter([False, True])
        monkeypatch.setattr(WorkTree, "unchanged", lambda _: next(answers))
        assert paths(collect(branch)) == {"src/schema.py": "M"}
        monkeypatch.setattr(WorkTree, "unchanged", lambda _: False)
        (item,) = collect(branch).unchecked
        assert "changed while cagr read it, twice" in item.message

    def test_content_filters_cagr_cannot_run_are_unchecked(self, branch: Path) -> None:
        git(branch, "config", "filter.lfs.clean", "git-lfs clean -- %f")
        write(branch, ".gitattributes", "*.bin filter=lfs\n*.txt text\n")
        write(branch, "asset.bin", "pointer")
        write(branch, "notes.txt", "a\nb\n")
        commit(branch, "attributes")
        write(branch, "asset.bin", "new binary content")
        write(branch, "notes.txt", "a\nb\nc\n")  # no CRLF: git's conversion is the identity
        changes = collect(branch)
        (item,) = changes.unchecked
        assert item.message.startswith("asset.bin: git runs its `lfs` filter on it")
        os.unlink(branch / "asset.bin")
        write(branch, "notes.txt", "a\r\nb\r\n")  # git stores it with LF: what it had
        changes = collect(branch)
        assert changes.unchecked == ()
        (notes,) = [c for c in changes.changes if c.path == "notes.txt"]
        assert notes.new is not None
        assert notes.new.oid == git(branch, "rev-parse", "HEAD:notes.txt").decode().strip()

    def test_a_filter_with_no_driver_configured_changes_nothing(self, branch: Path) -> None:
        write(branch, ".gitattributes", "*.bin filter=lfs\n")  # git-lfs not installed here
        write(branch, "asset.bin", "pointer")
        commit(branch, "attributes")
        write(branch, "asset.bin", "new binary content")
        changes = collect(branch)
        assert changes.unchecked == ()
        base = git(branch, "merge-base", "main", "HEAD").decode().strip()
        assert rows(changes) == oracle(branch, base)

    def test_a_large_untracked_folder_that_is_ignored_is_never_read(self, branch: Path) -> None:
        for number in range(50):
            write(branch, f"build/deep/{number}.o", "x")
        assert collect(branch).changes == ()


def _fingerprint(root: Path) -> dict[str, str]:
    """Every file under the repository (including .git, excluding cagr's own state)."""
    out = {}
    for folder, dirs, files in os.walk(root):
        if Path(folder).name == ".git":
            dirs[:] = [d for d in dirs if d != "cagr"]
        for name in files:
            path = Path(folder) / name
            if path.is_symlink():
                out[str(path)] = "link:" + os.readlink(path)
            else:
                out[str(path)] = (
                    hashlib.sha256(path.read_bytes()).hexdigest() + f":{path.stat().st_mtime_ns}"
                )
    return out


def test_no_check_modifies_the_index_refs_objects_or_files(branch: Path) -> None:
    write(branch, "src/schema.py", "v2")
    git(branch, "add", "src/schema.py")
    write(branch, "src/schema.py", "v3")
    write(branch, "untracked.py", "x")
    os.utime(branch / ".git" / "index")  # make every entry racily clean: git would rewrite
    before = _fingerprint(branch)
    collect(branch)
    collect(branch, committed=True)
    assert _fingerprint(branch) == before


def test_info_attributes_override_and_nested_patterns(branch: Path) -> None:
    write(branch, "sub/.gitattributes", "*.dat filter=lfs\n")
    write(branch, "sub/deep/a.dat", "v1")
    write(branch, "b.dat", "v1")
    commit(branch, "attributes")
    git(branch, "config", "filter.lfs.process", "git-lfs filter-process")
    write(branch, "sub/deep/a.dat", "v2")
    write(branch, "b.dat", "v2")  # outside sub/: no filter applies
    (item,) = collect(branch).unchecked
    assert item.message.startswith("sub/deep/a.dat: git runs its `lfs` filter on it")
    write(branch, ".git/info/attributes", "*.dat -filter\n")  # info/attributes wins
    changes = collect(branch)
    assert changes.unchecked == ()
    assert paths(changes) == {"b.dat": "A", "sub/.gitattributes": "A", "sub/deep/a.dat": "A"}


def test_an_unreadable_asset_does_not_stop_unrelated_rules(branch: Path) -> None:
    git(branch, "config", "filter.lfs.clean", "git-lfs clean -- %f")
    write(branch, ".gitattributes", "*.bin filter=lfs\n")
    write(branch, "asset.bin", "pointer")
    commit(branch, "attributes")
    write(branch, "asset.bin", "new binary content")
    write(branch, "src/schema.py", "v2")
    changes = collect(branch)
    assert [u.path for u in changes.unchecked] == ["asset.bin"]
    assert status(changes) == "fail"  # the schema rule never looks at asset.bin


def test_a_missing_base_tree_is_unchecked_not_a_crash(branch: Path) -> None:
    write(branch, "x", "1")
    commit(branch, "work")
    tree = git(branch, "rev-parse", "main^{tree}").decode().strip()
    os.unlink(branch / ".git" / "objects" / tree[:2] / tree[2:])
    for committed in (False, True):
        (item,) = collect(branch, committed=committed).unchecked
        assert "an object is missing from this clone" in item.message
