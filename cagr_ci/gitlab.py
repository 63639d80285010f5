"""GitLab CI: merge request pipelines, read from GitLab's predefined variables.

- The head is the merge request's source commit: CI_COMMIT_SHA, or, in merged results
  pipelines (where CI_COMMIT_SHA is GitLab's merge commit), CI_MERGE_REQUEST_SOURCE_BRANCH_SHA.
- The target is CI_MERGE_REQUEST_DIFF_BASE_SHA, the commit GitLab diffs the merge request
  against (else the target branch, CI_MERGE_REQUEST_TARGET_BRANCH_NAME).
- A push pipeline judges the pushed range, CI_COMMIT_BEFORE_SHA -> CI_COMMIT_SHA; a new branch
  (an all-zero CI_COMMIT_BEFORE_SHA) from its merge base with the target (`[git]
  protected_branch`, else CI_DEFAULT_BRANCH). Other pipelines (schedules, runs by hand) check
  what is checked out against that target, never against their own branch.
- The labels are CI_MERGE_REQUEST_LABELS (comma-separated; absent when there are none).
- The body is CI_MERGE_REQUEST_DESCRIPTION. GitLab passes only its first 2,700 characters and
  sets CI_MERGE_REQUEST_DESCRIPTION_IS_TRUNCATED=true when it cut it: a cut description decides
  a section only where that section ends at a next heading inside the kept text. An absent
  variable is an unavailable description, never an empty one.
"""

from __future__ import annotations

from collections.abc import Mapping

from cagr_core.pull_request import PrBody
from cagr_core.values import replace
from cagr_git.object_ids import is_sha
from cagr_repo.target import BY_PUSH_BEFORE

from .event import CiEvent, EventError, split_labels
from .forge import gitlab_api

NO_COMMIT = "0" * 40  # CI_COMMIT_BEFORE_SHA of a new branch (and of every non-push pipeline)
DESCRIPTION_LIMIT = 2_700  # characters GitLab keeps of a description in the variable
SHALLOW_FIX = (
    "Set `GIT_DEPTH: 0` in the job's variables (or `git fetch --unshallow` before `cagr ci`),"
    " so the clone has the history cagr needs."
)


_VARIABLES_FIX = (
    "Run cagr ci in the merge request pipeline GitLab starts; do not override its predefined"
    " variables."
)


def read_gitlab_event(env: Mapping[str, str]) -> CiEvent:
    """The pipeline's merge request, or a pipeline without one."""
    source = env.get("CI_PIPELINE_SOURCE", "")
    if source != "merge_request_event":
        return _branch_pipeline(env, source)
    head, head_source = _head(env)
    target, target_source = _target(env)
    body, body_source, note = _description(env)
    iid = env.get("CI_MERGE_REQUEST_IID", "")
    return CiEvent(
        "gitlab",
        source,
        "GitLab merge request" + (f" !{iid}" if iid else ""),
        head=head,
        head_source=head_source,
        head_fix="Check out the merge request's own commit before `cagr ci`"
        ' (`git checkout --detach "$CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"` in a merged results'
        " pipeline), not GitLab's merge commit.",
        target=target,
        target_source=target_source,
        body=body,
        body_source=body_source,
        body_note=note,
        pull_request=True,
        shallow_fix=SHALLOW_FIX,
        # GitLab leaves the variable out when the merge request has no labels.
        labels=split_labels(env.get("CI_MERGE_REQUEST_LABELS", "")),
        labels_source="CI_MERGE_REQUEST_LABELS",
        # The author's username (GitLab 17.9 on); older GitLab leaves it out.
        author=env.get("CI_MERGE_REQUEST_AUTHOR", "").strip().removeprefix("@") or None,
        author_source="CI_MERGE_REQUEST_AUTHOR",
        api=gitlab_api(env),
        number=int(iid) if iid.isdigit() else None,
    )


def _branch_pipeline(env: Mapping[str, str], source: str) -> CiEvent:
    """A pipeline without a merge request: a push judges its range, others their branch."""
    branch = env.get("CI_COMMIT_BRANCH", "")
    event = CiEvent(
        "gitlab",
        source,
        f"GitLab {source or 'pipeline'} pipeline" + (f" on {branch}" if branch else ""),
        default_branch=env.get("CI_DEFAULT_BRANCH", ""),
        default_branch_source="CI_DEFAULT_BRANCH",
        head_branch=branch,
        body_note=f"This GitLab pipeline (CI_PIPELINE_SOURCE={source or 'unset'}) has no"
        " merge request, so PR-body rules that fire cannot be checked: run cagr ci in a"
        " merge request pipeline (`rules: - if: $CI_PIPELINE_SOURCE =="
        ' "merge_request_event"`), or pass the description with --body-file FILE.',
        shallow_fix=SHALLOW_FIX,
    )
    if source != "push":
        return event
    tag = env.get("CI_COMMIT_TAG", "")
    if tag:
        raise EventError(
            f"this pipeline is the push of the tag {tag}, which changes no branch: there is no"
            " change to judge.",
            "Run cagr ci in branch and merge request pipelines only"
            " (`rules: - if: $CI_COMMIT_TAG` with `when: never` first).",
        )
    head = _sha_variable(env, "CI_COMMIT_SHA")
    before = _sha_variable(env, "CI_COMMIT_BEFORE_SHA")
    if before == NO_COMMIT:  # a new branch: its merge base with the target says what it adds
        return replace(event, head=head, head_source="CI_COMMIT_SHA", head_fix=_PUSH_HEAD_FIX)
    return replace(
        event,
        head=head,
        head_source="CI_COMMIT_SHA",
        head_fix=_PUSH_HEAD_FIX,
        target=before,
        target_source=f"{BY_PUSH_BEFORE} (CI_COMMIT_BEFORE_SHA)",
    )


_PUSH_HEAD_FIX = (
    "Run `cagr ci` on the commit GitLab checked out for the push (CI_COMMIT_SHA), before any"
    " step that checks out another one."
)


def _sha_variable(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "")
    if not is_sha(value):
        raise EventError(f"{name} is not a commit id: {value!r}.", _VARIABLES_FIX)
    return value


def _head(env: Mapping[str, str]) -> tuple[str, str]:
    for name in ("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", "CI_COMMIT_SHA"):
        value = env.get(name, "")
        if value:
            if not is_sha(value):
                raise EventError(
                    f"{name} is not a commit id: {value!r}.",
                    _VARIABLES_FIX,
                )
            return value, name
    raise EventError(
        "this merge request pipeline has no CI_COMMIT_SHA.",
        _VARIABLES_FIX,
    )


def _target(env: Mapping[str, str]) -> tuple[str | None, str]:
    branch = env.get("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "")
    diff_base = env.get("CI_MERGE_REQUEST_DIFF_BASE_SHA", "")
    if diff_base:
        if not is_sha(diff_base):
            raise EventError(
                f"CI_MERGE_REQUEST_DIFF_BASE_SHA is not a commit id: {diff_base!r}.",
                _VARIABLES_FIX,
            )
        shown = f" (diff base of {branch})" if branch else ""
        return diff_base, f"CI_MERGE_REQUEST_DIFF_BASE_SHA{shown}"
    if branch:
        return branch, "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"
    return None, ""


def _description(env: Mapping[str, str]) -> tuple[PrBody, str, str]:
    """The description as GitLab passed it: whole, cut short, or not passed at all."""
    if "CI_MERGE_REQUEST_DESCRIPTION" not in env:
        return (
            PrBody.unavailable(),
            "",
            "GitLab did not pass CI_MERGE_REQUEST_DESCRIPTION to this job, so PR-body rules that"
            " fire cannot be checked: use a GitLab version that sets it, or pass the description"
            " with --body-file FILE.",
        )
    text = env["CI_MERGE_REQUEST_DESCRIPTION"]
    flag = env.get("CI_MERGE_REQUEST_DESCRIPTION_IS_TRUNCATED")
    # Without the flag (older GitLab), a description at the limit may have been cut.
    cut = flag == "true" if flag is not None else len(text) >= DESCRIPTION_LIMIT
    if not cut:
        return PrBody(text), "CI_MERGE_REQUEST_DESCRIPTION", ""
    # The last line may end mid-word (`## Risk` of `## Risky`): only whole lines are kept.
    kept = text[: text.rfind("\n") + 1]
    return (
        PrBody(kept, truncated=True),
        f"CI_MERGE_REQUEST_DESCRIPTION (cut by GitLab after {len(text)} characters; sections"
        " that end inside the kept text are checked)",
        "",
    )
