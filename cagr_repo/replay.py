"""Replaying history: each commit judged as if it had been a pull request from its first parent,
by the rules in the working tree, writing nothing.

It is how a team decides whether a rule is ready to go from `warn` to `error`: what it would have
said on real changes. A commit's change is its first parent -> the commit (a merge: everything it
brought in); its message stands in for the PR description only when asked (`body_from_message`),
else PR-body obligations are reported as owed. Every commit goes through the one check service.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cagr_core.pull_request import PrBody
from cagr_core.values import value
from cagr_git.discover import Checkout
from cagr_git.log import Commit, first_parents, read_commit
from cagr_git.objects import DamagedObject
from cagr_git.repository import Repository, open_repo
from cagr_git.revisions import RevisionProblem, resolve_revision

from .check import CheckRequest, CheckResult, check
from .config import RepoConfig
from .judging_config import CommittedConfig
from .range import RangeProblem, resolve_target
from .target import choose_target

DEFAULT_LAST = 20


@value
class Replayed:
    """One commit and its verdict (None: it has no parent to be a change from)."""

    commit: Commit
    result: CheckResult | None


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
    progress: Callable[[int, int, Commit], None] | None = None,
) -> Replay:
    """Judge each of `revisions`, or the last `last` first-parent commits of the target.

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
            body=PrBody(commit.message) if body_from_message else None,
            write_record=False,
        )
        done.append(Replayed(commit, check(config, checkout, request, judged_by=judged_by)))
    return Replay(source, tuple(done))


def _commit(repo: Repository, revision: str) -> Commit:
    try:
        return read_commit(repo, resolve_revision(repo, revision).sha)
    except RevisionProblem as problem:
        raise RangeProblem(problem.message, problem.fix) from problem
    except (KeyError, ValueError, DamagedObject) as error:
        raise RangeProblem(f"the commit {revision} cannot be read ({error}).", "") from error
