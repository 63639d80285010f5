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
from cagr_core.description import SECTIONS_RULE, check_pr_sections
from cagr_core.evaluator import evaluate
from cagr_core.pull_request import Phase, PrBody
from cagr_core.report import Deferred, Report, Timings, UncommittedConfig, waive
from cagr_core.ruleset import RuleSet
from cagr_core.values import replace, value
from cagr_core.version import VERSION
from cagr_git.discover import Checkout
from cagr_git.refs import branch_ref, read_ref
from cagr_git.repository import Repository, open_repo

from .collect import (
    collect_committed,
    collect_snapshot,
    collect_working_tree,
    count_uncommitted,
)
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
from .target import BY_BASE_OPTION, TargetChoice, choose_target, own_branch
from .target_config import JudgingRules, judging_rules, rule_id


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
    being checked, under any remote (or locally, where a committed check would be empty),
    leaves the range unchecked: the change would be only its unpushed commits, or nothing; the
    branch is `head_branch` when the caller knows it (CI, on a detached HEAD), else HEAD's.

    The pull request: without a `body`, PR-body obligations are deferred (an agent's turn end,
    a local check); with one (PrBody.unavailable() included) they are judged against it, and so
    are the `[review].pr_sections` headings when the body is a `pull_request`'s (a push has
    none). `labels`: the pull request's, which waive the rules that name them, and `author`:
    its author's login, which waives the rules whose `waive_authors` name it (CI only).

    `rules`: only these rule ids run (`--rule`; `review.pr_sections` names the headings check);
    the report says so, and a committed check so filtered writes no gate record, which would
    read as the whole verdict.

    `snapshot`: judge no change, but the working tree's files (`paths`, repo-relative, or every
    tracked and untracked file that is not ignored) with the code and layout rules, each file
    as if added; no target, no body, no gate record (`cagr check`).

    `note_uncommitted`: a committed check also counts the paths where the working tree differs
    from HEAD, so a person is told what the verdict left out. `write_record=False`: a committed
    check that writes no gate record (CI, which never reads one). `expired`: the caller's
    deadline; rules not decided when it says yes are unchecked. `judge_by_target` (CI): the
    rules of the configuration at the target commit judge too (see target_config); otherwise
    the report only says how they differ from the branch's, unless `note_target` is False (a
    replay, whose targets are past commits).
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
    author: str | None = None
    rules: tuple[str, ...] | None = None
    note_uncommitted: bool = False
    write_record: bool = True
    expired: Callable[[], bool] | None = None
    judge_by_target: bool = False
    note_target: bool = True
    snapshot: bool = False
    paths: tuple[str, ...] | None = None


def check(  # noqa: PLR0915  # the stages of one check, in order
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
    if request.snapshot:
        return _snapshot(config, checkout, request)
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
        judging = (
            judging_rules(
                repo,
                target.name,
                rules_config,
                judge=request.judge_by_target,
                gitdir=checkout.gitdir,
            )
            if request.judge_by_target or request.note_target
            else JudgingRules(rules_config)
        )
        branch_config, rules_config = rules_config, judging.config
        rules = _requested(rules_config.rules, request)
        changes = _collect(repo, request, target, rules, own)
        collected = time.perf_counter()
        report, deferred = _evaluated(judging, rules, changes, request)
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
    if request.labels is not None or request.author is not None:
        # A maintainer's labels on the pull request, or its author: nothing else waives.
        report = waive(report, request.labels, request.author)
    obligations = deferred.deferred
    report = replace(report, rules_filter=_filter(request))
    if not committed or not request.write_record or request.head is not None:
        return CheckResult(report, changes, config=rules_config, obligations=obligations)
    from_head = judged_by is not None and judged_by.from_head
    result = CheckResult(
        report,
        changes,
        config_from_head=from_head,
        config=rules_config,
        obligations=obligations,
    )
    if request.rules is not None:
        return replace(result, record_note=_FILTERED)
    if changes.range is None or changes.range.head is None:
        left = discard_gate_record(checkout.gitdir)  # an older record must not stand in
        return replace(result, record_note=_no_record(left))
    recorded = replace(deferred, timings=timings, uncommitted=uncommitted, config_changes=edits)
    record = _record(
        checkout,
        branch_config,
        changes,
        (target, default),
        seen_digest=seen_digest,
        report=recorded,
    )
    note = write_gate_record(checkout.gitdir, record)
    return replace(result, record=record, record_written=note is None, record_note=note)


def _requested(rules: RuleSet, request: CheckRequest) -> RuleSet:
    """The rules the request asks for (`--rule`): every form of each, the target's too."""
    if request.rules is None:
        return rules
    wanted = frozenset(request.rules)
    return rules.only(c.id for c in rules.rules if rule_id(c.id) in wanted)


def _evaluated(
    judging: JudgingRules, rules: RuleSet, changes: ChangeSet, request: CheckRequest
) -> tuple[Report, Report]:
    """The report, and its form with PR-body obligations deferred (the same without a body),
    each rule named as configured and what the report says of the target's configuration."""
    expired = request.expired
    deferred = evaluate(rules, changes, PrBody.unavailable(), Phase.TURN, expired=expired)
    deferred = judging.finish(judging.relabel(deferred), changes)
    if request.body is None:
        return deferred, deferred
    report = _with_body(judging.config, rules, changes, request, expired)
    return judging.finish(judging.relabel(report), changes), deferred


def _snapshot(config: WorkingConfig, checkout: Checkout, request: CheckRequest) -> CheckResult:
    """The code and layout rules on the working tree's files, each as if added (the working
    tree's configuration judges: ConfigErrors when it is invalid)."""
    if isinstance(config, InvalidConfig):
        raise config.errors()
    rules = _requested(config.rules.judging_files(), request)
    with open_repo(checkout) as repo:
        started = time.perf_counter()
        changes = collect_snapshot(repo, rules, request.paths)
        collected = time.perf_counter()
        report = evaluate(rules, changes, PrBody.unavailable(), Phase.TURN, expired=request.expired)
        done = time.perf_counter()
    timings = Timings((collected - started) * 1000, (done - collected) * 1000)
    report = replace(report, timings=timings, rules_filter=_filter(request))
    return CheckResult(report, changes, config=config)


def _filter(request: CheckRequest) -> tuple[str, ...] | None:
    return None if request.rules is None else tuple(sorted(set(request.rules)))


_FILTERED = (
    "a check of some rules (--rule) writes no gate record: the PR gate would read it as the"
    " whole verdict. Run `cagr rules check --committed` without --rule to prepare it."
)


def _collect(
    repo: Repository,
    request: CheckRequest,
    target: TargetChoice,
    rules: RuleSet,
    own: str | None,
) -> ChangeSet:
    """The change the request asks about: merge base -> HEAD (or `head`), or -> working tree."""
    if request.committed:
        return collect_committed(
            repo, target.name, rules, chosen_by=target.chosen_by, own_branch=own, head=request.head
        )
    return collect_working_tree(
        repo, target.name, rules, chosen_by=target.chosen_by, own_branch=own
    )


def _record(  # noqa: PLR0913  # what the record is made of
    checkout: Checkout,
    config: RepoConfig,
    changes: ChangeSet,
    targets: tuple[TargetChoice, TargetChoice],
    *,
    seen_digest: str,
    report: Report,
) -> GateRecord:
    """The gate record of one committed check (its report in the deferred form); `targets`:
    the chosen target and the default one."""
    target, default = targets
    assert changes.range is not None
    assert changes.range.head is not None
    repository, worktree = identity(checkout)
    return GateRecord(
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
        pr_sections=config.settings.pr_sections,
        report=report,
    )


def _with_body(
    config: RepoConfig,
    rules: RuleSet,
    changes: ChangeSet,
    request: CheckRequest,
    expired: Callable[[], bool] | None,
) -> Report:
    """The change rules with the body judged, and the headings every pull request needs."""
    assert request.body is not None
    # Parsing Markdown (mistune) is paid only by a check that has a body.
    from cagr_markdown import parsed  # noqa: PLC0415

    body = parsed(request.body)
    report = evaluate(rules, changes, body, Phase.CI, expired=expired)
    if not request.pull_request:
        return report
    sections = config.settings.pr_sections
    if request.rules is not None and SECTIONS_RULE not in request.rules:
        sections = ()
    findings, unknown = check_pr_sections(sections, body)
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
