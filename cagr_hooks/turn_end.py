"""An agent's turn end: check merge base -> working tree, block the first two failing stops.

The whole hook runs under one deadline. The check runs in a worker thread; when the deadline
passes first, the turn end is *unchecked* (a notice, never a pass) and the process leaves the
worker behind. Findings block the first two stops of a turn; the third lets the agent stop with
a message for the person, and records no pass. Deferred PR-body obligations and unchecked items
never block: they are notices, and an obligation the gate found met by the description given
to `gh pr create` for this HEAD is owed no longer. When time is left and the committed gate
record is not current, the committed check runs too, so the `gh pr create` gate is usually warm.
"""

from __future__ import annotations

import hashlib
import json
import time

from cagr_core.changes import ChangeSet
from cagr_core.render import render_details
from cagr_core.report import Report
from cagr_core.values import replace
from cagr_git.discover import Checkout
from cagr_git.refs import read_ref
from cagr_repo.check import CheckRequest, check
from cagr_repo.config import ConfigErrors, load_config
from cagr_repo.judging_config import committed_otherwise_on_disk

from . import pr_seen, turn_state
from .protocols import NONE, NOTICE_LIMIT, Decision
from .refresh import refresh_record
from .worker import DeadlinePassed, within

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cagr_repo.stack import StackOutcome

_RESERVE = 2.0  # seconds kept for rendering, state and output after the last stage
_TEXT_LIMIT = NOTICE_LIMIT - 1_000  # room for the lines around the report


def decide(
    checkout: Checkout, session: str | None, deadline: float
) -> tuple[Decision, dict[str, float]]:
    """The turn-end decision and the time each stage took (milliseconds)."""
    stages: dict[str, float] = {}
    assert checkout.root is not None
    # The last stage must end this much before the deadline: rendering, state and output.
    end = deadline - min(_RESERVE, max(0.0, deadline - time.monotonic()) / 4)
    root = checkout.root
    try:  # reading TOML is bounded (see toml_bounds), and under the deadline too
        config = within(end, lambda: load_config(root, checkout.gitdir))
    except DeadlinePassed:
        return _unchecked(
            "the time for this turn-end check ran out while the configuration was read, so no"
            " change rule was checked. Run `cagr rules test` to see how long it takes."
        ), stages
    except ConfigErrors as errors:
        listed = "\n".join(f"  {issue}" for issue in errors.issues[:20])
        return _unchecked(
            f"the configuration is invalid, so no change rule was checked:\n{listed}\n"
            "Fix it; `cagr rules test` shows every problem."
        ), stages
    if (
        not config.rules.rules
        and not config.settings.on_turn_end
        and not committed_otherwise_on_disk(checkout, config.root)
    ):
        return NONE, stages
    started = time.monotonic()
    try:
        expired = lambda: time.monotonic() > end  # noqa: E731
        request = CheckRequest(expired=expired)
        result = within(end, lambda: check(config, checkout, request))
    except DeadlinePassed:
        return _unchecked(
            "the time for this turn-end check ran out before the change rules were decided."
            " Run `cagr rules check` to see them."
        ), stages
    stages["check"] = (time.monotonic() - started) * 1000
    stages["collect"] = result.report.timings.collect_ms or 0.0
    stages["evaluate"] = result.report.timings.evaluate_ms or 0.0
    started = time.monotonic()
    stack: list[StackOutcome] = []
    if config.settings.on_turn_end:
        from cagr_repo.stack import run_stack  # noqa: PLC0415  # subprocess: only when needed

        stack = run_stack(
            config.settings.on_turn_end,
            checkout.root,
            (change.path for change in result.changes.changes),
            end,
        )
        stages["stack"] = (time.monotonic() - started) * 1000
    report = _still_owed(result.report, checkout)
    fingerprint = _fingerprint(result.changes, report, stack)
    decision = _decision(report, stack, checkout, session, fingerprint)
    refresh_record(config, checkout, deadline, stages)  # blocking or not: the gate reads it
    return decision, stages


def _still_owed(report: Report, checkout: Checkout) -> Report:
    """The report without the PR-body obligations that the description given to `gh pr create`
    (or `gh pr edit --body`) for this HEAD was judged to meet: that PR owes them no longer."""
    if not report.deferred:
        return report
    seen = pr_seen.last(checkout.gitdir)
    if seen is None or not seen.met or seen.head != read_ref(checkout, "HEAD"):
        return report
    kept = tuple(d for d in report.deferred if (d.rule, d.section, d.contains) not in seen.met)
    return replace(report, deferred=kept)


def _unchecked(why: str) -> Decision:
    return Decision(
        "notice",
        f"cagr: unchecked: {why}\nThe agent was let stop; no passing result was recorded.",
    )


def _stack_text(outcomes: list[StackOutcome], statuses: tuple[str, ...]) -> str:
    """The `[stack].on_turn_end` commands with these statuses, with their output's tail."""
    blocks = []
    for outcome in outcomes:
        if outcome.status not in statuses:
            continue
        if outcome.status == "failed":
            head = f"Check command `{outcome.command}` failed (exit {outcome.exit_code})."
            fix = "Instead: fix what it reports, then end the turn again."
        elif outcome.status == "timed_out":
            head = f"Unchecked (stack): check command `{outcome.command}` ran out of time."
            fix = ""
        else:
            head = f"Unchecked (stack): check command `{outcome.command}` could not run."
            fix = ""
        tail = outcome.output_tail.strip()[-1_500:]
        blocks.append("\n".join(part for part in (head, tail, fix) if part))
    return "\n\n".join(blocks)


def _text(report: Report) -> str:
    """The report for the agent and the person, without the note on cagr's own config edits:
    every report says that, and at every turn end it would only repeat itself."""
    return render_details(replace(report, config_changes=None), limit=_TEXT_LIMIT)


def _fingerprint(changes: ChangeSet, report: Report, stack: list[StackOutcome]) -> str:
    """What a stop is judged on: the change (merge base, head, each path's modes and object
    ids, so any edit in the working tree counts), the findings, and the failed commands."""
    range_ = changes.range
    data = {
        "range": [range_.base, range_.head] if range_ is not None else None,
        "changes": [
            [
                change.path,
                *[(side.mode, side.oid) if side else None for side in (change.old, change.new)],
            ]
            for change in changes.changes
        ],
        "findings": [[f.rule, f.message, list(f.paths)] for f in report.findings],
        "stack": [[o.command, o.status, o.exit_code] for o in stack if o.status == "failed"],
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def _decision(
    report: Report,
    stack: list[StackOutcome],
    checkout: Checkout,
    session: str | None,
    fingerprint: str,
) -> Decision:
    failed = _stack_text(stack, ("failed",))
    incomplete = _stack_text(stack, ("timed_out", "error"))
    if report.status == "fail" or failed:
        return _failing(report, failed, checkout, session, fingerprint)
    if session is not None:
        turn_state.clear(checkout.gitdir, session)
    text = "\n\n".join(part for part in (_text(report), incomplete) if part)
    if report.status == "unchecked" or incomplete:
        return Decision(
            "notice",
            f"cagr: the change rules could not all be checked at this turn end:\n\n{text}\n\n"
            "The agent was let stop; no passing result was recorded. Run `cagr rules check`"
            " once the cause above is fixed.",
        )
    if report.findings:  # all of `warn` rules: shown, never blocking
        return Decision(
            "notice",
            "cagr: the change rules pass so far, with warnings (rules of severity warn never"
            f" block a stop):\n\n{text}",
        )
    if report.deferred:
        return Decision(
            "notice",
            f"cagr: the change rules pass so far; the pull request will owe this:\n\n{text}",
        )
    if report.target_config is not None and report.target_config.loosens():
        return Decision("notice", f"cagr: the change rules pass so far. {text}")
    return NONE


def _failing(
    report: Report, stack: str, checkout: Checkout, session: str | None, fingerprint: str
) -> Decision:
    text = "\n\n".join(part for part in (_text(report), stack) if part)
    if session is not None and turn_state.escaped_with(checkout.gitdir, session) == fingerprint:
        rules = ", ".join(dict.fromkeys(f.rule for f in report.errors)) or "stack commands"
        return Decision(
            "notice",
            f"cagr: the change rules still fail ({rules}), and neither the change nor the"
            " findings moved since the agent was last let stop, so this stop is not blocked"
            " again. This is not a pass: `cagr rules check` shows the findings.",
        )
    blocked = turn_state.blocked_stops(checkout.gitdir, session) if session else 0
    if blocked >= turn_state.BLOCKED_STOPS:
        assert session is not None
        turn_state.record_escape(checkout.gitdir, session, fingerprint)
        return Decision(
            "notice",
            f"cagr: the change rules still fail after {blocked} blocked stops; the agent was let"
            " stop so a person can decide. This is not a pass.\n\n" + text,
        )
    if session is None or not turn_state.record_blocked(checkout.gitdir, session, blocked + 1):
        return Decision(
            "notice",
            "cagr: the change rules fail, but cagr cannot keep count of the stops it blocks"
            f" (no session id, or {checkout.gitdir}/cagr cannot be written), so it lets the"
            " agent stop rather than risk an endless loop. This is not a pass.\n\n" + text,
        )
    return Decision(
        "block",
        f"{turn_state.BLOCK_MARKER} (stop {blocked + 1} of"
        f" {turn_state.BLOCKED_STOPS} that cagr blocks).\n\n{text}\n\nFix the change as each"
        " `Instead:` says, or explain why it cannot be done; `cagr explain RULE` shows a rule.",
    )
