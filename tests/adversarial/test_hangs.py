"""Hangs: inputs that made a check run for minutes or block forever. Each runs in its own
process under a generous timeout, so a regression fails the test instead of stalling the suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ..repo.gitutil import commit, write
from .conftest import run_process

HANG_GUARD_S = 20  # no timing assertion: only a bound on a hang (it took 30 s and more)


def test_19_consecutive_globstars_against_a_deep_path(feature: Path) -> None:
    pattern = "**/a*/**/a*/**/a*/**/a*/**/a*/**/b"
    text = (feature / "cagr.toml").read_text().replace('"src/schema.ts"]', f'"{pattern}"]', 1)
    (feature / "cagr.toml").write_text(text)
    commit(feature, "rule")
    write(feature, "/".join(["a"] * 80) + "/c", "deep\n")
    outcome = run_process(["rules", "check"], feature, timeout=HANG_GUARD_S)
    assert outcome.code == 0, outcome  # nothing matches: the deep path has no `b`
    write(feature, "/".join(["a"] * 80) + "/b", "deep\n")
    outcome = run_process(["rules", "check"], feature, timeout=HANG_GUARD_S)
    assert outcome.code == 1, outcome  # and it does match when there is one


def test_20_fifo_fragment(feature: Path) -> None:
    (feature / ".cagr").mkdir()
    os.mkfifo(feature / ".cagr" / "x.toml")
    for args in (["rules", "check"], ["rules", "test"], ["explain", "schema-out"]):
        outcome = run_process(args, feature, timeout=HANG_GUARD_S)
        assert outcome.code == 2, outcome
        assert ".cagr/x.toml: is not a regular file" in outcome.err


def test_20_fifo_config(feature: Path) -> None:
    (feature / "cagr.toml").unlink()
    os.mkfifo(feature / "cagr.toml")
    outcome = run_process(["rules", "check"], feature, timeout=HANG_GUARD_S)
    assert outcome.code == 2, outcome
    assert "cagr.toml: is not a regular file" in outcome.err


def _hook(feature: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "cagr_cli", "hook", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=feature,
    )


def test_a_payload_followed_by_an_open_stdin_is_answered(feature: Path) -> None:
    """The hook reads the first complete JSON object; it never waits for end-of-input."""
    commit(feature, "schema only")
    payload = {
        "session_id": "s",
        "cwd": str(feature),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "gh pr create -t T -b x"},
    }
    with _hook(feature) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write(json.dumps(payload).encode() + b"\n")
        process.stdin.flush()  # and kept open, as an agent holding its end of the pipe does
        try:
            ended = process.wait(timeout=HANG_GUARD_S)
        finally:
            process.kill()
        assert ended == 0, "the hook waited for end-of-input"
        assert b"no prepared change-rule result" in process.stdout.read()


def test_an_unfinished_payload_on_an_open_stdin_ends_at_the_deadline(feature: Path) -> None:
    with _hook(feature, "--deadline", "2") as process:
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdin.write(b'{"hook_event_name": "Stop", "session_id": "s", "cwd": ')
        process.stdin.flush()
        try:
            ended = process.wait(timeout=HANG_GUARD_S)
        finally:
            process.kill()
        assert ended == 0
        assert b"unreadable input" in process.stderr.read()
        assert process.stdout.read() == b""
