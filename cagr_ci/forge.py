"""Where a run's forge API is, for which project, and with which token: read from the CI
system's variables, without importing anything that speaks HTTP.

- GitHub Actions: `GITHUB_API_URL` (default https://api.github.com), `GITHUB_GRAPHQL_URL`,
  `GITHUB_REPOSITORY`, and the token in `GITHUB_TOKEN` (a workflow passes it to the step:
  `env: GITHUB_TOKEN: ${{ github.token }}`).
- GitLab CI: `CI_API_V4_URL`, the merge request's project (`CI_MERGE_REQUEST_PROJECT_ID`,
  else `CI_PROJECT_ID`), and the token in `CAGR_GITLAB_TOKEN` (a project access token; GitLab's
  own job token cannot write notes).

A token is held in a `Secret`, whose text form hides it: it goes into one request header and
nowhere else (not a message, a report or a file); what the forge answers is scrubbed of it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from cagr_core.redaction import GITHUB_TOKEN, GITLAB_TOKEN, redact
from cagr_core.values import value

Forge = Literal["github", "gitlab"]
_TOKEN_TEXT = re.compile(r"[\x21-\x7e]+")  # what fits in a header: visible ASCII, no spaces


class Secret:
    """A token. Its text form is `Secret('***')`; only `reveal()` gives the value."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The token itself, for the one request header that carries it."""
        return self._value

    def hide(self, text: str) -> str:
        """`text` without the token (the forge's answers may quote it)."""
        return redact(text, (self._value,))

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


@value
class ForgeApi:
    """A forge's REST API as this run may use it.

    `url`: the API's root (no trailing slash); `project`: `owner/name` on GitHub, the project's
    id on GitLab; `token`: None when the variable `token_variable` is not set (then nothing can
    be read or written); `token_problem`: why a set variable cannot be used as a token.
    """

    forge: Forge
    url: str
    project: str
    token_variable: str
    token: Secret | None = None
    token_problem: str = ""
    graphql_url: str = ""


def _token(env: Mapping[str, str], name: str) -> tuple[Secret | None, str]:
    value = env.get(name, "").strip()
    if not value:
        return None, ""
    if not _TOKEN_TEXT.fullmatch(value):
        # Never the value itself: a message can end up in a log.
        return None, f"{name} holds characters a token never has (spaces or control characters)"
    return Secret(value), ""


def github_api(env: Mapping[str, str], repository: str = "") -> ForgeApi:
    """The GitHub API of this Actions run (`repository`: the payload's, when GITHUB_REPOSITORY
    is not set)."""
    url = (env.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
    graphql = env.get("GITHUB_GRAPHQL_URL", "").rstrip("/")
    if not graphql:  # GitHub Enterprise Server: /api/v3 for REST, /api/graphql for GraphQL
        graphql = url[: -len("/v3")] + "/graphql" if url.endswith("/api/v3") else url + "/graphql"
    token, problem = _token(env, GITHUB_TOKEN)
    project = env.get("GITHUB_REPOSITORY") or repository
    return ForgeApi("github", url, project, GITHUB_TOKEN, token, problem, graphql)


def gitlab_api(env: Mapping[str, str]) -> ForgeApi:
    """The GitLab API of this pipeline, for the merge request's own project."""
    url = env.get("CI_API_V4_URL", "").rstrip("/")
    if not url and env.get("CI_SERVER_URL"):
        url = env["CI_SERVER_URL"].rstrip("/") + "/api/v4"
    project = env.get("CI_MERGE_REQUEST_PROJECT_ID") or env.get("CI_PROJECT_ID", "")
    token, problem = _token(env, GITLAB_TOKEN)
    return ForgeApi("gitlab", url, project, GITLAB_TOKEN, token, problem)
