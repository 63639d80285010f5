"""GitHub Actions: the event's webhook payload, read into a CiEvent.

- `pull_request` / `pull_request_target`, every action (`edited` included: a changed description
  reruns the check): the checkout must be the PR's own head (`pull_request.head.sha`), never
  GitHub's synthetic merge commit; the target is GITHUB_BASE_REF; the body is
  `pull_request.body` (null is an available, empty body); the labels are the names in
  `pull_request.labels` (`labeled` and `unlabeled` rerun the check). `pull_request_target`
  runs with the base repository's secrets: the PR's own `[stack].ci` commands are never run
  there.
- `merge_group`: file rules for `base_sha` -> `head_sha`; the event carries no PR description
  and no labels, only the group's branch (`head_ref`), which names its pull request: the run
  reads it from GitHub's API (`merge_queue`), and without it PR-body obligations that fire are
  unchecked (never judged by one arbitrary body) and nothing is waived.
- `push`: the pushed range, `before` -> `after` (the checkout must be `after`); a new branch
  (an all-zero `before`) from its merge base with the target (`[git] protected_branch`, else
  the default branch); a force push whose `before` is gone is unchecked. Tag pushes and
  deletions change no branch: exit 2.
- Anything else (workflow_dispatch, schedule, ...): no pull request, no body; the target is
  `[git] protected_branch` or the default branch, never the run's own branch.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from cagr_core.pull_request import PrBody
from cagr_git.files import read_regular
from cagr_git.object_ids import is_sha
from cagr_repo.target import BY_PUSH_BEFORE

from .event import CiEvent, EventError
from .forge import github_api

PR_EVENTS = ("pull_request", "pull_request_target")
MAX_PAYLOAD_BYTES = 64 * 1024 * 1024
CHECKOUT_FIX = (
    "Check out the pull request's own head with full history: in actions/checkout, set"
    " `ref: ${{ github.event.pull_request.head.sha }}` and `fetch-depth: 0`"
    " (`cagr init --ci github` writes a workflow that does)."
)
SHALLOW_FIX = "Set `fetch-depth: 0` on actions/checkout, so the clone has the history cagr needs."
PUSH_CHECKOUT_FIX = (
    "Check out the pushed commit with its history: actions/checkout without `ref` (for a push"
    " it checks out the pushed commit) and with `fetch-depth: 0`."
)
PRIVILEGED = (
    "this `pull_request_target` run holds the base repository's secrets and a write token,"
    " while the checkout (the pull request's head) could be anyone's"
)
NO_COMMIT = "0" * 40  # `before` of a new branch, `after` of a deleted one
_QUEUE_ENTRY = re.compile(r"([1-9][0-9]{0,9})-([0-9a-f]{40})")  # `pr-<N>-<base_sha>`
DEFAULT_BRANCH_SOURCE = "repository.default_branch"
_SHAPE_FIX = "Run cagr ci on the event GitHub sends; do not rewrite GITHUB_EVENT_PATH."
QUEUE_NOTE = (
    "GitHub's merge_group event carries no pull-request description: this merge queue run could"
    " not read its pull request's from GitHub's API, so PR-body obligations stay unchecked."
)


def read_github_event(env: Mapping[str, str]) -> CiEvent:
    """The run's event from GITHUB_EVENT_NAME and the payload at GITHUB_EVENT_PATH."""
    name = env.get("GITHUB_EVENT_NAME", "")
    if not name:
        raise EventError(
            "GITHUB_ACTIONS is set but GITHUB_EVENT_NAME is not.",
            "Run cagr ci as a step of a GitHub Actions job (not in a container that drops the"
            " runner's variables), or pass --base and --body-file.",
        )
    if name in PR_EVENTS:
        return _pull_request(name, env, _payload(env, name))
    if name == "merge_group":
        return _merge_group(env, _payload(env, name))
    if name == "push":
        return _push(_payload(env, name))
    base = env.get("GITHUB_BASE_REF", "")
    ref = env.get("GITHUB_REF", "")
    try:
        payload = _payload(env, name)
    except EventError:
        payload = {}  # not every run has a payload; the usual precedence then applies
    return CiEvent(
        "github",
        name,
        f"GitHub {name}",
        target=base or None,
        target_source="GITHUB_BASE_REF" if base else "",
        default_branch=_default_branch(payload),  # checkouts in Actions have no origin/HEAD
        default_branch_source=DEFAULT_BRANCH_SOURCE,
        head_branch=ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else "",
        body_note=_no_pull_request(name),
        shallow_fix=SHALLOW_FIX,
    )


def _no_pull_request(name: str) -> str:
    return (
        f"This `{name}` run has no pull request, so PR-body rules that fire cannot be checked:"
        " run cagr ci on pull_request events, or pass the description with --body-file FILE."
    )


def _default_branch(payload: Mapping[str, Any]) -> str:
    """`repository.default_branch` from the event payload, when it has one."""
    repository = payload.get("repository")
    branch = repository.get("default_branch") if isinstance(repository, dict) else None
    return branch if isinstance(branch, str) else ""


def _push(payload: dict[str, Any]) -> CiEvent:
    """The pushed range: `before` -> `after`; a new branch from its merge base."""
    ref = _field(payload, "ref", "push")
    if not isinstance(ref, str) or not ref.startswith(("refs/heads/", "refs/tags/")):
        raise EventError(f"`ref` in the `push` event payload is not a branch: {ref!r}.", _SHAPE_FIX)
    if ref.startswith("refs/tags/"):
        raise EventError(
            f"this run is the push of the tag {ref.removeprefix('refs/tags/')}, which changes no"
            " branch: there is no change to judge.",
            "Run cagr ci on branch pushes only (`on: push: branches: ['**']`), or on pull"
            " requests.",
        )
    branch = ref.removeprefix("refs/heads/")
    after = _sha(payload, "after", "push")
    before = _sha(payload, "before", "push")
    if after == NO_COMMIT:
        raise EventError(
            f"this push deleted the branch {branch}: there is no change to judge.",
            "Run cagr ci only on pushes that update a branch"
            " (`if: ${{ !github.event.deleted }}` on the step).",
        )
    new_branch = before == NO_COMMIT
    return CiEvent(
        "github",
        "push",
        f"GitHub push to {branch}" + (" (a new branch)" if new_branch else ""),
        head=after,
        head_source="after",
        head_fix=PUSH_CHECKOUT_FIX,
        # A new branch has no previous tip: its merge base with the target says what it adds.
        target=None if new_branch else before,
        target_source="" if new_branch else f"{BY_PUSH_BEFORE} (`before`)",
        default_branch=_default_branch(payload),
        default_branch_source=DEFAULT_BRANCH_SOURCE,
        head_branch=branch,
        body_note=_no_pull_request("push"),
        shallow_fix=SHALLOW_FIX,
    )


def _payload(env: Mapping[str, str], name: str) -> dict[str, Any]:
    path = env.get("GITHUB_EVENT_PATH", "")
    fix = (
        "Run cagr ci as a step of the workflow the event triggered, where GitHub provides"
        " the payload file."
    )
    if not path:
        raise EventError(f"GITHUB_EVENT_PATH is not set for this `{name}` run.", fix)
    # Read without blocking and only as a regular file: a FIFO there never hangs the job.
    data = read_regular(path, MAX_PAYLOAD_BYTES + 1, follow=True)
    if data is None:
        raise EventError(
            f"cannot read the event payload {path} (missing, unreadable or not a regular file).",
            fix,
        )
    if len(data) > MAX_PAYLOAD_BYTES:
        raise EventError(f"the event payload {path} is larger than cagr reads.", fix)
    try:
        payload = json.loads(data)
    except ValueError as error:
        raise EventError(f"the event payload {path} is not valid JSON ({error}).", fix) from error
    except RecursionError as error:
        raise EventError(f"the event payload {path} is nested too deeply to read.", fix) from error
    if not isinstance(payload, dict):
        raise EventError(f"the event payload {path} is not a JSON object.", fix)
    return payload


def _field(payload: Mapping[str, Any], dotted: str, name: str) -> Any:
    value: Any = payload
    for key in dotted.split("."):
        if not isinstance(value, dict) or key not in value:
            raise EventError(
                f"the `{name}` event payload has no `{dotted}`; it is not shaped like GitHub's.",
                _SHAPE_FIX,
            )
        value = value[key]
    return value


def _sha(payload: Mapping[str, Any], dotted: str, name: str) -> str:
    value = _field(payload, dotted, name)
    if not isinstance(value, str) or not is_sha(value):
        raise EventError(
            f"`{dotted}` in the `{name}` event payload is not a commit id: {value!r}.",
            _SHAPE_FIX,
        )
    return value


def _pull_request(name: str, env: Mapping[str, str], payload: dict[str, Any]) -> CiEvent:
    head = _sha(payload, "pull_request.head.sha", name)
    body = _field(payload, "pull_request.body", name)
    if body is not None and not isinstance(body, str):
        raise EventError(
            f"`pull_request.body` in the `{name}` event payload is neither text nor null.",
            _SHAPE_FIX,
        )
    base = env.get("GITHUB_BASE_REF", "")
    source = "GITHUB_BASE_REF"
    if not base:
        payload_base = _field(payload, "pull_request.base.ref", name)
        base = payload_base if isinstance(payload_base, str) else ""
        source = "pull_request.base.ref"
    labels = _labels(payload["pull_request"].get("labels"), name)
    user = payload["pull_request"].get("user")
    login = user.get("login") if isinstance(user, dict) else None
    author = login if isinstance(login, str) and login else None
    number = payload["pull_request"].get("number")
    number = number if isinstance(number, int) and not isinstance(number, bool) else None
    action = payload.get("action")
    title = f"GitHub {name}" + (f" ({action})" if isinstance(action, str) else "")
    title += f" #{number}" if number is not None else ""
    return CiEvent(
        "github",
        name,
        title,
        head=head,
        head_source="pull_request.head.sha",
        head_fix=CHECKOUT_FIX,
        target=base or None,
        target_source=source if base else "",
        body=PrBody(body or ""),
        body_source="pull_request.body" + (" (null: an empty description)" if body is None else ""),
        privileged=PRIVILEGED if name == "pull_request_target" else "",
        pull_request=True,
        shallow_fix=SHALLOW_FIX,
        labels=labels,
        labels_source="pull_request.labels" if labels is not None else "",
        author=author,
        author_source="pull_request.user.login" if author is not None else "",
        api=github_api(env, _repository(payload)),
        number=number,
    )


def _repository(payload: Mapping[str, Any]) -> str:
    """`repository.full_name` from the payload (GITHUB_REPOSITORY says the same)."""
    repository = payload.get("repository")
    name = repository.get("full_name") if isinstance(repository, dict) else None
    return name if isinstance(name, str) else ""


def _labels(value: object, name: str) -> frozenset[str] | None:
    """The names in `pull_request.labels` (None: the payload has none to read)."""
    if value is None:
        return None
    shaped = isinstance(value, list) and all(
        isinstance(item, dict) and isinstance(item.get("name"), str) for item in value
    )
    if not shaped:
        raise EventError(
            f"`pull_request.labels` in the `{name}` event payload is not a list of labels.",
            _SHAPE_FIX,
        )
    assert isinstance(value, list)
    return frozenset(item["name"] for item in value)


def _merge_group(env: Mapping[str, str], payload: dict[str, Any]) -> CiEvent:
    head = _sha(payload, "merge_group.head_sha", "merge_group")
    base = _sha(payload, "merge_group.base_sha", "merge_group")
    base_ref = payload["merge_group"].get("base_ref")
    head_ref = payload["merge_group"].get("head_ref")
    head_ref = head_ref if isinstance(head_ref, str) else ""
    branch = base_ref.removeprefix("refs/heads/") if isinstance(base_ref, str) else ""
    shown = f" ({base_ref})" if isinstance(base_ref, str) else ""
    return CiEvent(
        "github",
        "merge_group",
        "GitHub merge_group (merge queue batch)",
        head=head,
        head_source="merge_group.head_sha",
        head_fix="Check out the merge queue's commit: in actions/checkout, set"
        " `ref: ${{ github.event.merge_group.head_sha }}` and `fetch-depth: 0`.",
        target=base,  # the queue's own base commit (GITHUB_BASE_REF is not set for it)
        target_source=f"merge_group.base_sha{shown}",
        body_note=QUEUE_NOTE,
        merge_queue=True,
        pull_request=True,
        shallow_fix=SHALLOW_FIX,
        api=github_api(env, _repository(payload)),
        queue_ref=head_ref,
        queue_branch=branch,
        queue_number=_queued_number(head_ref, branch, base),
    )


def _queued_number(head_ref: str, branch: str, base: str) -> int | None:
    """The pull request a queue group's branch names, when the name is exactly
    `refs/heads/gh-readonly-queue/<branch>/pr-<N>-<base_sha>` for this event (else None)."""
    prefix = f"refs/heads/gh-readonly-queue/{branch}/pr-"
    if not branch or not head_ref.startswith(prefix):
        return None
    match = _QUEUE_ENTRY.fullmatch(head_ref.removeprefix(prefix))
    return int(match.group(1)) if match is not None and match.group(2) == base else None
