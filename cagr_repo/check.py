"""The check as a service: collect a range, evaluate it, time both, and record the result.

`cagr rules check`, the agents' turn-end hook and `cagr ci` are each a thin translation of one
call to `check`. A committed check also writes the gate record the `gh pr create` gate reads.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from cagr_core.changes import ChangeSet, Stage, Unchecked
from cagr_core.evaluator import evaluate
from cagr_core.pull_request import Phase, PrBody
from cagr_core.render import render_details, report_data
from cagr_core.report import Report, Timings, UncommittedConfig
from cagr_core.values import evolve, frozen
from cagr_core.version import VERSION
from cagr_git.discover import Checkout
from cagr_git.objects import DamagedObject
from cagr_git.refs import branch_ref, read_ref
from cagr_git.repository import open_repo

from .collect import collect_committed, collect_working_tree, count_uncommitted
from .config import ConfigErrors, RepoConfig
from .config_changes import committed_config, config_changes, self_target, uncommitted_config
from .gate_record import GateRecord, identity, write_gate_record
from .state import GATE_RECORD, remove
from .target import BY_BASE_OPTION, choose_target, own_branch

RECORD_TEXT_LIMIT = 8_000  # the gate shows it to an agent, whose messages hold 10,000 characters


@frozen
class CheckResult:
    """One check: its report, the change set it judged, and the gate record it wrote, if any."""

    report: Report
    changes: ChangeSet
    record: GateRecord | None = None
    record_written: bool = False
    config_from_head: bool = False  # a committed check judged by HEAD's (different) config


def check(  # noqa: PLR0913  # keyword-only inputs of one check, each with a default
    config: RepoConfig,
    checkout: Checkout,
    *,
    base: str | None = None,
    base_chosen_by: str = BY_BASE_OPTION,
    base_guessed: bool = False,
    head_branch: str | None = None,
    refuse_own_branch: bool | None = None,
    committed: bool = False,
    body: PrBody | None = None,
    note_uncommitted: bool = False,
    expired: Callable[[], bool] | None = None,
    write_record: bool = True,
) -> CheckResult:
    """Collect merge base -> working tree (or HEAD, `committed`) and evaluate the rules.

    The target is `base` (reported as chosen by `base_chosen_by`), else the configured or
    default one. In a committed check (or with `refuse_own_branch`), a guessed target (the
    remote's default branch or main; `base_guessed` when the caller guessed `base`) that is
    the branch being checked and already holds HEAD leaves the range unchecked, as the change
    would be empty; the branch is `head_branch` when the caller knows it (CI, on a detached
    HEAD), else HEAD's. Unpushed commits on it are a change and are judged.
    Without a body, PR-body obligations are deferred (phase turn); with one, they are checked
    against it (phase ci). A committed check writes the gate record, which always
    holds the deferred form: the body that counts at the gate is the one on the `gh` command.
    With `note_uncommitted`, a committed check also counts the paths where the working tree
    differs from HEAD (about the cost of a working-tree check), so a person is told what the
    verdict left out; a clean checkout, as in CI, has nothing to count. `expired` is the
    caller's deadline: rules not decided when it says yes are unchecked. `write_record=False`: a
    committed check that writes no gate record (CI, which never reads one).
    """
    head_config = None
    if committed:
        try:
            head_config = _committed_config(config, checkout)
        except ConfigErrors as errors:
            remove(checkout.gitdir, GATE_RECORD)  # an older record must not stand in
            listed = "; ".join(str(issue) for issue in errors.issues[:5])
            message = (
                f"the configuration committed at HEAD is invalid ({listed}), so HEAD cannot be"
                " judged by its own rules. Commit a valid configuration, then check again."
            )
            return CheckResult(
                Report(unchecked=(Unchecked(None, Stage.CONFIG, message),)), ChangeSet()
            )
    # The gate compares the record with the working tree's configuration, the one it can read
    # without git objects: HEAD's config follows from HEAD, which the record holds as well.
    seen_digest = config.raw_digest
    uncommitted_rules = _uncommitted_rules(head_config, config)
    config = head_config or config
    protected = config.settings.protected_branch
    target = choose_target(checkout, base, protected, base_chosen_by)
    default = choose_target(checkout, None, protected)
    refuse = committed if refuse_own_branch is None else refuse_own_branch
    guessed = target.guessed or base_guessed
    own = own_branch(checkout, head_branch) if guessed and refuse else None
    with open_repo(checkout) as repo:
        started = time.perf_counter()
        collect = collect_committed if committed else collect_working_tree
        changes = collect(
            repo, target.name, config.rules, chosen_by=target.chosen_by, own_branch=own
        )
        collected = time.perf_counter()
        deferred = evaluate(
            config.rules, changes, PrBody.unavailable(), Phase.TURN, expired=expired
        )
        report = (
            deferred
            if body is None
            else evaluate(config.rules, changes, body, Phase.CI, expired=expired)
        )
        done = time.perf_counter()
        # What a committed check leaves out, said so that no one takes it for the whole tree.
        uncommitted = count_uncommitted(repo, changes) if committed and note_uncommitted else None
        # When the change edits cagr's own config, every report says how (see config_changes).
        edits = config_changes(repo, changes.range.base, config, changes) if changes.range else None
        edits = edits or self_target(
            checkout, changes.range, config.settings.protected_branch, base
        )
    timings = Timings((collected - started) * 1000, (done - collected) * 1000)
    report = evolve(report, timings=timings, uncommitted=uncommitted, config_changes=edits)
    if uncommitted_rules is not None:
        report = _judged_by_head(report, uncommitted_rules)
        deferred = _judged_by_head(deferred, uncommitted_rules)
    if not committed or not write_record:
        return CheckResult(report, changes)
    from_head = head_config is not None
    if changes.range is None or changes.range.head is None:
        remove(checkout.gitdir, GATE_RECORD)  # an older record must not stand in for this one
        return CheckResult(report, changes, config_from_head=from_head)
    repository, worktree = identity(checkout)
    record = GateRecord(
        repository=repository,
        worktree=worktree,
        head=changes.range.head,
        target_name=target.name,
        target_ref=changes.range.target_ref,
        target_ref_value=_ref_value(checkout, changes.range.target_ref, changes.range.target),
        default_target_ref=branch_ref(checkout, default.name),
        default_chosen_by=default.chosen_by,
        target=changes.range.target,
        base=changes.range.base,
        cagr_version=VERSION,
        config_digest=seen_digest,
        rules_digest=config.rules_digest,
        text=render_details(deferred, limit=RECORD_TEXT_LIMIT),
        pr_sections=list(config.settings.pr_sections),
        report=report_data(
            evolve(deferred, timings=timings, uncommitted=uncommitted, config_changes=edits)
        ),
    )
    written = write_gate_record(checkout.gitdir, record)
    return CheckResult(report, changes, record, written, config_from_head=from_head)


def _uncommitted_rules(
    head: RepoConfig | None, working: RepoConfig
) -> UncommittedConfig | Unchecked | None:
    """What a committed check says of a working tree's configuration that HEAD's lacks: rules
    only in the working tree, with none at HEAD, leave the check unchecked (they would judge
    nothing, and a pass would be taken for theirs); other differences are said first."""
    if head is None:
        return None
    if not head.rules.rules and working.rules.rules:
        ids = [compiled.id for compiled in working.rules.rules]
        shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        return Unchecked(
            None,
            Stage.CONFIG,
            f"HEAD has no change rules committed, but the working tree's configuration has"
            f" {len(ids)} rule(s) ({shown}). Rules that are not committed do not judge a"
            " committed check (CI reads HEAD's): commit your rules (cagr.toml, .cagr/ or"
            " [tool.cagr] in pyproject.toml), then check again.",
        )
    return uncommitted_config(head, working)


def _judged_by_head(report: Report, said: UncommittedConfig | Unchecked) -> Report:
    if isinstance(said, Unchecked):
        return evolve(report, unchecked=(said, *report.unchecked))
    return evolve(report, uncommitted_config=said)


def _committed_config(config: RepoConfig, checkout: Checkout) -> RepoConfig | None:
    """HEAD's configuration when the working tree's differs (None: the same, or no HEAD)."""
    with open_repo(checkout) as repo:
        head = read_ref(checkout, "HEAD")
        if head is None or repo.problem is not None:
            return None  # no commit yet, or a repository cagr cannot read: the collection says so
        try:
            return committed_config(repo, config, head)
        except (KeyError, DamagedObject):
            return None  # the collection reports unreadable objects itself


def _ref_value(checkout: Checkout, ref: str, target: str) -> str | None:
    """The target ref's value, when it still names the commit that was checked.

    Read after collection: a ref that moved meanwhile (or a tag object, which names the commit
    only through peeling) gives None, so the gate always treats the record as stale for it.
    """
    value = read_ref(checkout, ref) if ref.startswith("refs/") else None
    return value if value == target else None
