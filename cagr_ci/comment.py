"""`cagr ci --comment`: one comment on the pull (merge) request, kept current.

The comment begins with a hidden marker. Each run lists the conversation, takes the token's
own comment that begins with it, and edits it in place (or writes it, the first time; a second
one, left by two runs racing, is deleted), so a pull request never collects a comment per push.
A person's comment is never edited, whatever it says. The text is the job summary's (every
rule, its verdict and fix; findings, waivers, unchecked items), or a short "passed" when the
run passed.

Whatever stands in the way (no pull request, no token, a fork's read-only token, an outage)
makes a notice, never a failure: the comment cannot turn a verdict around or fail the job.
GitHub: GITHUB_TOKEN with `pull-requests: write`. GitLab: CAGR_GITLAB_TOKEN, a project access
token with the `api` scope (GitLab's job token cannot write notes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal, Protocol

from cagr_core.values import value

from . import github_api, gitlab_api
from .event import CiEvent
from .forge import ForgeApi
from .rest import ApiError, RestClient
from .run import CiResult
from .summary import cell, code, step_summary

MARKER = "<!-- cagr ci --comment: kept current by every run; edits here are replaced -->"
COMMENT_LIMIT = 60_000  # bytes of the text; GitHub takes 65,536 characters per comment
COMMENT_SECONDS = 60.0  # for all of one client's requests: a comment never holds a job long
Done = Literal["created", "updated", "unchanged", "skipped", "nothing"]


@value
class CommentOutcome:
    """What became of the comment, in a sentence for the job log (`skipped`: it could not be
    written; `nothing`: the run is about no pull request)."""

    done: Done
    message: str


@value
class Posted:
    """A comment as the forge lists it: its id, its author (a login, or a user id) and text."""

    id: int
    author: str | int
    body: str


def run_link(env: Mapping[str, str]) -> str:
    """The address of this run's log, when the CI system says it."""
    if env.get("CI_JOB_URL"):
        return env["CI_JOB_URL"]
    parts = [env.get(name, "") for name in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY")]
    run = env.get("GITHUB_RUN_ID", "")
    return f"{parts[0].rstrip('/')}/{parts[1]}/actions/runs/{run}" if all(parts) and run else ""


def comment_body(result: CiResult, link: str = "") -> str:
    """The comment for a run: a short "passed", else the job summary (cut to fit)."""
    footer = "\n---\n*Kept current by `cagr ci --comment`" + (
        f"; [the job log]({link}) has the whole report.*" if link else ".*"
    )
    if result.status == "pass":
        report = result.report
        lines = [
            MARKER,
            "### ✅ cagr: change rules passed",
            "",
            f"Head `{result.head[:12]}` · target {code(result.target_name[:60])} ·"
            f" {len(result.changes.changes)} changed path(s) checked",
        ]
        if report.warnings:
            lines += ["", f"{len(report.warnings)} warning(s) (severity warn: they fail nothing):"]
            lines += [f"- {code(f.rule)}: {cell(f.message)}" for f in report.warnings[:20]]
            if len(report.warnings) > 20:
                lines.append(f"- … and {len(report.warnings) - 20} more")
        return "\n".join(lines) + "\n" + footer + "\n"
    room = COMMENT_LIMIT - len(MARKER.encode()) - len(footer.encode()) - 2
    summary = step_summary(result, result.config, limit=room, holder="a comment")
    return f"{MARKER}\n{summary}{footer}\n"


def error_body(text: str, link: str = "") -> str:
    """The comment for a run cagr could not check (an event or checkout it cannot use)."""
    where = f" [The job log]({link}) says more." if link else " The job log says more."
    return f"{MARKER}\n### ⚠️ cagr ci could not check this run\n\n{cell(text)}\n\n{where.strip()}\n"


def no_mentions(text: str) -> str:
    """`text` whose `@` can mention no one: a comment notifies whoever it mentions, and file
    and package names hold `@` (`@babel/core`). A word joiner after it breaks the mention and
    shows nothing; inside a code span, where GitHub mentions no one, nothing is added, so a
    path or command copied from it is the one written."""
    return "\n".join(_line_without_mentions(line) for line in text.split("\n"))


_BACKTICKS = re.compile(r"`+")
_CELL_EDGE = re.compile(r"(?<!\\)\|")  # a table row's cells end at pipes not escaped
_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_MAX_BACKTICKS = 1000  # cmark's MAXBACKTICKS: a longer run never opens a code span


def _line_without_mentions(line: str) -> str:
    """One line of the comment, each an inline block of its own (a table row: each cell)."""
    if not line.startswith("|"):
        return _outside_code(line)
    cells = _CELL_EDGE.split(line)
    return "|".join(_outside_code(cell) for cell in cells)


def _outside_code(text: str) -> str:
    """`text` (one inline block) with a word joiner after every `@` outside its code spans,
    found as GitHub's cmark-gfm finds them (`handle_backticks`): a run of backticks not escaped
    by a backslash opens a span that the next run of the same length closes, else it is text;
    cmark remembers where it last saw a run of each length, and once a search reached the end
    it gives up on an opener whose length it last saw before it (so does this)."""
    out: list[str] = []
    last_seen: dict[int, int] = {}  # cmark's `backticks`: where a run of each length last began
    scanned = False  # cmark's `scanned_for_backticks`
    start = at = 0
    while at < len(text):
        char = text[at]
        if char == "\\" and text[at + 1 : at + 2] in _ESCAPABLE:
            at += 2  # an escaped character, a backtick too, is text
            continue
        if char != "`":
            at += 1
            continue
        run = _BACKTICKS.match(text, at)
        assert run is not None
        length = len(run.group())
        after = at + length
        end = None
        if length <= _MAX_BACKTICKS and not (scanned and last_seen.get(length, 0) <= after):
            for found in _BACKTICKS.finditer(text, after):
                if len(found.group()) <= _MAX_BACKTICKS:
                    last_seen[len(found.group())] = found.start()
                if len(found.group()) == length:
                    end = found.end()
                    break
            else:
                scanned = True
        if end is None:
            at = after  # no closer: literal backticks
            continue
        out.append(text[start:at].replace("@", "@\u2060"))
        out.append(text[at:end])  # the code span, as it was written
        start = at = end
    out.append(text[start:].replace("@", "@\u2060"))
    return "".join(out)


def keep_comment(event: CiEvent, body: str) -> CommentOutcome:
    """Write `body` as the pull request's one comment; a notice, never an exception."""
    body = no_mentions(body)
    api = event.api
    if event.number is None or api is None:
        return CommentOutcome(
            "nothing",
            f"--comment: {event.title} is about no single pull request, so no comment was"
            " written (it is kept on pull and merge requests).",
        )
    if api.token is None:
        why = api.token_problem or f"{api.token_variable} is not set"
        return CommentOutcome(
            "skipped", f"--comment: {why}, so no comment was written. {_hint(api.forge)}"
        )
    if not api.url or not api.project:
        return CommentOutcome(
            "skipped",
            "--comment: this job does not say where the forge's API is (the CI system's"
            " variables for the API address and project are missing); no comment was written.",
        )
    keep = _github if api.forge == "github" else _gitlab
    try:
        done = keep(api, event.number, body)
    except ApiError as error:
        return CommentOutcome("skipped", _refused(event, error.message, error.status))
    said = {
        "created": "wrote the pull request's comment",
        "updated": "updated the pull request's comment in place",
        "unchanged": "the pull request's comment already says this",
    }[done]
    return CommentOutcome(done, f"--comment: {said}.")


def _hint(forge: str) -> str:
    if forge == "github":
        return (
            "Give the step `env: GITHUB_TOKEN: ${{ github.token }}` and the job `permissions:"
            " pull-requests: write` (`cagr init --ci github --comment` writes both)."
        )
    return (
        "Add a project access token (`api` scope, Reporter role) as the masked CI/CD variable"
        " CAGR_GITLAB_TOKEN. Pipelines of merge requests from forks do not get it: they go"
        " without the comment."
    )


def _refused(event: CiEvent, said: str, status: int | None) -> str:
    if status in (401, 403, 404):
        who = (
            "a pull request from a fork gets a read-only token"
            if event.provider == "github"
            else "the token needs the `api` scope and at least the Reporter role"
        )
        return (
            f"--comment: the forge refused ({said}), so no comment was written or changed:"
            f" this job's token cannot write to the pull request ({who}). The job log,"
            " annotations and summary still hold the whole report."
        )
    return (
        f"--comment: the forge's API could not be used ({said}); the pull request's comment"
        " was left as it was. The verdict above stands either way."
    )


class Thread(Protocol):
    """A pull request's conversation, as far as its comment goes."""

    def create(self, body: str) -> None: ...
    def update(self, comment: int, body: str) -> None: ...
    def delete(self, comment: int) -> None: ...


def sync(posted: list[Posted], me: str | int, body: str, thread: Thread) -> Done:
    """Make the token's own marked comment say `body`: write it, edit it, or leave it."""
    ours = [p for p in posted if p.author == me and p.body.startswith(MARKER)]
    if not ours:
        thread.create(body)
        return "created"
    for extra in ours[1:]:  # two runs that raced each wrote one: the oldest stays
        thread.delete(extra.id)
    if _normal(ours[0].body) == _normal(body):
        return "unchanged"
    thread.update(ours[0].id, body)
    return "updated"


def _normal(text: str) -> str:
    return text.replace("\r\n", "\n").strip()


def _field(item: dict[str, object], outer: str, inner: str) -> str | int:
    """`item[outer][inner]` when it is text or a number, else "" (no one's)."""
    value = item.get(outer)
    found = value.get(inner) if isinstance(value, dict) else None
    return found if isinstance(found, str | int) else ""


def _login(name: str) -> str:
    return name.removesuffix("[bot]")


@value
class _GitHubThread:
    rest: RestClient
    repository: str
    number: int

    def create(self, body: str) -> None:
        github_api.create_comment(self.rest, self.repository, self.number, body)

    def update(self, comment: int, body: str) -> None:
        github_api.update_comment(self.rest, self.repository, comment, body)

    def delete(self, comment: int) -> None:
        github_api.delete_comment(self.rest, self.repository, comment)


@value
class _GitLabThread:
    rest: RestClient
    project: str
    iid: int

    def create(self, body: str) -> None:
        gitlab_api.create_note(self.rest, self.project, self.iid, body)

    def update(self, comment: int, body: str) -> None:
        gitlab_api.update_note(self.rest, self.project, self.iid, comment, body)

    def delete(self, comment: int) -> None:
        gitlab_api.delete_note(self.rest, self.project, self.iid, comment)


def _github(api: ForgeApi, number: int, body: str) -> Done:
    rest = github_api.client(api, deadline=COMMENT_SECONDS)
    me = _login(
        github_api.viewer_login(github_api.client(api, graphql=True, deadline=COMMENT_SECONDS))
    )
    posted = [
        Posted(item["id"], _login(str(_field(item, "user", "login"))), item["body"])
        for item in github_api.comments(rest, api.project, number)
        if isinstance(item.get("id"), int) and isinstance(item.get("body"), str)
    ]
    return sync(posted, me, body, _GitHubThread(rest, api.project, number))


def _gitlab(api: ForgeApi, iid: int, body: str) -> Done:
    rest = gitlab_api.client(api, deadline=COMMENT_SECONDS)
    me = gitlab_api.current_user(rest)
    posted = [
        Posted(item["id"], _field(item, "author", "id"), item["body"])
        for item in gitlab_api.notes(rest, api.project, iid)
        if isinstance(item.get("id"), int)
        and isinstance(item.get("body"), str)
        and not item.get("system")
    ]
    return sync(posted, me, body, _GitLabThread(rest, api.project, iid))
