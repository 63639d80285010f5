"""Replaying history: each commit judged as if it had been a pull request from its first parent,
by the rules in the working tree, writing nothing.

It is how a team decides whether a rule is ready to go from `warn` to `error`: what it would have
said on real changes. A commit's change is its first parent -> the commit (a merge: everything it
brought in). Its PR description is its pull request's when an export of merged pull requests
names it as their merge (or squash) commit (`pull_requests`, from pr_export), with that pull
request's author and labels, which waive as they would have in CI; else its message when asked
(`body_from_message`); else PR-body obligations are reported as owed. Every commit goes through
the one check service.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from cagr_core.pull_request import PrBody
from cagr_core.report import same_account
from cagr_core.values import replace, value
from cagr_git.discover import Checkout
from cagr_git.log import Commit, first_parents, read_commit
from cagr_git.objects import DamagedObject
from cagr_git.repository import Repository, open_repo
from cagr_git.revisions import RevisionProblem, resolve_revision

from .check import CheckRequest, CheckResult, check
from .config import RepoConfig
from .judging_config import CommittedConfig
from .pr_export import ExportedPullRequest, app_login
from .range import RangeProblem, resolve_target
from .target import choose_target

DEFAULT_LAST = 20


@value
class Replayed:
    """One commit and its verdict (None: it has no parent to be a change from).

    `description`: where its PR description came from (`pull request #12`, `merge request !12`,
    `message`), None when it had none. `author`: the login it was judged as opened by (its
    pull request's, or the GitHub app whose commit it is), None when unknown. `waived_owed`:
    the rules whose PR-body obligations it owes but whose `waive_authors` name that author, so
    in CI they would be met or waived, never failed."""

    commit: Commit
    result: CheckResult | None
    description: str | None = None
    author: str | None = None
    waived_owed: tuple[str, ...] = ()


@value
class Replay:
    """What was replayed: the commits (newest first, or as given) and where they came from."""

    source: str
    commits: tuple[Replayed, ...]


def replay(  # noqa: PLR0913  # what to replay and how
    config: RepoConfig,
    checkout: Checkout,
    revisions: Sequence[str] = (),
    *,
    base: str | None = None,
    last: int = DEFAULT_LAST,
    body_from_message: bool = False,
    pull_requests: Mapping[str, ExportedPullRequest] | None = None,
    progress: Callable[[int, int, Commit], None] | None = None,
) -> Replay:
    """Judge each of `revisions`, or the last `last` first-parent commits of the target.

    A commit `pull_requests` maps (merge commit -> pull request) is judged with its pull
    request's description, author and labels; another with its message (`body_from_message`),
    else with its PR-body obligations owed.

    RangeProblem when the target or a revision names no commit."""
    with open_repo(checkout) as repo:
        if repo.problem is not None:
            raise RangeProblem(repo.problem, "")
        if revisions:
            commits = [_commit(repo, revision) for revision in revisions]
            source = "the revisions given"
        else:
            target = choose_target(checkout, base, config.settings.protected_branch)
            resolved = resolve_target(repo, target.name)
            commits = first_parents(repo, resolved.sha, last)
            source = f"the last {len(commits)} first-parent commits of {resolved.ref}"
    judged_by = CommittedConfig(config, config.raw_digest)  # the working tree's rules judge
    done: list[Replayed] = []
    for number, commit in enumerate(commits, 1):
        if progress is not None:
            progress(number, len(commits), commit)
        if commit.parent is None:
            done.append(Replayed(commit, None))
            continue
        request = CheckRequest(
            committed=True,
            base=commit.parent,
            base_chosen_by="its first parent",
            head=commit.sha,
            write_record=False,
            note_target=False,  # its target is a past commit: nothing to say of its rules
        )
        described = None
        pull_request = (pull_requests or {}).get(commit.sha)
        if pull_request is not None:
            described = pull_request.name
            request = replace(
                request,
                body=PrBody(pull_request.body),
                labels=pull_request.labels,
                author=pull_request.author,
            )
        else:
            # As a pull request, a commit is its author's: a GitHub app's login is in its
            # address; a person's is not known here.
            request = replace(request, author=app_login(commit.author) or None)
            if body_from_message:
                described = "message"
                request = replace(request, body=PrBody(commit.message))
        result = check(config, checkout, request, judged_by=judged_by)
        author = request.author
        done.append(Replayed(commit, result, described, author, _waived_owed(result, author)))
    return Replay(source, tuple(done))


def _waived_owed(result: CheckResult, author: str | None) -> tuple[str, ...]:
    """The rules whose owed obligations `author`'s pull request would have waived."""
    if author is None:
        return ()
    owed = result.report.deferred
    waived = {d.rule for d in owed if any(same_account(author, a) for a in d.waive_authors)}
    return tuple(sorted(waived))


def _commit(repo: Repository, revision: str) -> Commit:
    try:
        return read_commit(repo, resolve_revision(repo, revision).sha)
    except RevisionProblem as problem:
        raise RangeProblem(problem.message, problem.fix) from problem
    except (KeyError, ValueError, DamagedObject) as error:
        raise RangeProblem(f"the commit {revision} cannot be read ({error}).", "") from error
