"""`[stack]` check commands: which run, what they report, and that a deadline really stops them."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from cagr_config.document import StackCommand
from cagr_repo.stack import TAIL_CHARS, run_stack


def one(tmp_path: Path, run: str, deadline: float | None = None, changed: tuple[str, ...] = ()):
    (outcome,) = run_stack([StackCommand(run=run)], tmp_path, changed, deadline)
    return outcome


class TestWhichCommandsRun:
    def test_paths_select_commands_by_the_changed_paths(self, tmp_path: Path) -> None:
        commands = [
            StackCommand(run="echo always"),
            StackCommand(run="echo docs", paths=("docs/**",)),
            StackCommand(run="echo src", paths=("src/**/*.py", "/setup.cfg")),
        ]
        outcomes = run_stack(commands, tmp_path, ["src/pkg/a.py", "README.md"], None)
        assert [(o.command, o.status) for o in outcomes] == [
            ("echo always", "passed"),
            ("echo docs", "skipped"),
            ("echo src", "passed"),
        ]
        skipped = outcomes[1]
        assert (skipped.exit_code, skipped.output_tail, skipped.duration_ms) == (None, "", 0.0)

    def test_basename_patterns_match_anywhere(self, tmp_path: Path) -> None:
        command = StackCommand(run="true", paths=("package.json",))
        (outcome,) = run_stack([command], tmp_path, ["packages/a/package.json"], None)
        assert outcome.status == "passed"


class TestOutcomes:
    def test_exit_codes(self, tmp_path: Path) -> None:
        passed = one(tmp_path, "exit 0")
        assert (passed.status, passed.exit_code) == ("passed", 0)
        failed = one(tmp_path, "exit 3")
        assert (failed.status, failed.exit_code) == ("failed", 3)

    def test_killed_by_a_signal_is_a_failure(self, tmp_path: Path) -> None:
        outcome = one(tmp_path, "kill -TERM $$")
        assert (outcome.status, outcome.exit_code) == ("failed", -15)

    def test_missing_program_is_a_failure_from_the_shell(self, tmp_path: Path) -> None:
        outcome = one(tmp_path, "no-such-program-for-cagr")
        assert (outcome.status, outcome.exit_code) == ("failed", 127)
        assert "not found" in outcome.output_tail

    def test_stdout_and_stderr_are_combined_in_order(self, tmp_path: Path) -> None:
        outcome = one(tmp_path, "echo out; echo err >&2; echo out2")
        assert outcome.output_tail == "out\nerr\nout2\n"

    def test_only_the_tail_is_kept(self, tmp_path: Path) -> None:
        script = "import sys\nfor i in range(200000): print(f'line {i}')\nprint('END')"
        (tmp_path / "big.py").write_text(script)
        outcome = one(tmp_path, "python3 big.py")
        assert outcome.status == "passed"
        assert len(outcome.output_tail) == TAIL_CHARS
        assert outcome.output_tail.endswith("line 199999\nEND\n")

    def test_undecodable_bytes_are_replaced(self, tmp_path: Path) -> None:
        outcome = one(tmp_path, r"printf 'a\377b\n'")
        assert outcome.output_tail == "a\ufffdb\n"

    def test_runs_in_the_root_with_stdin_closed(self, tmp_path: Path) -> None:
        outcome = one(tmp_path, 'pwd; if read line; then echo "read: $line"; else echo eof; fi')
        assert outcome.output_tail == f"{os.path.realpath(tmp_path)}\neof\n"

    def test_a_command_that_cannot_start_is_an_error(self, tmp_path: Path) -> None:
        (outcome,) = run_stack([StackCommand(run="true")], tmp_path / "gone", [], None)
        assert outcome.status == "error"
        assert outcome.exit_code is None
        assert "cannot start it" in outcome.output_tail


class TestDeadline:
    def test_a_command_past_the_deadline_is_killed_with_its_group(self, tmp_path: Path) -> None:
        pid_file = tmp_path / "child.pid"
        started = time.monotonic()
        outcome = one(
            tmp_path,
            f"echo started; sleep 60 & echo $! > {pid_file}; wait",
            deadline=time.monotonic() + 1.0,
        )
        assert outcome.status == "timed_out"
        assert outcome.exit_code is None
        assert outcome.output_tail == "started\n"
        assert time.monotonic() - started < 30  # far less than the 60 s the command wanted
        child = int(pid_file.read_text())
        assert not _alive(child), "the background child outlived the timeout"

    def test_no_time_left_starts_nothing(self, tmp_path: Path) -> None:
        marker = tmp_path / "ran"
        commands = [StackCommand(run=f"touch {marker}"), StackCommand(run="true")]
        outcomes = run_stack(commands, tmp_path, [], time.monotonic() - 1)
        assert [o.status for o in outcomes] == ["timed_out", "timed_out"]
        assert outcomes[0].output_tail == "not started: no time was left"
        assert not marker.exists()

    def test_children_left_behind_do_not_hold_cagr(self, tmp_path: Path) -> None:
        pid_file = tmp_path / "child.pid"
        started = time.monotonic()
        outcome = one(tmp_path, f"sleep 60 & echo $! > {pid_file}; echo done")
        assert (outcome.status, outcome.output_tail) == ("passed", "done\n")
        assert time.monotonic() - started < 30
        assert not _alive(int(pid_file.read_text()))


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie awaiting its parent counts as gone)."""
    deadline = time.monotonic() + 5  # SIGKILL delivery is asynchronous
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except FileNotFoundError:
            return False
        if state == "Z":
            return False
        time.sleep(0.05)
    return True


@pytest.fixture(autouse=True)
def _posix_only() -> None:
    if os.name != "posix":
        pytest.skip("[stack] commands run in POSIX process groups")
