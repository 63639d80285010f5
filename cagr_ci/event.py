"""What one CI run is about: the commit it must check, the target, and the PR's description.

A provider (GitHub Actions, GitLab CI, or none) reads its own variables into a CiEvent; the
command line's `--base` and `--body-file` then take precedence over what the event says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from attrs import evolve, field, frozen

from cagr_core.errors import ErrorWithFix
from cagr_core.pull_request import MAX_BODY_BYTES, PrBody
from cagr_repo.body_file import read_body_file, read_body_stdin

Provider = Literal["github", "gitlab", "none"]


class EventError(ErrorWithFix):
    """The CI event cannot be read or used (exit 2); `fix` says what to change in the job."""


@frozen
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


def read_event(
    env: Mapping[str, str], *, base: str | None, body_file: str | None, stdin: int | None = None
) -> CiEvent:
    """The event of the CI system `env` shows (none: no CI variables), with --base and
    --body-file applied on top (`-`: the description piped to the file descriptor `stdin`);
    EventError when it cannot be read or the options do not fit."""
    from . import github, gitlab  # noqa: PLC0415  # they import CiEvent from this module

    explicit = bool(base) and body_file is not None  # enough to run anywhere, as in any CI
    if env.get("GITHUB_ACTIONS") == "true" and (env.get("GITHUB_EVENT_NAME") or not explicit):
        event = github.read_github_event(env)
    elif env.get("GITLAB_CI") == "true":
        event = gitlab.read_gitlab_event(env)
    else:
        event = CiEvent(
            "none",
            "",
            "no CI system detected",
            body_note="No CI event names a pull request here, so PR-body rules that fire cannot"
            " be checked: pass the description with --body-file FILE.",
        )
    if base:
        event = evolve(event, target=base, target_source="--base")
    if body_file is not None:
        if event.merge_queue:
            raise EventError(
                "--body-file cannot be used for a merge queue run: the batch holds several pull"
                " requests, and one description cannot stand for all of them.",
                "Drop --body-file; each pull request's own run checks its description.",
            )
        if body_file == "-" and stdin is not None:
            text, source = read_body_stdin(stdin, MAX_BODY_BYTES), "--body-file - (standard input)"
        else:
            text, source = read_body_file(body_file, MAX_BODY_BYTES), f"--body-file {body_file}"
        event = evolve(event, body=PrBody(text), body_source=source, pull_request=True)
    return event
