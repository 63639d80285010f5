"""The gate record: written by a committed check, read back exactly, and current only while
everything it was made for still holds."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cagr_core.values import replace
from cagr_core.version import VERSION
from cagr_git.discover import Checkout, find_checkout
from cagr_git.refs import branch_ref, read_ref
from cagr_repo.check import CheckRequest, check
from cagr_repo.config import load_config
from cagr_repo.config_files import find_config_files
from cagr_repo.gate_record import GateRecord, Observed, observe, read_gate_record, stale_reasons
from cagr_repo.state import GATE_RECORD, state_path
from tests.support.configs import rule
from tests.support.git import commit, git, write


@pytest.fixture
def branch(repo: Path) -> Path:
    write(repo, "cagr.toml", rule())
    write(repo, "src/schema.py", "v1")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "work")
    write(repo, "src/schema.py", "v2")
    commit(repo, "work")
    return repo


def committed_check(root: Path, base: str | None = None) -> GateRecord:
    checkout = find_checkout(str(root))
    result = check(load_config(root), checkout, CheckRequest(base=base, committed=True))
    assert result.record_written
    assert result.record is not None
    return result.record


def observed(root: Path, target_ref: str | None = None) -> tuple[Checkout, Observed]:
    checkout = find_checkout(str(root))
    record = read_gate_record(checkout.gitdir)
    assert record is not None
    ref = target_ref or record.default_target_ref or record.target_ref
    now = observe(
        checkout,
        head=read_ref(checkout, "HEAD"),
        target_ref=target_ref,
        target_ref_value=read_ref(checkout, ref),
        config_digest=find_config_files(str(root)).digest(),
    )
    return checkout, now


def reasons(root: Path, target_ref: str | None = None) -> list[str]:
    checkout, now = observed(root, target_ref)
    record = read_gate_record(checkout.gitdir)
    assert record is not None
    return stale_reasons(record, now)


class TestRecord:
    def test_round_trip(self, branch: Path) -> None:
        written = committed_check(branch)
        read = read_gate_record(find_checkout(str(branch)).gitdir)
        assert read is not None
        assert read.to_json() == written.to_json()
        assert read.status == "fail"
        assert read.head == git(branch, "rev-parse", "HEAD").decode().strip()
        assert read.target_ref == "refs/heads/main"
        assert read.default_target_ref == "refs/heads/main"
        assert read == written
        assert [f.rule for f in read.report.findings] == ["schema"]

    @pytest.mark.parametrize(
        "tamper",
        [
            lambda d: d.update(head="HEAD"),
            lambda d: d.update(base=None),
            lambda d: d.pop("config_digest"),
            lambda d: d.update(version=1),
            lambda d: d["report"].update(status="passed"),
            lambda d: d["report"].update(findings={}),
            lambda d: d["report"]["findings"][0].pop("fix"),
            lambda d: d.update(target_ref_value=3),
        ],
    )
    def test_a_record_not_as_written_is_absent(self, branch: Path, tamper: object) -> None:
        committed_check(branch)
        gitdir = find_checkout(str(branch)).gitdir
        path = Path(state_path(gitdir, GATE_RECORD))
        data = json.loads(path.read_text())
        tamper(data)  # type: ignore[operator]
        path.write_text(json.dumps(data))
        assert read_gate_record(gitdir) is None

    def test_junk_is_absent(self, branch: Path) -> None:
        committed_check(branch)
        gitdir = find_checkout(str(branch)).gitdir
        Path(state_path(gitdir, GATE_RECORD)).write_text("[" * 100_000)
        assert read_gate_record(gitdir) is None

    def test_a_record_that_cannot_be_written_removes_the_older_one(self, branch: Path) -> None:
        committed_check(branch)
        write(branch, "schema.json", "{}")
        commit(branch, "companion")

        def full_disk() -> None:  # files over 64 bytes fail to write, as on a full disk
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))

        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "cagr_cli",
                "--repo",
                str(branch),
                "rules",
                "check",
                "--committed",
            ],
            capture_output=True,
            text=True,
            preexec_fn=full_disk,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        assert "could not be written" in result.stderr
        assert read_gate_record(find_checkout(str(branch)).gitdir) is None

    def test_a_linked_state_folder_is_never_written_through(
        self, branch: Path, tmp_path: Path
    ) -> None:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        (branch / ".git" / "cagr").symlink_to(elsewhere)
        checkout = find_checkout(str(branch))
        result = check(load_config(branch), checkout, CheckRequest(committed=True))
        assert not result.record_written
        assert list(elsewhere.iterdir()) == []
        assert read_gate_record(checkout.gitdir) is None


class TestCurrency:
    def test_current_right_after_the_check(self, branch: Path) -> None:
        committed_check(branch)
        assert reasons(branch) == []

    def test_dirty_files_do_not_make_it_stale(self, branch: Path) -> None:
        committed_check(branch)
        write(branch, "src/schema.py", "v3")
        write(branch, "untracked.txt", "x")
        assert reasons(branch) == []

    def test_head_moved(self, branch: Path) -> None:
        committed_check(branch)
        write(branch, "schema.json", "{}")
        commit(branch, "companion")
        assert reasons(branch) == ["HEAD moved since"]

    def test_target_moved_with_the_same_head(self, branch: Path) -> None:
        committed_check(branch)
        git(branch, "update-ref", "refs/heads/main", "HEAD")
        assert reasons(branch) == ["the target refs/heads/main moved since"]

    def test_config_changed_with_the_same_head(self, branch: Path) -> None:
        committed_check(branch)
        write(branch, "cagr.toml", rule() + "\n# a comment\n")
        assert reasons(branch) == ["the cagr configuration changed since"]

    def test_another_target(self, branch: Path) -> None:
        committed_check(branch)
        git(branch, "branch", "release", "main")
        checkout = find_checkout(str(branch))
        release = branch_ref(checkout, "release")
        assert reasons(branch, release) == [
            "it was made for target refs/heads/main, not refs/heads/release"
        ]

    def test_another_version(self, branch: Path) -> None:
        committed_check(branch)
        checkout, now = observed(branch)
        now = replace(now, version="9.9.9")
        record = read_gate_record(checkout.gitdir)
        assert record is not None
        assert stale_reasons(record, now) == [f"it was made by cagr {VERSION}, this is 9.9.9"]

    def test_another_worktree(self, branch: Path, tmp_path: Path) -> None:
        committed_check(branch)
        git(branch, "worktree", "add", "-q", str(tmp_path / "wt"), "HEAD")
        record = read_gate_record(find_checkout(str(branch)).gitdir)
        assert record is not None
        _, now = observed(branch)
        now = replace(now, identity=(now.identity[0], str(tmp_path / "wt")))
        assert stale_reasons(record, now) == ["it was made in another repository or worktree"]


class TestRevisionTargets:
    """A target that is not a ref: its record is current only while it names the same commit."""

    @pytest.fixture
    def no_default(self, branch: Path) -> Path:
        """No default target ref (the configured branch does not exist), as for a PR command
        that gives no --base in such a repository: only the record's own target decides."""
        write(branch, "cagr.toml", rule() + '\n[git]\nprotected_branch = "trunk"\n')
        commit(branch, "config")
        return branch

    def test_relative_to_head_is_fixed_by_head(self, no_default: Path) -> None:
        record = committed_check(no_default, "HEAD~2")
        assert (record.target_ref, record.default_target_ref) == ("HEAD~2", None)
        assert record.target == git(no_default, "rev-parse", "HEAD~2").decode().strip()
        assert reasons(no_default) == []
        commit(no_default, "more")
        assert reasons(no_default) == ["HEAD moved since"]

    def test_a_commit_id_never_moves(self, no_default: Path) -> None:
        full = git(no_default, "rev-parse", "main").decode().strip()
        record = committed_check(no_default, full[:7])
        assert record.target_ref == full
        git(no_default, "update-ref", "refs/heads/main", "HEAD")
        assert reasons(no_default) == []

    def test_relative_to_a_branch_may_have_moved(self, no_default: Path) -> None:
        record = committed_check(no_default, "work~1")
        assert record.target_ref == "refs/heads/work~1"
        assert reasons(no_default) == [
            "its target refs/heads/work~1 is read through refs/heads/work, which may have moved"
            " since"
        ]

    def test_a_pull_request_for_a_branch_wants_that_branch(self, branch: Path) -> None:
        committed_check(branch, "HEAD~1")
        assert reasons(branch) == ["it was made for target HEAD~1, not refs/heads/main"]


class TestDefaultTarget:
    def test_origin_head_names_the_default_target(self, branch: Path) -> None:
        git(branch, "branch", "-m", "main", "master")
        git(branch, "update-ref", "refs/remotes/origin/master", "master")
        git(branch, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/master")
        record = committed_check(branch)
        assert record.target_name == "master"
        assert record.target_ref == record.default_target_ref == "refs/remotes/origin/master"
        assert record.report.range is not None
        assert record.report.range.chosen_by == "origin/HEAD"
        assert reasons(branch) == []
