"""A merge queue run's pull request: found, read from GitHub's API, and judged by its own
description against its own change.

GitHub's `merge_group` event names no pull request, but the queue builds and checks each entry
on its own ("merge limits do not combine merge_group builds", GitHub's documentation): an
entry's group is built on the one ahead of it (`base_sha`, "the merge group's parent commit")
and lives on the branch `gh-readonly-queue/<base branch>/pr-<N>-<base_sha>`. So the group's
range, `base_sha` -> `head_sha`, is pull request N's change. cagr reads that name strictly
(its base branch and commit must be the event's own), reads pull request N from the REST API
(`GET /repos/{owner}/{repo}/pulls/{N}`: its current body, head, base and labels), and checks
in git, rather than trusting it, that the group holds nothing else: every path the group
changes is changed by the pull request's own change (merge base with its base branch -> its
head), and every dependency a PR-body rule sees the group add is one that change adds.

Then the PR's `pr_body` rules and `[review].pr_sections` are judged on its own change with its
own description, and its labels waive what they waive: its own findings, and the group's file
findings (the group is its change). If anything of this cannot be had exactly (no token, the
API unreachable, a branch name of another shape, a pull request that is closed or whose head
this clone lacks, a group change the pull request does not explain), nothing is guessed: the
group's PR-body obligations stay unchecked, nothing is waived, and a note says why and what to
do. The HTTP modules are imported only when a pull request has to be read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cagr_core.changes import Range, Stage, Unchecked
from cagr_core.description import SECTIONS_RULE
from cagr_core.pull_request import PrBody
from cagr_core.report import Deferred, Report
from cagr_core.values import replace, value
from cagr_git.discover import Checkout
from cagr_git.object_ids import is_sha
from cagr_git.objects import COMMIT, DamagedObject, read_raw
from cagr_git.repository import open_repo
from cagr_repo.check import CheckRequest, CheckResult, check
from cagr_repo.config import RepoConfig
from cagr_repo.judging_config import CommittedConfig, WorkingConfig

from .event import CiEvent

_UNCHECKED_TAIL = (
    " So the queued pull request's description is unknown here: the PR-body obligations this"
    " group fires (and `[review].pr_sections`) stay unchecked, and no label waives anything."
)


@value
class QueuedPullRequest:
    """A pull request as GitHub's API gave it: number, title, description (null: empty), head
    commit, base branch and label names."""

    number: int
    title: str
    body: str
    head: str
    base: str
    labels: frozenset[str]
    author: str | None = None


@value
class PullRequestCheck:
    """One queued pull request's own verdict: `report` holds its PR-body rules and
    `[review].pr_sections` judged on `range` (merge base with its base -> its head) with its
    description, waived by its labels; each message names the pull request."""

    pull_request: QueuedPullRequest
    report: Report
    range: Range | None


@value
class QueueCheck:
    """What reading the queue did to the group's report.

    `report`: the group's report, its PR-body items replaced by the pull request's own when it
    was read and attributed; `labels`: the labels that waive the group's findings (None: none
    known); `note`: why the pull request could not be used, and what to do (empty when it was,
    or when nothing needed it).
    """

    report: Report
    pull_requests: tuple[PullRequestCheck, ...] = ()
    labels: frozenset[str] | None = None
    labels_source: str = ""
    note: str = ""
    author: str | None = None


class _Unresolved(Exception):
    """The queue's pull request cannot be known exactly; the message says why and the fix."""


def check_queue(  # noqa: PLR0913  # the group's check and what it was made of
    working: WorkingConfig,
    judged: CommittedConfig,
    checkout: Checkout,
    event: CiEvent,
    *,
    group: CheckResult,
    report: Report,
) -> QueueCheck:
    """Replace the group's unknown PR-body verdicts (in `report`, the group's with its
    `[review].pr_sections`) by its pull request's own, when something needs the pull request (a
    fired PR-body rule, `[review].pr_sections`, a waivable finding). The pull request's change
    is judged by the configuration that judged the group (`judged`, read from `working`)."""
    config = judged.config
    assert config is not None
    sections = config.settings.pr_sections
    waivable = any(f.waive_label is not None or f.waive_authors for f in report.findings)
    if not (group.obligations or sections or waivable):
        return QueueCheck(report)
    if not group.changes.complete or group.changes.range is None:
        return QueueCheck(
            report,
            note="The merge group's own change could not be read (above), so its pull request"
            " was not looked up." + _UNCHECKED_TAIL,
        )
    try:
        number = _queued_number(event)
        pull_request = _read(event, number)
        _require_head(checkout, pull_request)
        request = CheckRequest(
            committed=True,
            head=pull_request.head,
            base=pull_request.base,
            base_chosen_by=f"pull request #{number}'s base branch (GitHub API)",
            body=PrBody(pull_request.body),
            labels=pull_request.labels,
            author=pull_request.author,
            write_record=False,
        )
        own = check(working, checkout, request, judged_by=judged)
        _require_attribution(group, own, number)
    except _Unresolved as unresolved:
        return QueueCheck(report, note=str(unresolved) + _UNCHECKED_TAIL)
    its = _own_report(config, own, pull_request)
    merged = replace(
        report,
        findings=tuple(sorted((*report.findings, *its.findings), key=lambda f: f.rule)),
        unchecked=(
            *(item for item in report.unchecked if item.stage is not Stage.BODY),
            *its.unchecked,
        ),
        waived=report.waived + its.waived,
    )
    return QueueCheck(
        merged,
        (PullRequestCheck(pull_request, its, own.changes.range),),
        pull_request.labels,
        f"pull request #{number}'s labels, from GitHub's API",
        author=pull_request.author,
    )


def _queued_number(event: CiEvent) -> int:
    """The pull request the group's branch names (github.py reads the name strictly)."""
    if event.queue_number is None:
        raise _Unresolved(
            f"The merge group's branch ({event.queue_ref or 'none given'}) is not named the way"
            " GitHub's queue names the branch of one pull request"
            f" (refs/heads/gh-readonly-queue/{event.queue_branch or '<base>'}/pr-<N>-<base_sha>),"
            " so cagr cannot tell which pull request it holds. Merge a pull request that fires a"
            " PR-body rule without the queue, or report the branch name to cagr's maintainers."
        )
    return event.queue_number


def _read(event: CiEvent, number: int) -> QueuedPullRequest:
    """Pull request `number` from GitHub's API."""
    api = event.api
    if api is None or api.token is None:
        why = (
            api.token_problem
            if api is not None and api.token_problem
            else "GITHUB_TOKEN is not set"
        )
        raise _Unresolved(
            f"{why}, so cagr cannot read pull request #{number} from GitHub's API. Give the step"
            " `env: GITHUB_TOKEN: ${{ github.token }}` and the job `permissions: pull-requests:"
            " read` (`cagr init --ci github` writes both when the rules need them)."
        )
    if not api.project:
        raise _Unresolved(
            "GITHUB_REPOSITORY is not set, so cagr cannot tell which repository to ask."
        )
    from . import github_api  # noqa: PLC0415  # HTTP is loaded only when a pull request is read
    from .rest import ApiError  # noqa: PLC0415

    try:
        data = github_api.pull_request(github_api.client(api), api.project, number)
    except ApiError as error:
        raise _Unresolved(_api_problem(error.message, error.status, number, api.project)) from None
    return _pull_request(data, number, event.queue_branch)


def _api_problem(said: str, status: int | None, number: int, repository: str) -> str:
    if status == 404:
        return (
            f"GitHub's API has no pull request #{number} in {repository} ({said}): it was"
            " deleted, or the token cannot see it."
        )
    if status in (401, 403):
        return (
            f"GitHub's API refused to show pull request #{number} ({said}). Give the job"
            " `permissions: pull-requests: read`."
        )
    return (
        f"GitHub's API could not be used ({said}). Rerun the job once it answers; the queue"
        " waits for this check."
    )


def _pull_request(data: dict[str, Any], number: int, branch: str) -> QueuedPullRequest:
    """The fields cagr needs, checked against GitHub's `pull-request` schema and the queue."""
    head, base = data.get("head"), data.get("base")
    sha = head.get("sha") if isinstance(head, dict) else None
    base_ref = base.get("ref") if isinstance(base, dict) else None
    body, labels, title = data.get("body"), data.get("labels"), data.get("title")
    shaped = (
        data.get("number") == number
        and isinstance(sha, str)
        and is_sha(sha)
        and isinstance(base_ref, str)
        and (body is None or isinstance(body, str))
        and isinstance(labels, list)
        and all(isinstance(item, dict) and isinstance(item.get("name"), str) for item in labels)
    )
    if not shaped:
        raise _Unresolved(
            f"GitHub's answer for pull request #{number} is not shaped like a pull request."
        )
    assert isinstance(sha, str)
    assert isinstance(base_ref, str)
    assert isinstance(labels, list)
    state = data.get("state")
    if state != "open":
        raise _Unresolved(
            f"pull request #{number} is {state} (GitHub API), not open: this group is about to"
            " be rebuilt without it."
        )
    if base_ref != branch:
        raise _Unresolved(
            f"pull request #{number} merges into {base_ref}, but this queue merges into {branch}."
        )
    user = data.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    return QueuedPullRequest(
        number,
        title if isinstance(title, str) else "",
        body or "",
        sha,
        base_ref,
        frozenset(item["name"] for item in labels),
        login if isinstance(login, str) and login else None,
    )


def _require_head(checkout: Checkout, pull_request: QueuedPullRequest) -> None:
    """The pull request's head commit must be in the clone (cagr never fetches)."""
    with open_repo(checkout) as repo:
        try:
            read_raw(repo.objects, bytes.fromhex(pull_request.head), COMMIT)
        except (KeyError, DamagedObject):
            number = pull_request.number
            raise _Unresolved(
                f"pull request #{number}'s head ({pull_request.head[:12]}) is not in this clone:"
                " a pull request from a fork keeps its commits under refs/pull/N/head, which"
                " actions/checkout does not fetch. Fetch it before `cagr ci`:"
                f" `git fetch --no-tags origin pull/{number}/head`."
            ) from None


def _require_attribution(group: CheckResult, own: CheckResult, number: int) -> None:
    """Everything the group changes must be the pull request's own change."""
    changes = own.changes
    if not changes.complete or changes.range is None:
        said = " ".join(item.message for item in changes.unchecked[:3])
        raise _Unresolved(f"pull request #{number}'s own change could not be read: {said}")
    own_paths = {change.path for change in changes.changes}
    foreign = sorted(c.path for c in group.changes.changes if c.path not in own_paths)
    if not foreign:
        foreign = _foreign_dependencies(group.obligations, own.obligations)
    if foreign:
        listed = ", ".join(foreign[:5]) + (
            f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        )
        raise _Unresolved(
            f"the merge group changes what pull request #{number}'s own change does not"
            f" ({listed}): it holds more than the pull request its branch names, so cagr cannot"
            " tell whose description must explain that."
        )


def _foreign_dependencies(group: Sequence[Deferred], own: Sequence[Deferred]) -> list[str]:
    """Dependencies a PR-body rule sees the group add that the pull request does not add."""
    added = {
        (item.rule, dep.manifest, dep.section, dep.name)
        for item in own
        for dep in item.dependencies
    }
    return [
        f"{dep.name} in {dep.manifest}"
        for item in group
        for dep in item.dependencies
        if (item.rule, dep.manifest, dep.section, dep.name) not in added
    ]


def _own_report(config: RepoConfig, own: CheckResult, pull_request: QueuedPullRequest) -> Report:
    """The pull request's PR-body rules and headings on its own change, with its description,
    waived by its labels; every message names it."""
    body_rules = {rule.id for rule in config.rules.rules if rule.kind == "pr_body"}
    body_rules.add(SECTIONS_RULE)
    report = own.report
    report = Report(
        findings=tuple(f for f in report.findings if f.rule in body_rules),
        unchecked=(
            *(u for u in report.unchecked if u.rule in body_rules),
            # What kept its own change from being judged; the configuration's own notes are
            # the group's already.
            *(u for u in report.unchecked if u.rule is None and u.stage is not Stage.CONFIG),
        ),
        range=report.range,
        waived=tuple(w for w in report.waived if w.finding.rule in body_rules),
    )
    name = f"Pull request #{pull_request.number}"
    if own.changes.range is not None:  # the report's own header names the group's range
        name += f" (its own change, {own.changes.range.label})"
    return replace(
        report,
        findings=tuple(replace(f, message=f"{name}: {f.message}") for f in report.findings),
        unchecked=tuple(_named(u, name) for u in report.unchecked),
        waived=tuple(
            replace(w, finding=replace(w.finding, message=f"{name}: {w.finding.message}"))
            for w in report.waived
        ),
    )


def _named(item: Unchecked, name: str) -> Unchecked:
    return replace(item, message=f"{name}: {item.message}")
