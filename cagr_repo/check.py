"""The check as a service: one CheckRequest in, the whole verdict out.

It collects the range, evaluates the change rules (with the pull request's description, when
the request has one, and the headings every pull request needs), applies the pull request's
waivers, says what the report must say of the configuration that judged, times the stages and
writes the gate record a committed check prepares for the `gh pr create` gate. `cagr rules
check`, `cagr.check`, the agents' turn end and record refresh, and `cagr ci` (merge queues
included) are each a thin translation of one call to `check`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from cagr_core.changes import ChangeSet, Unchecked
from cagr_core.description import check_pr_sections
from cagr_core.evaluator import evaluate
from cagr_core.pull_request import Phase, PrBody
from cagr_core.report import Deferred, Report, Timings, UncommittedConfig, waive
from cagr_core.values import replace, value
from cagr_core.version import VERSION
from cagr_git.discover import Checkout
from cagr_git.refs import branch_ref, read_ref
from cagr_git.repository import open_repo

from .collect import collect_committed, collect_working_tree, count_uncommitted
from .config import RepoConfig
from .config_changes import config_changes, self_target
from .gate_record import GateRecord, discard_gate_record, identity, write_gate_record
from .judging_config import (
    CommittedConfig,
    InvalidConfig,
    WorkingConfig,
    committed_config,
    config_unlike_git,
)
from .target import BY_BASE_OPTION, choose_target, own_branch
from .target_config import JudgingRules, judging_rules


@value
class CheckResult:
    """One check: its report, the change set it judged, and the gate record it wrote, if any.

    `obligations`: the PR-body obligations the change fires, as a turn end defers them (with
    what fired each), whether or not a body was given.
    """

    report: Report
    changes: ChangeSet
    record: GateRecord | None = None
    record_written: bool = False
    record_note: str | None = None  # what became of the gate record, when it was not written
    config_from_head: bool = False  # a committed check judged by HEAD's (different) config
    config: RepoConfig | None = None  # the configuration that judged (None: none could)
    obligations: tuple[Deferred, ...] = ()


@value(kw_only=True)
class CheckRequest:
    """What one check is asked to judge.

    The range: merge base -> working tree, or -> HEAD (`committed`), or -> `head` (a committed
    check of that commit; no gate record). The target is `base` (reported as chosen by
    `base_chosen_by`), else the configured or default one. A guessed target (the remote's
    default branch or main; `base_guessed` when the caller guessed `base`) that is the branch
    being checked (local, under any remote, or its upstream) leaves the range unchecked: the
    change would be only its unpushed commits, or nothing; the branch is `head_branch` when the
    caller knows it (CI, on a detached HEAD), else HEAD's.

    The pull request: without a `body`, PR-body obligations are deferred (an agent's turn end,
    a local check); with one (PrBody.unavailable() included) they are judged against it, and so
    are the `[review].pr_sections` headings when the body is a `pull_request`'s (a push has
    none). `labels`: the pull request's, which waive the rules that name them (CI only).

    `note_uncommitted`: a committed check also counts the paths where the working tree differs
    from HEAD, so a person is told what the verdict left out. `write_record=False`: a committed
    check that writes no gate record (CI, which never reads one). `expired`: the caller's
    deadline; rules not decided when it says yes are unchecked. `judge_by_target` (CI): the
    rules of the configuration at the target commit judge too (see target_config); otherwise
    the report only says how they differ from the branch's.
    """

    committed: bool = False
    base: str | None = None
    base_chosen_by: str = BY_BASE_OPTION
    base_guessed: bool = False
    head_branch: str | None = None
    head: str | None = None
    body: PrBody | None = None
    pull_request: bool = True
    labels: frozenset[str] | None = None
    note_uncommitted: bool = False
    write_record: bool = True
    expired: Callable[[], bool] | None = None
    judge_by_target: bool = False


def check(
    config: WorkingConfig,
    checkout: Checkout,
    request: CheckRequest,
    *,
    judged_by: CommittedConfig | None = None,
) -> CheckResult:
    """The whole verdict of one check: change rules, `[review].pr_sections`, waivers and what
    the report says of the configuration that judged.

    `config` is the working tree's configuration: it judges a working-tree check (which needs
    it valid: ConfigErrors otherwise); a committed check is judged by HEAD's (`judged_by`, when
    the caller has read it already), and an invalid working-tree configuration only adds a note.
    A committed check writes the gate record, which always holds the deferred form: the body
    that counts at the gate is the one on the `gh` command.
    """
    committed, base = request.committed, request.base
    differs: UncommittedConfig | Unchecked | None = None
    if committed:
        judged_by = judged_by or committed_config(config, checkout)
        if judged_by.config is None:
            left = discard_gate_record(checkout.gitdir)  # an older record must not stand in
            return CheckResult(
                Report(unchecked=(judged_by.invalid_head(),)),
                ChangeSet(),
                record_note=_no_record(left),
            )
        rules_config, differs = judged_by.config, judged_by.differs
    elif isinstance(config, InvalidConfig):
        raise config.errors()
    else:
        rules_config = config
    # The gate compares the record with the working tree's configuration, the one it can read
    # without git objects: HEAD's config follows from HEAD, which the record holds as well.
    seen_digest = config.raw_digest
    protected = rules_config.settings.protected_branch
    target = choose_target(checkout, base, protected, request.base_chosen_by)
    default = choose_target(checkout, None, protected)
    guessed = target.guessed or request.base_guessed
    own = own_branch(checkout, request.head_branch) if guessed else None
    with open_repo(checkout) as repo:
        started = time.perf_counter()
        judging = judging_rules(
            repo, target.name, rules_config, judge=request.judge_by_target, gitdir=checkout.gitdir
        )
        branch_config, rules_config = rules_config, judging.config
        if committed:
            changes = collect_committed(
                repo,
                target.name,
                rules_config.rules,
                chosen_by=target.chosen_by,
                own_branch=own,
                head=request.head,
            )
        else:
            changes = collect_working_tree(
                repo, target.name, rules_config.rules, chosen_by=target.chosen_by, own_branch=own
            )
        collected = time.perf_counter()
        report, deferred = _evaluated(judging, changes, request)
        done = time.perf_counter()
        # What a committed check leaves out, said so that no one takes it for the whole tree.
        uncommitted = (
            count_uncommitted(repo, changes) if committed and request.note_uncommitted else None
        )
        # When the change edits cagr's own config, every report says how (see config_changes).
        edits = (
            config_changes(repo, changes.range.base, branch_config, changes)
            if changes.range
            else None
        )
        edits = edits or self_target(checkout, changes.range, protected, base)
        if not committed:  # rules git has in force that the disk does not hold
            differs = config_unlike_git(repo, changes, rules_config.root).unchecked()
    timings = Timings((collected - started) * 1000, (done - collected) * 1000)
    report = replace(report, timings=timings, uncommitted=uncommitted, config_changes=edits)
    if differs is not None:
        report = _with_config_note(report, differs)
        deferred = _with_config_note(deferred, differs)
    if request.labels is not None:  # a maintainer's labels on the pull request: nothing else waives
        report = waive(report, request.labels)
    obligations = deferred.deferred
    if not committed or not request.write_record or request.head is not None:
        return CheckResult(report, changes, config=rules_config, obligations=obligations)
    from_head = judged_by is not None and judged_by.from_head
    if changes.range is None or changes.range.head is None:
        left = discard_gate_record(checkout.gitdir)  # an older record must not stand in
        return CheckResult(
            report,
            changes,
            config_from_head=from_head,
            record_note=_no_record(left),
            config=rules_config,
            obligations=obligations,
        )
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
        rules_digest=branch_config.rules_digest,
        pr_sections=branch_config.settings.pr_sections,
        report=replace(deferred, timings=timings, uncommitted=uncommitted, config_changes=edits),
    )
    note = write_gate_record(checkout.gitdir, record)
    return CheckResult(
        report,
        changes,
        record,
        note is None,
        note,
        from_head,
        config=rules_config,
        obligations=obligations,
    )


def _evaluated(
    judging: JudgingRules, changes: ChangeSet, request: CheckRequest
) -> tuple[Report, Report]:
    """The report, and its form with PR-body obligations deferred (the same without a body),
    each rule named as configured and what the report says of the target's configuration."""
    config, expired = judging.config, request.expired
    deferred = evaluate(config.rules, changes, PrBody.unavailable(), Phase.TURN, expired=expired)
    deferred = judging.finish(judging.relabel(deferred), changes)
    if request.body is None:
        return deferred, deferred
    report = judging.relabel(_with_body(config, changes, request, expired))
    return judging.finish(report, changes), deferred


def _with_body(
    config: RepoConfig,
    changes: ChangeSet,
    request: CheckRequest,
    expired: Callable[[], bool] | None,
) -> Report:
    """The change rules with the body judged, and the headings every pull request needs."""
    assert request.body is not None
    # Parsing Markdown (mistune) is paid only by a check that has a body.
    from cagr_markdown import parsed  # noqa: PLC0415

    body = parsed(request.body)
    report = evaluate(config.rules, changes, body, Phase.CI, expired=expired)
    if not request.pull_request:
        return report
    findings, unknown = check_pr_sections(config.settings.pr_sections, body)
    return replace(
        report, findings=report.findings + findings, unchecked=report.unchecked + unknown
    )


def _no_record(left: str | None) -> str | None:
    """What to say when a check that writes no record could not remove an older one."""
    if left is None:
        return None
    return f"this check writes no gate record (it decided nothing), but {left}"


def _with_config_note(report: Report, said: UncommittedConfig | Unchecked) -> Report:
    if isinstance(said, Unchecked):
        return replace(report, unchecked=(said, *report.unchecked))
    return replace(report, uncommitted_config=said)


def _ref_value(checkout: Checkout, ref: str, target: str) -> str | None:
    """The target ref's value, when it still names the commit that was checked.

    Read after collection: a ref that moved meanwhile (or a tag object, which names the commit
    only through peeling) gives None, so the gate always treats the record as stale for it.
    """
    value = read_ref(checkout, ref) if ref.startswith("refs/") else None
    return value if value == target else None
