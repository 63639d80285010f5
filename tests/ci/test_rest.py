"""The forge client: timeouts and one deadline, retries with backoff on 5xx and dropped
connections, rate limits waited out as the forge asks (or given up on when it asks too much),
`Link` pagination, and a token that only ever travels in its own header to the API's host."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cagr_ci.forge import Secret, github_api, gitlab_api
from cagr_ci.rest import BACKOFF_VARIABLE, ApiError, RestClient
from tests.support.forge import SECONDARY, TOKEN, FakeForge, serving


@pytest.fixture
def forge() -> Iterator[FakeForge]:
    with serving() as server:
        yield server


@pytest.fixture(autouse=True)
def real_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """The waits a real job has, unless a test shortens them itself."""
    monkeypatch.delenv(BACKOFF_VARIABLE, raising=False)


class Clock:
    """A clock that moves only when the client sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def __call__(self) -> float:
        return self.now


def client(forge: FakeForge, clock: Clock, deadline: float = 120.0) -> RestClient:
    return RestClient(
        forge.url,
        "Authorization",
        Secret(TOKEN),
        deadline=deadline,
        sleep=clock.sleep,
        clock=clock,
        wall_clock=lambda: 1_700_000_000.0,
    )


def test_5xx_is_retried_with_exponential_backoff_then_given_up(forge: FakeForge) -> None:
    forge.fail("GET", "/pulls/7", 502, {"message": "Bad Gateway"}, times=9)
    clock = Clock()
    with pytest.raises(ApiError) as raised:
        client(forge, clock).request("GET", "repos/octo-org/app/pulls/7")
    assert raised.value.status == 502
    assert raised.value.message == "GET /repos/octo-org/app/pulls/7: 502 Bad Gateway"
    assert clock.slept == [1.0, 2.0, 4.0]
    assert len(forge.seen()) == 4


def test_the_deadline_cuts_the_retries_short(forge: FakeForge) -> None:
    forge.fail("GET", "/pulls/7", 500, {"message": "boom"}, times=9)
    clock = Clock()
    with pytest.raises(ApiError):
        client(forge, clock, deadline=2.5).request("GET", "repos/octo-org/app/pulls/7")
    assert clock.slept == [1.0]  # a second wait of 2 s would pass the deadline


@pytest.mark.parametrize(
    ("value", "waits"),
    [
        ("0.01", [0.01, 0.02, 0.04]),
        ("0", [0.0, 0.0, 0.0]),
        ("1", [1.0, 2.0, 4.0]),
        ("2", [1.0, 2.0, 4.0]),  # never longer than a real job's
        ("-1", [1.0, 2.0, 4.0]),
        ("nan", [1.0, 2.0, 4.0]),
        ("soon", [1.0, 2.0, 4.0]),
    ],
)
def test_the_backoff_variable_only_ever_shortens_the_waits(
    forge: FakeForge, monkeypatch: pytest.MonkeyPatch, value: str, waits: list[float]
) -> None:
    monkeypatch.setenv(BACKOFF_VARIABLE, value)
    forge.fail("GET", "/pulls/7", 502, {"message": "Bad Gateway"}, times=9)
    clock = Clock()
    with pytest.raises(ApiError):
        client(forge, clock).request("GET", "repos/octo-org/app/pulls/7")
    assert clock.slept == waits
    assert len(forge.seen()) == 4


def test_retry_after_is_waited_exactly(forge: FakeForge) -> None:
    forge.pulls[7] = {"number": 7}
    forge.fail("GET", "/pulls/7", 429, {"message": "slow down"}, headers={"Retry-After": "17"})
    clock = Clock()
    answer = client(forge, clock).request("GET", "repos/octo-org/app/pulls/7")
    assert answer.data == {"number": 7}
    assert clock.slept == [17.0]


def test_a_limit_that_persists_is_given_up_after_the_tries(forge: FakeForge) -> None:
    forge.fail("GET", "/pulls/7", 429, {"message": "slow"}, headers={"Retry-After": "1"}, times=9)
    clock = Clock()
    with pytest.raises(ApiError) as raised:
        client(forge, clock).request("GET", "repos/octo-org/app/pulls/7")
    assert raised.value.message.endswith(
        "rate limited by the API (429 slow); still, after 4 tries."
    )
    assert clock.slept == [1.0, 1.0, 1.0]


def test_a_secondary_limit_without_retry_after_waits_a_minute(forge: FakeForge) -> None:
    forge.pulls[7] = {"number": 7}
    forge.fail("GET", "/pulls/7", 403, {"message": SECONDARY})
    clock = Clock()
    client(forge, clock).request("GET", "repos/octo-org/app/pulls/7")
    assert clock.slept == [60.0]


def test_an_exhausted_primary_limit_waits_for_its_reset_when_it_fits(forge: FakeForge) -> None:
    forge.pulls[7] = {"number": 7}
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(1_700_000_000 + 30)}
    forge.fail("GET", "/pulls/7", 403, {"message": "API rate limit exceeded"}, headers=headers)
    clock = Clock()
    client(forge, clock).request("GET", "repos/octo-org/app/pulls/7")
    assert clock.slept == [30.0]


def test_a_limit_that_resets_past_the_deadline_is_not_waited_for(forge: FakeForge) -> None:
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(1_700_000_000 + 3000)}
    forge.fail("GET", "/pulls/7", 403, {"message": "API rate limit exceeded"}, headers=headers)
    clock = Clock()
    with pytest.raises(ApiError) as raised:
        client(forge, clock).request("GET", "repos/octo-org/app/pulls/7")
    assert raised.value.rate_limited
    assert clock.slept == []
    assert "it asks to wait 3000 s, more than this run has left" in raised.value.message


def test_gitlab_rate_limit_headers(forge: FakeForge) -> None:
    headers = {"RateLimit-Remaining": "0", "RateLimit-Reset": str(1_700_000_000 + 5)}
    forge.fail("GET", "/user", 429, {"message": "Retry later"}, headers=headers)
    clock = Clock()
    with pytest.raises(ApiError):  # 401 after the wait: this client sends GitHub's header
        client(forge, clock).request("GET", "api/v4/user")
    assert clock.slept == [5.0]


def test_a_plain_403_is_no_rate_limit(forge: FakeForge) -> None:
    forge.read_only = True
    clock = Clock()
    with pytest.raises(ApiError) as raised:
        client(forge, clock).request("POST", "repos/octo-org/app/issues/7/comments", {"body": "x"})
    assert raised.value.status == 403
    assert "Resource not accessible by integration" in raised.value.message
    assert clock.slept == []


def test_pages_follow_link_next(forge: FakeForge) -> None:
    for n in range(205):
        forge.comment(7, f"c{n}")
    items = client(forge, Clock()).get_all("repos/octo-org/app/issues/7/comments?per_page=100")
    assert [item["body"] for item in items] == [f"c{n}" for n in range(205)]
    assert len(forge.seen()) == 3


def test_a_next_page_on_another_host_is_refused(forge: FakeForge) -> None:
    with serving() as elsewhere:
        link = f'<{elsewhere.url}/steal?page=2>; rel="next"'
        forge.fail("GET", "/comments", 200, [], headers={"Link": link})
        with pytest.raises(ApiError, match="a page on another host"):
            client(forge, Clock()).get_all("repos/octo-org/app/issues/7/comments")
        assert elsewhere.seen() == []


def test_a_redirect_is_not_followed_and_carries_no_token(forge: FakeForge) -> None:
    with serving() as elsewhere:
        forge.fail("GET", "/pulls/7", 301, None, headers={"Location": f"{elsewhere.url}/moved"})
        with pytest.raises(ApiError, match="redirect") as raised:
            client(forge, Clock()).request("GET", "repos/octo-org/app/pulls/7")
        assert elsewhere.seen() == []
        assert raised.value.status == 301


def test_a_token_is_sent_over_https_or_to_this_machine_only() -> None:
    with pytest.raises(ApiError, match="not an https:// URL"):
        RestClient("http://api.example.invalid", "Authorization", Secret(TOKEN))
    RestClient("https://api.example.invalid/api/v3", "Authorization", Secret(TOKEN))
    RestClient("http://localhost:8080", "Authorization", Secret(TOKEN))


def test_nothing_shows_the_token(forge: FakeForge) -> None:
    rest = client(forge, Clock())
    assert TOKEN not in repr(rest)
    api = github_api({"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "octo-org/app"})
    assert TOKEN not in repr(api)
    assert TOKEN not in str(api.token)
    forge.fail("GET", "/pulls/7", 404, {"message": f"Not Found {TOKEN[:3]}"})
    with pytest.raises(ApiError) as raised:
        rest.request("GET", "repos/octo-org/app/pulls/7")
    assert TOKEN not in str(raised.value)


def test_a_token_with_a_line_break_is_refused_without_showing_it() -> None:
    api = gitlab_api(
        {"CAGR_GITLAB_TOKEN": "glpat-abc\nX-Injected: 1", "CI_API_V4_URL": "https://x"}
    )
    assert api.token is None
    assert api.token_problem == (
        "CAGR_GITLAB_TOKEN holds characters a token never has (spaces or control characters)"
    )


def test_enterprise_server_addresses() -> None:
    api = github_api({"GITHUB_API_URL": "https://ghe.example.invalid/api/v3"})
    assert api.graphql_url == "https://ghe.example.invalid/api/graphql"
    assert github_api({}).url == "https://api.github.com"
    assert github_api({}).graphql_url == "https://api.github.com/graphql"
