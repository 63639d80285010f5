"""Which CI system a run is in, and the event it is about.

Each provider (GitHub Actions, GitLab CI, or none) reads its own variables into a CiEvent; the
command line's `--base` and `--body-file` then take precedence over what the event says.
"""

from __future__ import annotations

from collections.abc import Mapping

from cagr_core.pull_request import MAX_BODY_BYTES, PrBody
from cagr_core.values import replace
from cagr_repo.body_file import read_body_file, read_body_stdin

from . import github, gitlab
from .event import CiEvent, EventError, split_labels


def read_event(  # noqa: PLR0913  # one argument per option of `cagr ci`
    env: Mapping[str, str],
    *,
    base: str | None,
    body_file: str | None,
    labels: str | None = None,
    author: str | None = None,
    stdin: int | None = None,
) -> CiEvent:
    """The event of the CI system `env` shows (none: no CI variables), with --base,
    --body-file (`-`: the description piped to the file descriptor `stdin`) and --labels
    applied on top; EventError when it cannot be read or the options do not fit."""
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
        event = replace(event, target=base, target_source="--base")
    if labels is not None:
        if event.merge_queue:
            raise EventError(
                "--labels cannot be used for a merge queue run: the batch holds several pull"
                " requests, and one set of labels cannot stand for all of them.",
                "Drop --labels; each pull request's own run reads its labels.",
            )
        event = replace(event, labels=split_labels(labels), labels_source="--labels")
    if author is not None:
        if event.merge_queue:
            raise EventError(
                "--author cannot be used for a merge queue run: the batch holds several pull"
                " requests, each with its own author.",
                "Drop --author; each pull request's own run reads its author.",
            )
        if not author.strip():
            raise EventError("--author is empty.", "Name the pull request's author's login.")
        event = replace(event, author=author.strip(), author_source="--author")
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
        event = replace(event, body=PrBody(text), body_source=source, pull_request=True)
    return event
