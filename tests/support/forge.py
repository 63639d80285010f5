"""A local stand-in for GitHub's and GitLab's REST APIs, speaking their documented shapes for
the calls cagr makes: pull requests, issue comments (paged with `Link`), GitHub's GraphQL
`viewer`, GitLab's `/user` and merge request notes (paged with `Link` and `X-Next-Page`),
rate-limit headers on every answer, and the forges' own error bodies (401 bad credentials, 403
for a read-only token, 404 for what is gone, 429 and secondary rate limits). Nothing leaves
this machine.

Tests arrange its state (`pulls`, `comments`, `notes`), script failures (`fail`), and read
back every request it saw (`requests`), with the headers it was sent.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from attrs import define, field

from tests.support.ci import Project, pull_request
from tests.support.git import git

TOKEN = "ghs_f4keT0kenThatMustNeverBePrinted0123456789"
GITLAB_TOKEN = "glpat-f4keGitLabT0kenNeverPrinted"
BOT = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}
PERSON = {"login": "octocat", "id": 583231, "type": "User"}
GITLAB_BOT = {"id": 90210, "username": "project_1_bot_abc", "name": "cagr", "bot": True}
GITLAB_PERSON = {"id": 1, "username": "maintainer", "name": "A Maintainer", "bot": False}
DOCS = "https://docs.github.com/rest"
SECONDARY = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
    " If you reach out to GitHub Support for help, please include the request ID ABCD:1234."
)


@define
class Seen:
    """One request as the server received it (header names in lower case)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@define
class Failure:
    """A scripted answer for requests whose method and path match, `times` times."""

    method: str
    path: re.Pattern[str]
    status: int
    body: Any
    headers: dict[str, str]
    times: int


@define
class FakeForge:
    """The server's state; `url` is GitHub's API root, `gitlab_url` GitLab's."""

    port: int = 0
    pulls: dict[int, dict[str, Any]] = field(factory=dict)
    comments: dict[int, list[dict[str, Any]]] = field(factory=dict)
    notes: dict[int, list[dict[str, Any]]] = field(factory=dict)
    viewer: dict[str, Any] = field(factory=lambda: dict(BOT))
    gitlab_user: dict[str, Any] = field(factory=lambda: dict(GITLAB_BOT))
    read_only: bool = False  # a fork's pull request: reads work, writes answer 403
    # The forge's answers quote the credentials they were sent: error texts, a redirect's
    # address, the text of what it serves (as some forges and proxies do).
    echo_token: bool = False
    requests: list[Seen] = field(factory=list)
    failures: list[Failure] = field(factory=list)
    _next_id: int = 1000

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def gitlab_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v4"

    def fail(
        self,
        method: str,
        path: str,
        status: int,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next `times` matching requests (`path`: a regular expression searched
        in the path) with this status, body and headers."""
        self.failures.append(Failure(method, re.compile(path), status, body, headers or {}, times))

    def comment(self, number: int, body: str, user: dict[str, Any] | None = None) -> int:
        """Add an existing comment to pull request `number`'s conversation; its id."""
        self._next_id += 1
        self.comments.setdefault(number, []).append(
            _github_comment(self._next_id, body, user or PERSON)
        )
        return self._next_id

    def note(
        self, iid: int, body: str, author: dict[str, Any] | None = None, *, system: bool = False
    ) -> int:
        """Add an existing note to merge request `iid`; its id."""
        self._next_id += 1
        self.notes.setdefault(iid, []).append(
            _gitlab_note(self._next_id, iid, body, author or GITLAB_PERSON, system)
        )
        return self._next_id

    def seen(self, method: str | None = None) -> list[Seen]:
        return [r for r in self.requests if method is None or r.method == method]

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id


def _github_comment(comment_id: int, body: str, user: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": comment_id,
        "node_id": f"IC_{comment_id}",
        "url": f"https://api.github.com/repos/octo-org/app/issues/comments/{comment_id}",
        "html_url": f"https://github.com/octo-org/app/pull/7#issuecomment-{comment_id}",
        "body": body,
        "user": user,
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "issue_url": "https://api.github.com/repos/octo-org/app/issues/7",
        "author_association": "NONE" if user.get("type") == "Bot" else "MEMBER",
        "performed_via_github_app": None,
    }


def _gitlab_note(
    note_id: int, iid: int, body: str, author: dict[str, Any], system: bool
) -> dict[str, Any]:
    return {
        "id": note_id,
        "type": None,
        "body": body,
        "author": author,
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
        "system": system,
        "noteable_id": 500 + iid,
        "noteable_type": "MergeRequest",
        "noteable_iid": iid,
        "resolvable": False,
        "confidential": False,
        "internal": False,
    }


class _Handler(BaseHTTPRequestHandler):
    forge: FakeForge  # set on the class the server makes for each FakeForge

    def log_message(self, *_: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        parts = urlsplit(self.path)
        forge = self.forge
        headers = {name.lower(): value for name, value in self.headers.items()}
        forge.requests.append(Seen(method, self.path, headers, body))
        for failure in forge.failures:
            if failure.times and failure.method == method and failure.path.search(parts.path):
                failure.times -= 1
                self._answer(failure.status, failure.body, failure.headers)
                return
        if parts.path.startswith("/api/v4/"):
            self._gitlab(method, parts.path.removeprefix("/api/v4"), parse_qs(parts.query), body)
        else:
            self._github(method, parts.path, parse_qs(parts.query), body)

    def _answer(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        if self.forge.echo_token:
            data, headers = self._echoed(status, data, dict(headers or {}))
        payload = b"" if data is None else json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in {**self._rate_headers(), **(headers or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _echoed(
        self, status: int, data: Any, headers: dict[str, str]
    ) -> tuple[Any, dict[str, str]]:
        """The answer, quoting the credentials this request carried wherever text goes."""
        sent = self.headers.get("Authorization") or self.headers.get("PRIVATE-TOKEN") or ""
        bare = sent.removeprefix("Bearer ")
        if 300 <= status < 400:
            headers["Location"] = f"https://elsewhere.invalid/login?access_token={bare}"
        if isinstance(data, dict) and status >= 300:
            said = str(data.get("message", ""))
            data = {**data, "message": f"{said} (sent {sent!r}){' ' * 280}{bare}"}
        elif isinstance(data, dict) and "body" in data:  # a pull request's text and title
            data = {**data, "body": f"{data['body'] or ''}\n{bare}"}
            if "title" in data:
                data["title"] = f"{data['title']} {bare}"
        if isinstance(data, list):  # comments and notes: their text quotes it too
            data = [{**item, "body": f"{item.get('body', '')} {bare}"} for item in data]
        return data, headers

    def _rate_headers(self) -> dict[str, str]:
        reset = str(int(time.time()) + 3600)
        if self.path.startswith("/api/v4/"):
            return {
                "RateLimit-Limit": "2000",
                "RateLimit-Remaining": "1999",
                "RateLimit-Reset": reset,
            }
        return {
            "x-ratelimit-limit": "1000",
            "x-ratelimit-remaining": "999",
            "x-ratelimit-reset": reset,
            "x-ratelimit-used": "1",
            "x-ratelimit-resource": "core",
            "x-github-api-version-selected": "2022-11-28",
        }

    # GitHub

    def _github(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> None:
        forge = self.forge
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self._answer(
                401, {"message": "Bad credentials", "documentation_url": DOCS, "status": "401"}
            )
            return
        if method == "POST" and path == "/graphql":
            self._answer(200, {"data": {"viewer": {"login": forge.viewer["login"]}}})
            return
        match = re.fullmatch(r"/repos/octo-org/app/pulls/(\d+)", path)
        if match and method == "GET":
            pull = forge.pulls.get(int(match[1]))
            if pull is None:
                self._not_found("pulls/pulls#get-a-pull-request")
            else:
                self._answer(200, pull)
            return
        match = re.fullmatch(r"/repos/octo-org/app/issues/(\d+)/comments", path)
        if match and method == "GET":
            items = forge.comments.get(int(match[1]), [])
            self._page(items, query, path)
            return
        if match and method == "POST":
            if forge.read_only:
                self._forbidden()
                return
            comment = _github_comment(forge.new_id(), body["body"], forge.viewer)
            forge.comments.setdefault(int(match[1]), []).append(comment)
            self._answer(201, comment)
            return
        match = re.fullmatch(r"/repos/octo-org/app/issues/comments/(\d+)", path)
        if match and method in ("PATCH", "DELETE"):
            found = [
                (number, c)
                for number, items in forge.comments.items()
                for c in items
                if c["id"] == int(match[1])
            ]
            if not found:
                self._not_found("issues/comments#update-an-issue-comment")
                return
            if forge.read_only:
                self._forbidden()
                return
            number, comment = found[0]
            if method == "DELETE":
                forge.comments[number].remove(comment)
                self._answer(204, None)
            else:
                comment["body"] = body["body"]
                comment["updated_at"] = "2026-01-02T00:00:00Z"
                self._answer(200, comment)
            return
        self._not_found("")

    def _page(self, items: list[dict[str, Any]], query: dict[str, list[str]], path: str) -> None:
        per_page = min(100, int(query.get("per_page", ["30"])[0]))
        page = int(query.get("page", ["1"])[0])
        last = max(1, -(-len(items) // per_page))
        shown = items[(page - 1) * per_page : page * per_page]
        links = []
        base = f"{self.forge.url}{path}?per_page={per_page}"
        if page < last:
            links.append(f'<{base}&page={page + 1}>; rel="next"')
            links.append(f'<{base}&page={last}>; rel="last"')
        if page > 1:
            links.append(f'<{base}&page=1>; rel="first"')
            links.append(f'<{base}&page={page - 1}>; rel="prev"')
        self._answer(200, shown, {"Link": ", ".join(links)} if links else {})

    def _not_found(self, where: str) -> None:
        self._answer(
            404, {"message": "Not Found", "documentation_url": f"{DOCS}/{where}", "status": "404"}
        )

    def _forbidden(self) -> None:
        self._answer(
            403,
            {
                "message": "Resource not accessible by integration",
                "documentation_url": f"{DOCS}/issues/comments#create-an-issue-comment",
                "status": "403",
            },
        )

    # GitLab

    def _gitlab(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> None:
        forge = self.forge
        if self.headers.get("PRIVATE-TOKEN") != GITLAB_TOKEN:
            self._answer(401, {"message": "401 Unauthorized"})
            return
        if method == "GET" and path == "/user":
            self._answer(200, forge.gitlab_user)
            return
        match = re.fullmatch(r"/projects/(\d+)/merge_requests/(\d+)/notes(?:/(\d+))?", path)
        if not match:
            self._answer(404, {"message": "404 Not found"})
            return
        iid, note_id = int(match[2]), match[3]
        items = forge.notes.setdefault(iid, [])
        if method == "GET" and note_id is None:
            per_page = min(100, int(query.get("per_page", ["20"])[0]))
            page = int(query.get("page", ["1"])[0])
            pages = max(1, -(-len(items) // per_page))
            headers = {
                "X-Page": str(page),
                "X-Per-Page": str(per_page),
                "X-Total": str(len(items)),
                "X-Total-Pages": str(pages),
                "X-Next-Page": str(page + 1) if page < pages else "",
                "X-Prev-Page": str(page - 1) if page > 1 else "",
            }
            base = f"{forge.gitlab_url}{path}?order_by=created_at&per_page={per_page}&sort=asc"
            links = [f'<{base}&page=1>; rel="first"', f'<{base}&page={pages}>; rel="last"']
            if page < pages:
                links.insert(0, f'<{base}&page={page + 1}>; rel="next"')
            headers["Link"] = ", ".join(links)
            self._answer(200, items[(page - 1) * per_page : page * per_page], headers)
            return
        if forge.read_only and method != "GET":
            self._answer(403, {"message": "403 Forbidden"})
            return
        if method == "POST" and note_id is None:
            note = _gitlab_note(forge.new_id(), iid, body["body"], forge.gitlab_user, False)
            items.append(note)
            self._answer(201, note)
            return
        found = [n for n in items if str(n["id"]) == note_id]
        if not found:
            self._answer(404, {"message": "404 Not found"})
            return
        if method == "PUT":
            found[0]["body"] = body["body"]
            self._answer(200, found[0])
        elif method == "DELETE":
            items.remove(found[0])
            self._answer(204, None)
        else:
            self._answer(405, {"message": "405 Method Not Allowed"})


@contextmanager
def serving() -> Iterator[FakeForge]:
    """A FakeForge listening on 127.0.0.1 (a free port) until the block ends."""
    forge = FakeForge()
    handler = type("Handler", (_Handler,), {"forge": forge})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    forge.port = server.server_address[1]
    # shutdown() waits for the loop to look again: every 50 ms, not the default 0.5 s.
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield forge
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def queue(
    project: Project, files: dict[str, str], *, squash: bool = False
) -> tuple[Path, str, str, str]:
    """The PR branch `work` with `files`, queued behind another entry: (checkout, group head,
    group base, PR head). The group is built as GitHub's queue builds it: the PR merged (or
    squashed) onto the entry ahead of it."""
    head = project.work(files)
    base = project.main({"queued-before.txt": "another PR ahead in the queue"})
    checkout = project.clone(base)
    if squash:
        git(checkout, "merge", "-q", "--squash", head)
        git(checkout, "commit", "-q", "-m", "Add a dependency (#7)")
    else:
        git(checkout, "merge", "-q", "--no-ff", "--no-edit", head)
    group = git(checkout, "rev-parse", "HEAD").decode().strip()
    return checkout, group, base, head


def pull(head: str, body: str | None, *labels: str, **fields: Any) -> dict[str, Any]:
    """Pull request #7 as GitHub's REST API returns it (the webhook's `pull_request` object
    has the same schema)."""
    data = pull_request("opened", head, body, labels=labels)["pull_request"]
    data.update(fields)
    return data
