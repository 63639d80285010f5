"""`cagr ci` as a service: one CI event in, one CiResult out.

In order: the checkout must be the event's head; the change rules judge merge base -> HEAD
(committed trees only) with the event's PR body; `[review].pr_sections` checks the same body;
then `[stack].ci` commands run, after the rules, so nothing they write can supply a missing
companion; a checkout dirty before the check, or dirtied by those commands, fails the job
separately.
"""

from __future__ import annotations

import os
import time
from typing import Literal

from cagr_core.changes import ChangeSet, Stage, Unchecked
from cagr_core.description import SECTIONS_RULE
from cagr_core.redaction import TOKEN_VARIABLES
from cagr_core.report import Report, Verdict, waive
from cagr_core.values import replace, value
from cagr_git.discover import Checkout
from cagr_git.index import UnreadableIndex, tracked_paths
from cagr_git.repository import open_repo
from cagr_repo.check import CheckRequest, check
from cagr_repo.config import ConfigErrors, RepoConfig
from cagr_repo.declarations import declaration
from cagr_repo.judging_config import WorkingConfig, committed_config, unread_config
from cagr_repo.stack import StackOutcome
from cagr_repo.target import BY_PROTECTED_BRANCH, TargetChoice, choose_target
from cagr_repo.target_config import protected_branch_at

from .event import CiEvent
from .integrity import (
    CheckoutError,
    LocalChanges,
    head_of,
    ignore_patterns,
    is_shallow,
    local_changes,
)
from .merge_queue import PullRequestCheck, check_queue

CiStatus = Verdict
STACK_SECONDS = 20 * 60  # the `[stack].ci` commands' shared deadline, from the start of the run


@value
class JobProblem:
    """Something wrong with the job itself (not a change rule): a dirty tree, a failed command."""

    kind: Literal["dirty_checkout", "dirtied_by_stack", "stack_failed"]
    message: str
    fix: str
    paths: tuple[str, ...] = ()


@value
class CiResult:
    """One CI run: the event, the resolved target, the rules' report, commands and problems.

    `report` holds the change rules' findings and unchecked items and `[review].pr_sections`'s
    (in a merge queue run, also those of its pull request, judged on its own change);
    `pull_requests`: a merge queue run's pull request, read from the forge, with its own verdict;
    `notes` explain, for this CI system, what to do about what could not be checked.
    """

    event: CiEvent
    head: str
    target_name: str
    target_source: str
    report: Report
    changes: ChangeSet
    config: RepoConfig  # what judged: HEAD's rules and the target's (cagr_repo.target_config)
    stack: tuple[StackOutcome, ...] = ()
    problems: tuple[JobProblem, ...] = ()
    notes: tuple[str, ...] = ()
    declarations: tuple[tuple[str, str, int], ...] = ()  # (rule, config file, line)
    config_file: str | None = None  # the first configuration source, if any
    pull_requests: tuple[PullRequestCheck, ...] = ()
    deleted: frozenset[str] = frozenset()  # paths the change deletes: not in the head

    def declared(self, rule: str | None) -> tuple[str, int] | None:
        """Where `rule` is declared (file, line): a place to show a result with no path."""
        return next(((file, line) for r, file, line in self.declarations if r == rule), None)

    def shown_at(self, rule: str | None, paths: tuple[str, ...]) -> tuple[str, int] | None:
        """Where code scanning and code quality show a result: its first path the head holds
        (line 1), else where its rule is declared. A deleted file is not in the head, so a
        result there would point at no file of the pull request."""
        for path in paths:
            if path not in self.deleted:
                return path, 1
        return self.declared(rule)

    @property
    def status(self) -> CiStatus:
        """fail: an error finding or a job problem; else the report's verdict (unchecked,
        waived or pass; `warn` rules change none of them)."""
        return "fail" if self.problems else self.report.status


def run_ci(
    working: WorkingConfig, checkout: Checkout, event: CiEvent, *, started: float | None = None
) -> CiResult:
    """Check the event's change, judged by the configuration committed at its head (`working`
    is the working tree's, which may differ, or be invalid). CheckoutError when the checkout is
    not the event's head; ConfigErrors when the head's configuration is invalid."""
    started = time.monotonic() if started is None else started
    head = head_of(checkout)
    if head is None:
        raise CheckoutError("HEAD has no commit: nothing is checked out.", event.head_fix)
    if event.head is not None and head != event.head:
        raise CheckoutError(
            f"HEAD is {head[:12]}, but this run's head ({event.head_source}) is"
            f" {event.head[:12]}; checking another commit would change what is judged.",
            event.head_fix or "Check out the event's head commit before `cagr ci`.",
        )
    assert checkout.root is not None
    judged = committed_config(working, checkout)
    if judged.config is None:
        raise ConfigErrors(list(judged.head_issues))
    config = judged.config
    target, target_note = _target(event, config, checkout)
    name, source = target.name, target.chosen_by
    before = local_changes(checkout, head)
    request = CheckRequest(
        committed=True,
        base=name,
        base_chosen_by=source,
        base_guessed=target.guessed,
        head_branch=event.head_branch or None,
        body=event.body,
        # Every pull request's description needs the headings; a push or a schedule has none.
        pull_request=event.pull_request,
        labels=None if event.merge_queue else event.labels,  # a queue's come from its PR
        author=None if event.merge_queue else event.author,
        write_record=False,  # CI never reads a gate record; it rebuilds the change every time
        judge_by_target=True,  # a branch cannot loosen the rules that judge it
    )
    result = check(working, checkout, request, judged_by=judged)
    report = result.report
    assert result.config is not None
    config = result.config  # the head's rules and the target's
    queue_note = ""
    pull_requests: tuple[PullRequestCheck, ...] = ()
    if event.merge_queue:  # the queued pull request's own description, from the forge's API
        queue = check_queue(working, judged, checkout, event, group=result, report=report)
        report, pull_requests, queue_note = queue.report, queue.pull_requests, queue.note
        if queue.labels is not None:
            event = replace(
                event,
                labels=queue.labels,
                labels_source=queue.labels_source,
                author=queue.author,
                author_source=queue.labels_source.replace("labels", "author"),
            )
            # The group is its pull request's change: its labels and author waive it.
            report = waive(report, queue.labels, queue.author)
    commands = config.settings.ci
    withheld = _withheld(event, len(commands)) if commands and event.privileged else ()
    stack = [] if withheld else _run_stack(config, checkout.root, result.changes, started)
    ran = any(outcome.status != "skipped" for outcome in stack)
    after = local_changes(checkout, head) if ran else before  # only commands can write
    unknown_state = (*withheld, *_stack_unchecked(stack), *_unreadable(before, after))
    report = replace(report, unchecked=report.unchecked + unknown_state)
    problems = [*_dirt(before), *_stack_failures(stack), *_dirtied(checkout, before, after)]
    deleted = frozenset(change.path for change in result.changes.changes if change.new is None)
    return CiResult(
        event,
        head,
        name,
        source,
        report,
        result.changes,
        config,
        tuple(stack),
        tuple(problems),
        ((target_note,) if target_note else ())
        + _notes(event, report, is_shallow(checkout), queue_note)
        + (() if config.rules.rules else _unread(checkout)),
        _declarations(config, report, deleted),
        _config_file(config),
        pull_requests,
        deleted,
    )


def _unread(checkout: Checkout) -> tuple[str, ...]:
    """Why no rule judged, when config files sit below the root, where cagr does not read."""
    unread = unread_config(checkout)
    return (unread.describe(),) if unread else ()


def _config_file(config: RepoConfig) -> str | None:
    """The first configuration source: where something about no rule can be shown."""
    for _, source in config.rule_sources:
        return source
    sections = declaration(config, SECTIONS_RULE)
    return sections[0] if sections else None


def _declarations(
    config: RepoConfig, report: Report, deleted: frozenset[str]
) -> tuple[tuple[str, str, int], ...]:
    """Where each rule that reports something on no path of the head is declared (no path,
    or only deleted ones)."""
    findings = (*report.findings, *(w.finding for w in report.waived))
    rules = {f.rule for f in findings if deleted.issuperset(f.paths)}
    rules |= {
        u.rule
        for u in report.unchecked
        if u.rule is not None and (u.path is None or u.path in deleted)
    }
    found = ((rule, declaration(config, rule)) for rule in sorted(rules))
    return tuple((rule, *where) for rule, where in found if where is not None)


def _target(
    event: CiEvent, config: RepoConfig, checkout: Checkout
) -> tuple[TargetChoice, str | None]:
    """--base, then the event's target, then `[git] protected_branch`, then the remote's default
    branch (the event's, else origin/HEAD's), then main; and a note when the branch's own
    `[git] protected_branch` did not choose it.

    The head's `[git] protected_branch` chooses the target only where the default branch's
    configuration says the same: a branch that sets it to itself (`HEAD`, its own name, a
    branch it pushed) would otherwise be judged against its own commits, and pass. Where they
    differ, the default branch's setting stands (its own name, when it sets none), as the
    target's form of a rule does. Where nothing can say (no default branch, or it is this
    commit), a setting that names the branch being checked is refused as a guess would be."""
    if event.target:
        return TargetChoice(event.target, event.target_source), None
    payload_default = (
        TargetChoice(event.default_branch, event.default_branch_source, guessed=True)
        if event.default_branch
        else None
    )
    default = choose_target(checkout, None, None, remote_default=payload_default)
    protected = config.settings.protected_branch
    if not protected:
        return default, None
    assert checkout.root is not None
    with open_repo(checkout) as repo:
        theirs = None if repo.problem else protected_branch_at(repo, default.name, checkout.root)
    if theirs is None or theirs.commit == head_of(checkout):
        # Nothing the branch cannot edit says otherwise (the default branch is unknown, or is
        # this very commit): its own copy is still no target, as a guess that names it is not.
        return TargetChoice(protected, BY_PROTECTED_BRANCH, guessed=True), None
    if theirs.value == protected:
        return TargetChoice(protected, BY_PROTECTED_BRANCH), None
    if theirs.value is None:
        chosen = default
    else:
        chosen = TargetChoice(theirs.value, f"{BY_PROTECTED_BRANCH} at {default.name}")
    said = f"sets {theirs.value}" if theirs.value else "sets none"
    return chosen, (
        f"This branch's [git] protected_branch is {protected}, but the configuration of the"
        f" default branch {default.name} (at {theirs.commit[:12]}) {said}: a branch cannot"
        f" choose the target that judges it, so the target is {chosen.name}. To judge the"
        " change against another branch, pass --base."
    )


def _run_stack(
    config: RepoConfig, root: str, changes: ChangeSet, started: float
) -> list[StackOutcome]:
    commands = config.settings.ci
    if not commands:
        return []
    if not changes.complete or changes.range is None:
        # The change is not known, so no command may be skipped as "not touched".
        commands = tuple(replace(command, paths=()) for command in commands)
    paths = [change.path for change in changes.changes]
    from cagr_repo.stack import run_stack  # noqa: PLC0415  # subprocess: only with commands

    # The commands are the checkout's own: the tokens cagr reads for the forge are not theirs.
    env = {k: v for k, v in os.environ.items() if k not in TOKEN_VARIABLES}
    return run_stack(commands, root, paths, started + STACK_SECONDS, env=env)


def _withheld(event: CiEvent, count: int) -> tuple[Unchecked, ...]:
    """The `[stack].ci` commands not run in a privileged job, as one unchecked item."""
    return (
        Unchecked(
            None,
            Stage.STACK,
            f"the {count} [stack].ci command(s) were not run: {event.privileged}, and its"
            " configuration names the commands, so running them would hand those secrets to"
            " code the pull request controls. Their checks are unknown: run cagr ci on"
            " `pull_request` (a read-only token, no secrets) to run them.",
        ),
    )


def _stack_unchecked(stack: list[StackOutcome]) -> tuple[Unchecked, ...]:
    items = []
    for outcome in stack:
        if outcome.status == "timed_out":
            not_started = outcome.duration_ms == 0.0
            why = "was not started: no time was left" if not_started else "timed out"
            items.append(
                Unchecked(
                    None,
                    Stage.STACK,
                    f"the [stack].ci command `{outcome.command}` {why} (the commands share"
                    f" {STACK_SECONDS // 60} minutes), so its check is unknown. Make it faster,"
                    " or run it as a separate CI step.",
                )
            )
        elif outcome.status == "error":
            items.append(
                Unchecked(
                    None,
                    Stage.STACK,
                    f"the [stack].ci command `{outcome.command}` could not run"
                    f" ({outcome.output_tail}). Fix the command in [stack].ci.",
                )
            )
    return tuple(items)


def _stack_failures(stack: list[StackOutcome]) -> list[JobProblem]:
    return [
        JobProblem(
            "stack_failed",
            f"The [stack].ci command `{outcome.command}` failed (exit {outcome.exit_code}).",
            f"Fix what `{outcome.command}` reports (the job log shows its output), then push"
            " again.",
        )
        for outcome in stack
        if outcome.status == "failed"
    ]


def _dirt(before: LocalChanges) -> list[JobProblem]:
    paths = before.paths
    if not paths:
        return []
    return [
        JobProblem(
            "dirty_checkout",
            "The checkout was dirty before the check (tracked changes, staged content or"
            f" untracked files that are not ignored): {_listed(paths)}. The change rules"
            " judged committed trees only, but a job that edits the tree first can hide what"
            " it changed.",
            "Run `cagr ci` right after checking out, before any step that writes to the work"
            " tree (or have those steps write outside it, or to ignored paths).",
            paths,
        )
    ]


def _dirtied(checkout: Checkout, before: LocalChanges, after: LocalChanges) -> list[JobProblem]:
    written = after.since(before)
    if not written:
        return []
    appeared = tuple(path for path in written if path in after.new and path not in before.new)
    changed = tuple(path for path in written if path not in appeared)
    said = []
    if appeared:
        said.append(f"new files appeared: {_listed(appeared)}")
    if changed:
        said.append(f"tracked files changed or went away: {_listed(changed)}")
    fix = (
        "Make the [stack].ci commands check without writing (e.g. `--check` modes), or have"
        " them write only to ignored paths."
    )
    if appeared:
        try:
            tracked = tracked_paths(checkout.gitdir)
        except UnreadableIndex:
            tracked = []
        patterns = ignore_patterns(appeared, tracked)
        fix += (
            " If what appeared is a cache or build output, ignore it: add "
            + ", ".join(f"`{pattern}`" for pattern in patterns[:10])
            + " to .gitignore"
        )
        if "__pycache__/" in patterns:
            fix += " (or keep Python from writing its caches: `PYTHONDONTWRITEBYTECODE=1`)"
        fix += "."
    return [
        JobProblem(
            "dirtied_by_stack",
            f"The [stack].ci commands changed the work tree: {'; '.join(said)}. Check commands"
            " must only read; a formatter or generator that writes could produce a companion"
            " the change itself lacks.",
            fix,
            written,
        )
    ]


def _unreadable(before: LocalChanges, after: LocalChanges) -> list[Unchecked]:
    """Whether the tree was clean, or stayed clean, when part of it could not be read."""
    items = []
    if before.unknown:
        items.append(
            Unchecked(
                None,
                Stage.COLLECT,
                "whether the checkout was clean before the check is unknown: "
                + _sentences(before.unknown),
            )
        )
    new = [message for message in after.unknown if message not in before.unknown]
    if new:
        items.append(
            Unchecked(
                None,
                Stage.STACK,
                "whether the [stack].ci commands changed the work tree is unknown: "
                + _sentences(tuple(new)),
            )
        )
    return items


def _sentences(messages: tuple[str, ...], shown: int = 10) -> str:
    head = " ".join(messages[:shown])
    return head if len(messages) <= shown else f"{head} And {len(messages) - shown} more."


def _listed(paths: tuple[str, ...], shown: int = 10) -> str:
    head = ", ".join(paths[:shown])
    return head if len(paths) <= shown else f"{head} and {len(paths) - shown} more"


def _notes(event: CiEvent, report: Report, shallow: bool, queue_note: str) -> tuple[str, ...]:
    notes = []
    stages = {item.stage for item in report.unchecked}
    if queue_note:  # why a merge queue run could not use its pull request
        notes.append(queue_note)
    elif Stage.BODY in stages and event.body_note:
        notes.append(event.body_note)
    if Stage.RANGE in stages and shallow:
        notes.append(f"This clone is shallow (its history is cut off). {event.shallow_fix}")
    waivable = sorted({f.waive_label for f in report.findings if f.waive_label is not None})
    if waivable and event.labels is None:
        notes.append(
            f"This run knows no pull-request labels ({_no_labels(event)}), so the label(s)"
            f" {', '.join(waivable)} cannot waive anything here. "
            + (
                "Once cagr can read the queued pull request, its labels waive here too; until"
                " then, merge a pull request with a waived finding without the merge queue."
                if event.merge_queue
                else "A waiver counts in the pull request's own run; for other CI systems, pass"
                " the labels with --labels A,B."
            )
        )
    by_author = any(f.waive_authors for f in report.findings)
    if by_author and event.author is None:
        notes.append(
            f"This run knows no pull-request author ({_no_author(event)}), so no rule's"
            " waive_authors can waive anything here. "
            + (
                "A waiver by author counts in the pull request's own run; for other CI"
                " systems, pass the author with --author LOGIN."
                if not event.merge_queue
                else "Once cagr can read the queued pull request, its author waives here too."
            )
        )
    for wanted in waivable:  # a label that would waive but for its case
        near = sorted(
            label for label in event.labels or () if label.casefold() == wanted.casefold()
        )
        if near:
            notes.append(
                f"The pull request's label {', '.join(near)} is not {wanted}, the waive_label"
                " its rule names: a label waives only when spelled exactly so (case too)."
            )
    return tuple(notes)


def _no_author(event: CiEvent) -> str:
    if event.provider == "gitlab":
        return "CI_MERGE_REQUEST_AUTHOR is not set: GitLab sets it from 17.9 on"
    if event.provider == "none":
        return "outside a CI system's pull request run there is none"
    return f"{event.title} names no pull request author"


def _no_labels(event: CiEvent) -> str:
    if event.merge_queue:
        return "its pull request's labels could not be read: see the note on it"
    if event.provider == "none":
        return "outside a CI system's pull request run there are no labels"
    return f"{event.title} has no pull request labels"
