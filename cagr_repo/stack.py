"""Running `[stack]` check commands: existing read-only checks, run after the change rules.

Each command runs through the shell, in the checkout's root, with standard input closed, in its
own process group, and only when its `paths` are empty or a changed path matches them. Commands
share one deadline: each gets the time left, and on timeout its whole process group is killed.
Only the tail of a command's output is kept. POSIX only (process groups).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from cagr_config.compiled import StackRun
from cagr_core.values import value

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

StackStatus = Literal["passed", "failed", "timed_out", "skipped", "error"]
TAIL_CHARS = 2_000
_TAIL_BYTES = 4 * TAIL_CHARS  # enough bytes for TAIL_CHARS characters of UTF-8
_READ_SIZE = 64 * 1024
_POLL_SECONDS = 0.05


@value
class StackOutcome:
    """How one command went.

    `status`: passed (exit 0), failed (another exit code, or killed by a signal: `exit_code` is
    then minus the signal number), timed_out (killed at the deadline, or never started because
    no time was left), skipped (its `paths` matched no changed path) or error (it could not be
    started). `output_tail`: the last ~2,000 characters of its combined stdout and stderr,
    undecodable bytes replaced.
    """

    command: str
    status: StackStatus
    exit_code: int | None
    output_tail: str
    duration_ms: float


def run_stack(
    commands: Sequence[StackRun],
    root: str,
    changed_paths: Iterable[str],
    deadline: float | None,
    *,
    env: Mapping[str, str] | None = None,
) -> list[StackOutcome]:
    """Run each command that applies, in order, until `deadline` (a time.monotonic() value;
    None: no limit), in the environment `env` (None: this process's). Every command gets an
    outcome, in the order given."""
    changed = tuple(changed_paths)
    outcomes = []
    for command in commands:
        if command.paths and not _touches(command.paths, changed):
            outcomes.append(StackOutcome(command.run, "skipped", None, "", 0.0))
            continue
        outcomes.append(_run_one(command.run, root, deadline, env))
    return outcomes


def _touches(patterns: tuple[str, ...], changed: tuple[str, ...]) -> bool:
    from cagr_config.globs import compile_matcher  # noqa: PLC0415  # wcmatch

    matcher = compile_matcher(patterns)
    return any(matcher.matches(path) for path in changed)


def _run_one(
    command: str, root: str, deadline: float | None, env: Mapping[str, str] | None
) -> StackOutcome:
    import subprocess  # noqa: PLC0415  # only a command to run needs it (with threading, signal)

    started = time.monotonic()
    if deadline is not None and deadline <= started:
        return StackOutcome(command, "timed_out", None, "not started: no time was left", 0.0)
    try:
        process = subprocess.Popen(
            command,
            shell=True,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so a timeout kills all it started
        )
    except OSError as error:
        return StackOutcome(command, "error", None, f"cannot start it: {error}", _ms(started))
    with process:
        tail, timed_out = _read_until_exit(process, deadline)
        _kill_group(process.pid)  # what it started and left running ends with it
    output = tail.decode("utf-8", "replace")[-TAIL_CHARS:]
    if timed_out:
        return StackOutcome(command, "timed_out", None, output, _ms(started))
    code = process.returncode
    status: StackStatus = "passed" if code == 0 else "failed"
    return StackOutcome(command, status, code, output, _ms(started))


def _read_until_exit(
    process: subprocess.Popen[bytes], deadline: float | None
) -> tuple[bytes, bool]:
    """The output's tail, read until the command exits (True: the deadline came first).

    Reading as it goes keeps memory bounded however much a command prints, and children that
    keep the pipe open do not keep cagr waiting once the command itself has exited.
    """
    import selectors  # noqa: PLC0415
    import subprocess  # noqa: PLC0415

    assert process.stdout is not None
    fd = process.stdout.fileno()
    tail = b""
    pipe_open = True
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                _kill_group(process.pid)
                return tail, True
            wait = _POLL_SECONDS if deadline is None else min(_POLL_SECONDS, deadline - now)
            if pipe_open:
                if selector.select(wait):
                    chunk = os.read(fd, _READ_SIZE)
                    if chunk:
                        tail = (tail + chunk)[-_TAIL_BYTES:]
                    else:
                        pipe_open = False
                        selector.unregister(fd)
            else:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=wait)
            if process.poll() is not None:
                return (tail + _drain(fd))[-_TAIL_BYTES:] if pipe_open else tail, False


def _drain(fd: int) -> bytes:
    """What is already in the pipe after the command exited, without waiting for more."""
    os.set_blocking(fd, False)
    data = b""
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(fd, _READ_SIZE):
            data = (data + chunk)[-_TAIL_BYTES:]
    return data


def _kill_group(pid: int) -> None:
    import signal  # noqa: PLC0415

    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _ms(started: float) -> float:
    return (time.monotonic() - started) * 1000
