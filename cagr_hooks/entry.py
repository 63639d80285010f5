"""`cagr hook [--agent AGENT] [--deadline SECONDS]`: one agent hook call, JSON in, JSON out.

Reads the agent's JSON on stdin (the first complete JSON object: an agent may leave its end of
the pipe open), decides, prints at most one JSON object on stdout and exits 0. Logs and notices
the agent has no field for go to stderr. A shell command that is not a PR command returns at
once, and so does the call after a shell command that left HEAD where it was: this module and
everything it imports before those points are the standard library only, because they run on
every shell command an agent makes. Any error lets the call through with a notice naming the
stage, and never records a pass. One deadline covers the whole call, reading included.
"""

from __future__ import annotations

import os
import sys
import time

from cagr_repo import json_read

from . import protocols
from .protocols import AGENTS, NONE, Decision, HookInput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cagr_git.discover import Checkout

    from .shell_command import Found

DEFAULT_DEADLINE = 60.0  # seconds for the whole hook: check, stack commands, rendering, cleanup
MAX_INPUT = 4 * 1024 * 1024
USAGE = "usage: cagr hook [--agent claude|codex|cursor|gemini] [--deadline SECONDS]"


class _Options:
    __slots__ = ("agent", "deadline", "help", "problems")

    def __init__(self, argv: list[str]) -> None:
        self.agent: str | None = None
        self.deadline = DEFAULT_DEADLINE
        self.help = False
        self.problems: list[str] = []
        args = list(argv)
        while args:
            name, _, value = args.pop(0).partition("=")
            if name in ("-h", "--help"):
                self.help = True
                continue
            if name in ("--agent", "--deadline") and not value:
                value = args.pop(0) if args else ""
            if name == "--agent" and value in AGENTS:
                self.agent = value
            elif name == "--deadline" and _seconds(value) is not None:
                self.deadline = _seconds(value) or 0.0
            else:
                self.problems.append(f"`{name}={value}`" if value else f"`{name}`")


def _seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 <= value <= 3600 else None


def main(argv: list[str]) -> int:
    """Run one hook call; always exit 0 (an agent reads other codes as errors or blocks)."""
    started = time.monotonic()
    options = _Options(argv)
    if options.help or sys.stdin.isatty():
        print(f"{USAGE}\nReads one agent hook call, as JSON, on stdin.", file=sys.stderr)
        return 0
    if options.problems:
        print(f"cagr hook: ignoring {', '.join(options.problems)}. {USAGE}", file=sys.stderr)
    try:
        return _call(options, started)
    except Exception as error:  # a hook never fails the agent's call
        print(f"cagr hook: {type(error).__name__}: {error}; let through.", file=sys.stderr)
        return 0


def read_payload(deadline: float) -> object:
    """The first complete JSON value on stdin, read until it is complete, the input ends or the
    deadline passes (ValueError for the last two, or for what is not JSON)."""
    try:
        import select  # noqa: PLC0415  # POSIX: wait for input without blocking past the deadline

        fd = sys.stdin.fileno()
        select.select([fd], [], [], 0)
    except (ImportError, OSError, ValueError, AttributeError):  # no pollable stdin (Windows)
        return _loads(sys.stdin.buffer.read(MAX_INPUT + 1))
    data = bytearray()
    while True:
        left = deadline - time.monotonic()
        if not select.select([fd], [], [], max(0.0, left))[0]:
            if left <= 0:
                raise ValueError("the input did not end, or held no whole JSON object, in time")
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return _loads(bytes(data))
        data += chunk
        if len(data) > MAX_INPUT:
            raise ValueError(f"more than {MAX_INPUT} bytes")
        if data.rstrip().endswith(b"}"):  # perhaps complete: the agent may keep stdin open
            try:
                text = data.decode("utf-8")
                return json_read.scan(text, len(text) - len(text.lstrip()))[0]
            except ValueError:
                continue  # not complete yet (or not JSON: the end of input will say)


def _loads(data: bytes) -> object:
    if len(data) > MAX_INPUT:
        raise ValueError(f"more than {MAX_INPUT} bytes")
    if not data.strip():
        raise ValueError("it was empty: the agent sent no JSON")
    return json_read.loads(data)


def _call(options: _Options, started: float) -> int:
    """Read the payload, decide and answer."""
    try:
        payload = read_payload(started + options.deadline)
    except (ValueError, OSError, RecursionError) as error:
        payload = None
        print(f"cagr hook: unreadable input ({error}); the call was let through.", file=sys.stderr)
    if not isinstance(payload, dict):
        return 0
    hook = HookInput(options.agent or protocols.detect_agent(payload), payload)
    found = None
    guarded = None
    if hook.moment == protocols.COMMAND:
        if hook.command is None:
            return 0
        cwd = hook.command_cwd or os.getcwd()
        guarded = _guarded(hook.command, cwd)
        if not protocols.might_run_pr_command(hook.command):
            if guarded is None:
                return 0  # the fast path: nearly every other shell command
        else:
            from .shell_command import find_pr_commands  # noqa: PLC0415  # stdlib

            found = find_pr_commands(hook.command, cwd)
            if not found.commands and found.unreadable is None and not found.mentioned:
                found = None  # it only looked like one
                if guarded is None:
                    return 0
    if hook.moment == protocols.AFTER_COMMAND:
        from .refresh import head_moved  # noqa: PLC0415  # stdlib, small

        if not head_moved(hook.command_cwd or os.getcwd()):
            return 0  # the fast path: HEAD and the target are where the record says
    decision, stages, gitdir = _decide(hook, started + options.deadline, found, guarded)
    _answer(hook, decision)
    if gitdir is not None and hook.moment is not None:
        from . import notices, timings  # noqa: PLC0415

        if decision.kind in ("notice", "deny", "block"):
            notices.record(gitdir, hook.agent, hook.moment, decision.kind, decision.text)
        timings.record(gitdir, hook.moment, (time.monotonic() - started) * 1000, stages)
    if "threading" in sys.modules and sys.modules["threading"].active_count() > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)  # a check still running past the deadline: leave it behind
    return 0


def _guarded(command: str, cwd: str) -> Decision | None:
    """The command guards' decision on a shell command (None: nothing to say). Any error lets
    the command through with a notice: a guard never fails the agent's call."""
    try:
        from .guard_state import might_trip, quick_look  # noqa: PLC0415  # stdlib, small

        quick = quick_look(cwd)
        if quick is not None and not might_trip(command, *quick):
            return None  # the fast path: the guard file is current and nothing trips
        from .guard_state import known_guards  # noqa: PLC0415

        known, checkout = known_guards(cwd)
        if not might_trip(command, known.programs, known.disabled):
            return None
        from .guards import judge_command  # noqa: PLC0415  # the shell reader

        gitdir = checkout.gitdir if checkout is not None else None
        commondir = checkout.commondir if checkout is not None else None
        decision = judge_command(command, cwd, known, gitdir, commondir)
    except Exception as error:  # fail open, with a notice
        return Decision(
            "notice",
            f"cagr: unchecked: an error in the command guards ({type(error).__name__}: {error})"
            " let this command through; nothing was approved. Set CAGR_DEBUG=1 for details.",
        )
    return None if decision.kind == "none" else decision


def _joined(first: Decision, second: Decision | None) -> Decision:
    """Two decisions on one command: a deny wins; notices are said together."""
    if second is None or second.kind == "none":
        return first
    if first.kind == "none" or (second.kind == "deny" and first.kind != "deny"):
        return second
    if first.kind == second.kind:
        return Decision(first.kind, f"{second.text}\n\n{first.text}")
    return first


def _decide(
    hook: HookInput, deadline: float, found: Found | None, guarded: Decision | None = None
) -> tuple[Decision, dict[str, float], str | None]:
    """The decision, the stage timings, and the git dir (None outside a repository)."""
    stage = "finding the repository"
    stages: dict[str, float] = {}
    gitdir = None
    try:
        from cagr_git.discover import NotARepository, find_checkout  # noqa: PLC0415

        cwd = hook.cwd or os.getcwd()
        if hook.moment is None:
            return NONE, stages, None
        if hook.moment == protocols.COMMAND:
            stage = "the PR gate"
            decision = NONE
            if found is not None:
                from .gate import decide as gate  # noqa: PLC0415

                decision = gate(found, hook.command_cwd or cwd)
            decision = _joined(decision, guarded)
            try:
                gitdir = find_checkout(cwd).gitdir
            except NotARepository:
                gitdir = None
            return decision, stages, gitdir
        if hook.moment == protocols.AFTER_COMMAND:
            stage = "refreshing the committed record"
            from .refresh import refresh  # noqa: PLC0415

            gitdir, stages = refresh(hook.command_cwd or cwd, deadline)
            return NONE, stages, gitdir
        try:
            checkout = find_checkout(cwd)
        except NotARepository:
            return NONE, stages, None
        if checkout.root is None:
            return NONE, stages, None
        gitdir = checkout.gitdir
        if hook.moment == protocols.PROMPT:
            stage = "the prompt"
            from . import turn_state  # noqa: PLC0415

            if hook.session and not turn_state.is_own_continuation(hook.prompt or ""):
                turn_state.reset(gitdir, hook.session)
            return NONE, stages, gitdir
        if hook.moment == protocols.SESSION_START:
            stage = "the session brief"
            return _session_start(hook, checkout), stages, gitdir
        if hook.stopped:
            return NONE, stages, gitdir  # the person stopped the turn: no follow-up to send
        stage = "the turn-end check"
        decision, stages = _turn_end(hook, checkout, deadline)
        return decision, stages, gitdir
    except Exception as error:  # fail open: any fault lets the call through
        if os.environ.get("CAGR_DEBUG"):
            import traceback  # noqa: PLC0415

            traceback.print_exc()
        return (
            Decision(
                "notice",
                f"cagr: unchecked: an error in {stage} ({type(error).__name__}: {error}) let this"
                " call through; no passing result was recorded. Run `cagr rules check` to see"
                " the change rules; set CAGR_DEBUG=1 for details.",
            ),
            stages,
            gitdir,
        )


def _session_start(hook: HookInput, checkout: Checkout) -> Decision:
    """The brief; for Cursor, with the notice of an earlier stop it could not show anyone."""
    from . import turn_state  # noqa: PLC0415
    from .session import brief  # noqa: PLC0415

    turn_state.forget_old_sessions(checkout.gitdir)
    decision = brief(checkout)
    left = turn_state.take_notice(checkout.gitdir) if hook.agent == "cursor" else None
    if left:
        text = f"cagr, at the end of an earlier turn here:\n{left}"
        return Decision("context", f"{text}\n\n{decision.text}".strip())
    return decision


def _turn_end(
    hook: HookInput, checkout: Checkout, deadline: float
) -> tuple[Decision, dict[str, float]]:
    from . import turn_state  # noqa: PLC0415
    from .turn_end import decide  # noqa: PLC0415

    decision, stages = decide(checkout, hook.session, deadline)
    if hook.agent == "cursor" and decision.kind == "notice":
        turn_state.leave_notice(checkout.gitdir, decision.text)  # Cursor's stop shows no one
    return decision, stages


def _answer(hook: HookInput, decision: Decision) -> None:
    output = protocols.render(hook, decision)
    if decision.kind in ("notice", "deny", "block") and (output is None or output == {}):
        print(decision.text, file=sys.stderr)  # the agent has no field for it: the log has it
    if output is not None:
        import json  # noqa: PLC0415  # json imports re: the fast paths answer nothing

        sys.stdout.write(json.dumps(output) + "\n")
