"""What one CI run is about: the commit it must check, the target, and the PR's description.

A provider (GitHub Actions, GitLab CI, or none) reads its own variables into a CiEvent
(`providers.read_event`).
"""

from __future__ import annotations

from typing import Literal

from cagr_core.errors import ErrorWithFix
from cagr_core.pull_request import PrBody
from cagr_core.values import field, value

from .forge import ForgeApi

Provider = Literal["github", "gitlab", "none"]


class EventError(ErrorWithFix):
    """The CI event cannot be read or used (exit 2); `fix` says what to change in the job."""


@value
class CiEvent:
    """One CI run's inputs, each with where it came from (for the report).

    `head`: the commit the checkout must be at (None: whatever is checked out is checked).
    `head_fix`: how to configure the checkout when it is not at `head`.
    `target`: a branch name or commit id (None: `[git] protected_branch`, origin/HEAD, main).
    `body`: the pull request's description, or unavailable. `body_note`: when unavailable, why,
    and what to do instead. `merge_queue`: the run checks a merge queue's batch.
    `shallow_fix`: how to get full history in this CI system. `default_branch`: the remote's
    default branch as the CI system names it (`default_branch_source`), a guess that comes
    after `[git] protected_branch`. `head_branch`: the branch a run that is not about a pull
    request checks (a push, a schedule); a guessed target that is this branch is refused, as
    it would compare the branch with itself. `privileged`: why this job runs with the base
    repository's secrets and write token on a checkout a pull request controls; then no
    `[stack].ci` command (named by that checkout's own configuration) is run.
    `labels`: the pull request's labels (None: this run knows of none, so nothing is waived);
    `labels_source` says where they came from. `author`: the login of the account that opened
    the pull request (None: unknown, so no `waive_authors` waives), from `author_source`.
    `api`: the forge's API for this run (where, which project, which token), if it has one;
    `number`: the pull (merge) request the run is about, for its comment. `queue_ref`: a merge
    queue group's branch (`merge_group.head_ref`), `queue_branch` the branch it merges into,
    and `queue_number` the pull request the group's branch names (None: it names none exactly).
    """

    provider: Provider
    name: str
    title: str
    head: str | None = None
    head_source: str = ""
    head_fix: str = ""
    target: str | None = None
    target_source: str = ""
    body: PrBody = field(factory=PrBody.unavailable)
    body_source: str = ""
    body_note: str = ""
    merge_queue: bool = False
    default_branch: str = ""
    default_branch_source: str = ""
    head_branch: str = ""
    privileged: str = ""  # why the job holds the base repository's secrets (no [stack].ci then)
    pull_request: bool = False  # the run is about pull requests (a PR, an MR, a merge queue)
    shallow_fix: str = "Fetch the full history (`git fetch --unshallow`) before `cagr ci`."
    labels: frozenset[str] | None = None
    labels_source: str = ""
    author: str | None = None
    author_source: str = ""
    api: ForgeApi | None = None
    number: int | None = None
    queue_ref: str = ""
    queue_branch: str = ""
    queue_number: int | None = None


def split_labels(text: str) -> frozenset[str]:
    """Labels from a comma-separated list (GitLab's CI_MERGE_REQUEST_LABELS, `--labels`)."""
    return frozenset(label.strip() for label in text.split(",") if label.strip())
