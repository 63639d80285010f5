"""When cagr cannot write its gate record, it says what really happened to the older one: a
read-only `<gitdir>/cagr` keeps it (the message must not claim it was removed), and a state
folder that is a link is neither written nor emptied through."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.adversarial import Outcome, run_process, unwritable
from tests.support.git import commit, write

Cagr = Callable[..., Outcome]


@pytest.fixture
def read_only_state(feature: Path) -> Iterator[Path]:
    """The feature branch with a passing record for its first commit, then a folder that
    cannot be written (file permissions apply in the child even as root: see run_process)."""
    commit(feature, "edit without the companion")
    folder = feature / ".git" / "cagr"
    assert run_process(["rules", "check", "--committed"], feature).code == 1
    folder.chmod(0o555)
    try:
        yield feature
    finally:
        folder.chmod(0o755)


def _record(feature: Path) -> dict:
    return json.loads((feature / ".git" / "cagr" / "gate.json").read_text())


def test_an_older_record_that_stays_is_not_said_to_be_removed(read_only_state: Path) -> None:
    feature = read_only_state
    if not unwritable(feature / ".git" / "cagr"):
        pytest.skip("file permissions do not apply here")
    before = _record(feature)
    write(feature, "schema/out.json", '{"v": 2}\n')
    commit(feature, "the companion")
    outcome = run_process(["rules", "check", "--committed"], feature, permissions_apply=True)
    assert outcome.code == 0, outcome
    assert "removed" not in outcome.err.replace("could not be removed", "")
    assert "could not be written" in outcome.err
    assert "Permission denied" in outcome.err
    assert f"for HEAD {before['head'][:7]}, result fail" in outcome.err
    assert "could not be removed; it is for another commit" in outcome.err
    assert _record(feature) == before  # still there, and the message says so


def test_the_same_commit_checked_again_says_the_gate_still_uses_the_older_record(
    read_only_state: Path,
) -> None:
    feature = read_only_state
    if not unwritable(feature / ".git" / "cagr"):
        pytest.skip("file permissions do not apply here")
    outcome = run_process(["rules", "check", "--committed"], feature, permissions_apply=True)
    assert outcome.code == 1, outcome
    assert "`gh pr create` goes by it for as long as it matches HEAD" in outcome.err


def test_a_record_that_could_be_removed_is_said_to_be_removed(feature: Path) -> None:
    commit(feature, "edit")
    assert run_process(["rules", "check", "--committed"], feature).code == 1
    gate = feature / ".git" / "cagr" / "gate.json"
    gate.chmod(0o444)  # the file, not its folder: it can still be replaced or removed
    outcome = run_process(["rules", "check", "--committed"], feature, permissions_apply=True)
    assert outcome.code == 1
    assert outcome.err == ""  # replaced by rename: a read-only file is no obstacle


def test_a_linked_state_folder_is_neither_written_nor_emptied(
    feature: Path, cagr: Cagr, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "gate.json").write_text("not cagr's to delete\n")
    (feature / ".git" / "cagr").symlink_to(elsewhere)
    commit(feature, "edit")
    outcome = cagr(feature, "rules", "check", "--committed")
    assert outcome.code == 1
    assert "could not be written" in outcome.err
    assert "a symbolic link" in outcome.err
    assert (elsewhere / "gate.json").read_text() == "not cagr's to delete\n"
    assert sorted(os.listdir(elsewhere)) == ["gate.json"]


@pytest.mark.parametrize("link", ["cagr", "cagr/turns"])
def test_old_session_counts_are_never_cleared_through_a_link(
    feature: Path, tmp_path: Path, link: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    turns = elsewhere / "turns" if link == "cagr" else elsewhere
    turns.mkdir(parents=True)
    old = turns / "someone-elses.json"
    old.write_text("{}\n")
    os.utime(old, (0, 0))  # far older than the week session counts are kept
    (feature / ".git" / "cagr").mkdir(exist_ok=True)
    if link == "cagr":
        (feature / ".git" / "cagr").rmdir()
    (feature / ".git" / link).symlink_to(elsewhere)
    payload = {"hook_event_name": "SessionStart", "session_id": "s", "cwd": str(feature)}
    result = subprocess.run(
        [sys.executable, "-m", "cagr_cli", "hook", "--agent", "claude"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=feature,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert old.exists()
