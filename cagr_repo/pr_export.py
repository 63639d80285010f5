"""Merged pull requests as a forge's CLI exports them, read into a map from merge commit to
pull request, so `cagr replay --body-from FILE` judges a commit with its real description.

- GitHub, `gh pr list --state merged --json number,title,body,mergeCommit,author,labels`: a JSON
  array of objects. `number`; `body`, text (null read as empty, as `cagr ci` reads
  `pull_request.body`); `mergeCommit`, `{"oid": SHA}` or null (not merged: nothing to map); the
  merge commit, or the squash commit of a squash merge, or a rebase merge's last commit.
  `author`, `{"login", "is_bot", ...}` or null: gh writes an app's login as `app/NAME`, which is
  `NAME[bot]` in the webhook's `pull_request.user.login` that `waive_authors` names in CI.
  `labels`, `[{"name", ...}]`.
- GitLab, `glab mr list --merged --output json`: `iid`; `description` (null: empty);
  `merge_commit_sha` and `squash_commit_sha`, each a SHA, "" or null (both map, the merge
  commit on first-parent history and the squash commit under it); `author.username`; `labels`,
  a list of names.

`author` and `labels` may be left out of the export: then no author or label waives, as in a CI
run that knows none. A body left out is an error (it would read as an empty description), and
so is a commit that two different pull requests claim: one of them would judge by a description
that was never its. Each entry is one forge's shape, told by `number` (GitHub) or `iid` (GitLab).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Literal

from cagr_core.data import json_kind
from cagr_core.errors import CagrError
from cagr_core.values import value
from cagr_git.files import read_regular
from cagr_git.object_ids import is_sha

MAX_EXPORT_BYTES = 64 * 1024 * 1024
GH_COMMAND = (
    "gh pr list --state merged --limit 500 --json number,title,body,mergeCommit,author,labels"
)
GLAB_COMMAND = "glab mr list --merged --output json --per-page 100"
_FIX = f"Write the file with `{GH_COMMAND} > FILE` (GitLab: `{GLAB_COMMAND} > FILE`)."

Forge = Literal["github", "gitlab"]


class PrExportError(CagrError):
    """A pull-request export cagr will not read; the message names the file, the entry and the
    fix."""


@value
class ExportedPullRequest:
    """One merged pull request (a GitLab merge request) as the export describes it.

    `author`: the login a CI run would compare with `waive_authors` (None: unknown); `labels`:
    None when the export has none to read (nothing waives by label)."""

    forge: Forge
    number: int
    body: str
    author: str | None = None
    labels: frozenset[str] | None = None

    @property
    def name(self) -> str:
        """How the forge names it: `pull request #12`, `merge request !12`."""
        if self.forge == "gitlab":
            return f"merge request !{self.number}"
        return f"pull request #{self.number}"


def app_login(author: bytes) -> str:
    """A GitHub app's login from a commit's author (`dependabot[bot] <49699333+dependabot[bot]@
    users.noreply.github.com>`, or a display name with that address): what a pull request's
    author is called, which `waive_authors` matches; "" for a person."""
    name, _, address = author.decode("utf-8", "replace").partition(" <")
    local = address.partition("@")[0].rpartition("+")[2]
    for login in (name.strip(), local):
        if login.endswith("[bot]") and " " not in login:
            return login
    return ""


def read_pr_export(path: str, limit: int = MAX_EXPORT_BYTES) -> dict[str, ExportedPullRequest]:
    """The export at `path`: each merge (or squash) commit's pull request."""
    # Read without blocking and only as a regular file: a FIFO there never hangs the command.
    data = read_regular(path, limit + 1, follow=True)
    if data is None:
        problem = (
            "is missing" if not os.path.lexists(path) else "is not a regular file one can read"
        )
        raise PrExportError(f"the pull-request export {path} {problem}. {_FIX}")
    if len(data) > limit:
        raise PrExportError(
            f"the pull-request export {path} is larger than the {limit} bytes cagr reads;"
            " export fewer pull requests (gh: a smaller --limit)."
        )
    return parse_pr_export(data, path)


def parse_pr_export(data: bytes | str, name: str) -> dict[str, ExportedPullRequest]:
    """`data`, a GitHub or GitLab export (see the module), as commit -> pull request; `name`
    is the file, for the messages."""
    try:
        # json reads bytes in UTF-8, -16 or -32, a byte-order mark first or not: what Windows
        # shells' redirection writes reads too.
        entries = json.loads(data)
    except ValueError as error:
        raise PrExportError(
            f"the pull-request export {name} is not JSON ({error}). {_FIX}"
        ) from None
    except RecursionError:
        raise PrExportError(
            f"the pull-request export {name} is nested too deeply to be an export. {_FIX}"
        ) from None
    if not isinstance(entries, list):
        raise PrExportError(
            f"the pull-request export {name} is JSON {json_kind(entries)}, not an array of pull"
            f" requests. {_FIX}"
        )
    by_commit: dict[str, ExportedPullRequest] = {}
    for index, entry in enumerate(entries):
        where = f"the pull-request export {name}, entry {index}"
        if not isinstance(entry, dict):
            raise PrExportError(
                f"{where} is {json_kind(entry)}, not a pull request (an object). {_FIX}"
            )
        pull_request, commits = _entry(entry, where)
        for sha in commits:
            claimed = by_commit.setdefault(sha, pull_request)
            if claimed != pull_request:
                raise PrExportError(
                    f"{where}: {pull_request.name} claims the commit {sha}, which"
                    f" {claimed.name} claims too; an export holds each merged pull request of"
                    " one repository once. Export the repository again, on its own."
                )
    return by_commit


def _entry(entry: Mapping[str, object], where: str) -> tuple[ExportedPullRequest, list[str]]:
    if "number" in entry:
        return _github(entry, where)
    if "iid" in entry:
        return _gitlab(entry, where)
    raise PrExportError(
        f"{where} has neither `number` (gh's) nor `iid` (glab's): it is not a pull request. {_FIX}"
    )


def _github(entry: Mapping[str, object], where: str) -> tuple[ExportedPullRequest, list[str]]:
    number = _number(entry, "number", where)
    where = f"{where} (pull request #{number})"
    body = _body(entry, "body", where)
    if "mergeCommit" not in entry:
        raise PrExportError(f"{where} has no `mergeCommit`, which says its commit. {_FIX}")
    merge = entry["mergeCommit"]
    commits: list[str] = []
    if isinstance(merge, dict):
        commits.append(_sha(merge.get("oid"), "mergeCommit.oid", where))
    elif merge is not None:
        raise PrExportError(f'{where}: `mergeCommit` is neither `{{"oid": SHA}}` nor null. {_FIX}')
    author = _github_author(entry.get("author"), where)
    labels = _github_labels(entry, where)
    return ExportedPullRequest("github", number, body, author, labels), commits


def _gitlab(entry: Mapping[str, object], where: str) -> tuple[ExportedPullRequest, list[str]]:
    number = _number(entry, "iid", where)
    where = f"{where} (merge request !{number})"
    body = _body(entry, "description", where)
    if "merge_commit_sha" not in entry and "squash_commit_sha" not in entry:
        raise PrExportError(
            f"{where} has neither `merge_commit_sha` nor `squash_commit_sha`, which say its"
            f" commit. {_FIX}"
        )
    commits = [
        _sha(entry[key], key, where)
        for key in ("merge_commit_sha", "squash_commit_sha")
        if entry.get(key) not in (None, "")
    ]
    author = entry.get("author")
    username = author.get("username") if isinstance(author, dict) else None
    if author is not None and not isinstance(username, str):
        raise PrExportError(f"{where}: `author` is not a user with a `username`. {_FIX}")
    labels = entry.get("labels")
    if labels is not None and not (
        isinstance(labels, list) and all(isinstance(label, str) for label in labels)
    ):
        raise PrExportError(f"{where}: `labels` is not a list of label names. {_FIX}")
    return (
        ExportedPullRequest(
            "gitlab",
            number,
            body,
            username or None,
            None if labels is None else frozenset(labels),
        ),
        commits,
    )


def _number(entry: Mapping[str, object], key: str, where: str) -> int:
    number = entry[key]
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise PrExportError(f"{where}: `{key}` is not a pull request's number: {number!r}. {_FIX}")
    return number


def _body(entry: Mapping[str, object], key: str, where: str) -> str:
    if key not in entry:
        raise PrExportError(
            f"{where} has no `{key}`: the export was made without the description, which is"
            f" what replay judges. {_FIX}"
        )
    body = entry[key]
    if body is not None and not isinstance(body, str):
        raise PrExportError(f"{where}: `{key}` is neither text nor null. {_FIX}")
    return body or ""


def _sha(oid: object, key: str, where: str) -> str:
    text = oid.lower() if isinstance(oid, str) else None
    if text is None or not is_sha(text):
        raise PrExportError(f"{where}: `{key}` is not a full commit id: {oid!r}. {_FIX}")
    return text


def _github_author(author: object, where: str) -> str | None:
    """The login `pull_request.user.login` gives in CI (None: unknown, or a deleted account)."""
    if author is None:
        return None
    login = author.get("login") if isinstance(author, dict) else None
    if not isinstance(login, str):
        raise PrExportError(f"{where}: `author` is not an account with a `login`. {_FIX}")
    assert isinstance(author, dict)
    if author.get("is_bot") is True and login.startswith("app/"):
        app = login.removeprefix("app/")
        return f"{app}[bot]" if app else None  # gh writes `app/` for an account gone
    return login or None


def _github_labels(entry: Mapping[str, object], where: str) -> frozenset[str] | None:
    labels = entry.get("labels")
    if labels is None:
        return None
    shaped = isinstance(labels, list) and all(
        isinstance(label, dict) and isinstance(label.get("name"), str) for label in labels
    )
    if not shaped:
        raise PrExportError(f"{where}: `labels` is not a list of labels with a `name`. {_FIX}")
    assert isinstance(labels, list)
    return frozenset(label["name"] for label in labels)
