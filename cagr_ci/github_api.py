"""The few GitHub REST (and one GraphQL) calls `cagr ci` makes, as GitHub documents them.

- `GET /repos/{owner}/{repo}/pulls/{number}`: a queued pull request's body, head, base and
  labels (`pull-requests: read`).
- `GET /repos/{owner}/{repo}/issues/{number}/comments` (paged), `POST` to the same path,
  `PATCH` and `DELETE /repos/{owner}/{repo}/issues/comments/{id}`: the pull request's comment
  (`pull-requests: write` to write).
- GraphQL `query { viewer { login } }`: who the token is, so that only its own comments are
  ever edited (REST's `GET /user` refuses installation tokens such as GITHUB_TOKEN).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from .forge import ForgeApi
from .rest import ApiError, RestClient

API_VERSION = "2022-11-28"
PER_PAGE = 100


def client(api: ForgeApi, *, graphql: bool = False, **options: Any) -> RestClient:
    """A client for the REST API (or the GraphQL endpoint) with the run's token."""
    assert api.token is not None
    return RestClient(
        api.graphql_url if graphql else api.url,
        "Authorization",
        api.token,
        accept="application/vnd.github+json",
        extra_headers={"X-GitHub-Api-Version": API_VERSION},
        **options,
    )


def _repo(repository: str) -> str:
    owner, _, name = repository.partition("/")
    return f"repos/{quote(owner, safe='')}/{quote(name, safe='')}"


def pull_request(rest: RestClient, repository: str, number: int) -> dict[str, Any]:
    """The pull request object (GitHub's `pull-request` schema)."""
    data = rest.request("GET", f"{_repo(repository)}/pulls/{number}").data
    if not isinstance(data, dict):
        raise ApiError(f"GET pull request #{number}: the answer is not a pull request.")
    return data


def comments(rest: RestClient, repository: str, number: int) -> list[dict[str, Any]]:
    """Every comment on the pull request's conversation, oldest first."""
    items = rest.get_all(f"{_repo(repository)}/issues/{number}/comments?per_page={PER_PAGE}")
    return [item for item in items if isinstance(item, dict)]


def create_comment(rest: RestClient, repository: str, number: int, body: str) -> None:
    rest.request("POST", f"{_repo(repository)}/issues/{number}/comments", {"body": body})


def update_comment(rest: RestClient, repository: str, comment: int, body: str) -> None:
    rest.request("PATCH", f"{_repo(repository)}/issues/comments/{comment}", {"body": body})


def delete_comment(rest: RestClient, repository: str, comment: int) -> None:
    rest.request("DELETE", f"{_repo(repository)}/issues/comments/{comment}")


def viewer_login(graphql: RestClient) -> str:
    """The login of the token's own account (`github-actions[bot]` for GITHUB_TOKEN)."""
    data = graphql.request("POST", "", {"query": "query { viewer { login } }"}).data
    try:
        login = data["data"]["viewer"]["login"]
    except (KeyError, TypeError):
        errors = data.get("errors") if isinstance(data, dict) else None
        said = errors[0].get("message", "") if isinstance(errors, list) and errors else ""
        raise ApiError(f"POST graphql: no viewer in the answer ({str(said)[:200]}).") from None
    if not isinstance(login, str) or not login:
        raise ApiError("POST graphql: the viewer has no login.")
    return login
