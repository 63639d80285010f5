"""The few GitLab REST calls `cagr ci --comment` makes, as GitLab documents them (Notes API).

- `GET /user`: who the token is (a project access token's bot user), so that only its own
  notes are ever edited.
- `GET /projects/:id/merge_requests/:iid/notes` (paged), `POST` to the same path, `PUT` and
  `DELETE /projects/:id/merge_requests/:iid/notes/:note_id`: the merge request's note.

The token goes in the `PRIVATE-TOKEN` header (personal, project and group access tokens).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from .forge import ForgeApi
from .rest import ApiError, RestClient

PER_PAGE = 100


def client(api: ForgeApi, **options: Any) -> RestClient:
    """A client for the project's API with the run's token."""
    assert api.token is not None
    return RestClient(api.url, "PRIVATE-TOKEN", api.token, **options)


def _notes(project: str, iid: int) -> str:
    return f"projects/{quote(project, safe='')}/merge_requests/{iid}/notes"


def current_user(rest: RestClient) -> int:
    """The id of the token's own user."""
    data = rest.request("GET", "user").data
    if not isinstance(data, dict) or not isinstance(data.get("id"), int):
        raise ApiError("GET /user: the answer names no user.")
    return int(data["id"])


def notes(rest: RestClient, project: str, iid: int) -> list[dict[str, Any]]:
    """Every note on the merge request, oldest first."""
    path = f"{_notes(project, iid)}?sort=asc&order_by=created_at&per_page={PER_PAGE}"
    return [item for item in rest.get_all(path) if isinstance(item, dict)]


def create_note(rest: RestClient, project: str, iid: int, body: str) -> None:
    rest.request("POST", _notes(project, iid), {"body": body})


def update_note(rest: RestClient, project: str, iid: int, note: int, body: str) -> None:
    rest.request("PUT", f"{_notes(project, iid)}/{note}", {"body": body})


def delete_note(rest: RestClient, project: str, iid: int, note: int) -> None:
    rest.request("DELETE", f"{_notes(project, iid)}/{note}")
