"""A small JSON client for a forge's REST API, on the standard library.

Every request has a timeout, and all of a client's requests share one deadline. Dropped
connections and 5xx answers are retried with exponential backoff; rate limits (403 or 429 with
`retry-after`, an exhausted `x-ratelimit-remaining`/`ratelimit-remaining`, or GitHub's
secondary-limit message) are waited out as the forge asks, when that fits in the deadline.
Pages are followed through `Link: <...>; rel="next"`.

The token goes into one request header, added so that no redirect carries it (redirects are
not followed at all: an API that moved is an error to fix in the job), and only over HTTPS or
to this machine. No error message holds it: messages name the method, the path and the forge's
own error text. Whatever the forge answers (data, headers, error texts) is scrubbed of the token
before anything reads it, so no message, even one cut short, can hold a part of it.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

from cagr_core.values import value
from cagr_core.version import VERSION

from .forge import Secret

TIMEOUT_SECONDS = 20.0  # one request
DEADLINE_SECONDS = 120.0  # all of one client's requests, retries and waits included
ATTEMPTS = 4  # of one request
BACKOFF_SECONDS = 1.0  # the first retry's wait after a dropped connection or a 5xx; it doubles
# Only ever a shorter first wait, for tests against a stand-in API: seconds, from 0 to
# BACKOFF_SECONDS; any other value is ignored.
BACKOFF_VARIABLE = "CAGR_API_BACKOFF_SECONDS"
MAX_PAGES = 50
MAX_ANSWER_BYTES = 16 * 1024 * 1024
_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
_LINK = re.compile(r'<([^>]*)>\s*;\s*rel="?([^";]*)"?')
_SECONDARY = "secondary rate limit"


def first_backoff(environ: Mapping[str, str]) -> float:
    """The first retry's wait: BACKOFF_SECONDS, or a shorter one from BACKOFF_VARIABLE."""
    try:
        seconds = float(environ.get(BACKOFF_VARIABLE, ""))
    except ValueError:
        return BACKOFF_SECONDS
    return seconds if 0 <= seconds <= BACKOFF_SECONDS else BACKOFF_SECONDS


class ApiError(Exception):
    """A request that did not succeed: `status` is the HTTP status (None: no answer at all);
    `rate_limited`: the forge asked to wait longer than this run could. The message is safe to
    print (it never holds the token)."""

    def __init__(self, message: str, status: int | None = None, *, rate_limited: bool = False):
        super().__init__(message)
        self.message = message
        self.status = status
        self.rate_limited = rate_limited


@value
class Answer:
    """A successful answer: status, JSON data (None for an empty body), lower-cased headers."""

    status: int
    data: Any
    headers: dict[str, str]

    def next_page(self) -> str | None:
        """The `Link` header's rel="next" URL, if any."""
        for url, rel in _LINK.findall(self.headers.get("link", "")):
            if "next" in rel.split():
                return str(url)
        return None


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects end in an error (urllib raises the 3xx as an HTTPError)."""

    def redirect_request(self, *_: object, **__: object) -> None:
        return None


class RestClient:
    """Requests to one API root (`base_url`), authenticated by `header: token`."""

    def __init__(  # noqa: PLR0913  # the transport's knobs, each with a default
        self,
        base_url: str,
        header: str,
        token: Secret,
        *,
        accept: str = "application/json",
        extra_headers: dict[str, str] | None = None,
        timeout: float = TIMEOUT_SECONDS,
        deadline: float = DEADLINE_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        backoff: float | None = None,
    ) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme != "https" and not (
            parsed.scheme == "http" and parsed.hostname in _LOCAL_HOSTS
        ):
            raise ApiError(
                f"the API address {base_url!r} is not an https:// URL; cagr sends a token only"
                " over HTTPS (or to this machine)."
            )
        self._base = base_url.rstrip("/")
        self._origin = (parsed.scheme, parsed.netloc)
        self._header = header
        self._token = token
        self._headers = {
            "Accept": accept,
            "User-Agent": f"cagr/{VERSION}",
            **(extra_headers or {}),
        }
        self._timeout = timeout
        self._sleep = sleep
        self._clock = clock
        self._wall_clock = wall_clock
        self._backoff = first_backoff(os.environ) if backoff is None else backoff
        self._deadline = clock() + deadline
        self._opener = urllib.request.build_opener(_NoRedirects)

    def __repr__(self) -> str:
        return f"RestClient({self._base!r})"

    def request(self, method: str, path: str, payload: object = None) -> Answer:
        """One request (`path` below the root, or a full URL on the same host), retried as
        described above; ApiError when it does not succeed."""
        url = self._url(path)
        shown = f"{method} {urllib.parse.urlsplit(url).path}"
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        delay = self._backoff
        for attempt in range(1, ATTEMPTS + 1):
            last = attempt == ATTEMPTS
            try:
                return self._once(method, url, data)
            except urllib.error.HTTPError as error:
                answer = _scrubbed(_error_answer(error), self._token)
                wait = self._rate_limit_wait(error.code, answer)
                if wait is not None:
                    if last or not self._fits(wait):
                        why = (
                            f"still, after {ATTEMPTS} tries"
                            if last
                            else f"it asks to wait {wait:.0f} s, more than this run has left"
                        )
                        raise ApiError(
                            f"{shown}: rate limited by the API ({_said(error.code, answer)});"
                            f" {why}.",
                            error.code,
                            rate_limited=True,
                        ) from None
                    self._sleep(wait)
                    continue
                if error.code >= 500 and not last and self._fits(delay):
                    self._sleep(delay)
                    delay *= 2
                    continue
                raise ApiError(f"{shown}: {_said(error.code, answer)}", error.code) from None
            except (OSError, http.client.HTTPException) as error:  # no answer, or half of one
                if not last and self._fits(delay):
                    self._sleep(delay)
                    delay *= 2
                    continue
                reason = self._token.hide(str(getattr(error, "reason", error)))
                raise ApiError(f"{shown}: the API could not be reached ({reason}).") from None
        raise AssertionError("unreachable")  # pragma: no cover

    def get_all(self, path: str, max_pages: int = MAX_PAGES) -> list[Any]:
        """Every item of a paged list (`Link` rel="next"); ApiError past `max_pages` pages."""
        items: list[Any] = []
        url: str | None = path
        for _ in range(max_pages):
            assert url is not None
            answer = self.request("GET", url)
            if not isinstance(answer.data, list):
                raise ApiError(f"GET {path}: the answer is not a list.", answer.status)
            items.extend(answer.data)
            url = answer.next_page()
            if url is None:
                return items
        raise ApiError(f"GET {path}: more than {max_pages} pages; cagr reads no more.")

    def _url(self, path: str) -> str:
        if not path:
            return self._base
        if not path.startswith(("http://", "https://")):
            return f"{self._base}/{path.lstrip('/')}"
        parsed = urllib.parse.urlsplit(path)
        if (parsed.scheme, parsed.netloc) != self._origin:
            # A next page elsewhere would take the token along: refused.
            raise ApiError(f"the API named a page on another host ({parsed.netloc}).")
        return path

    def _once(self, method: str, url: str, data: bytes | None) -> Answer:
        request = urllib.request.Request(url, data=data, method=method, headers=self._headers)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        # Unredirected: a redirect (none is followed anyway) could never carry it elsewhere.
        request.add_unredirected_header(self._header, self._value())
        timeout = max(0.1, min(self._timeout, self._deadline - self._clock()))
        with self._opener.open(request, timeout=timeout) as response:
            body = response.read(MAX_ANSWER_BYTES + 1)
            headers = {key.lower(): value for key, value in response.headers.items()}
            status = response.status
        if len(body) > MAX_ANSWER_BYTES:
            raise ApiError(f"{method} {urllib.parse.urlsplit(url).path}: the answer is too large.")
        try:
            parsed = json.loads(body) if body.strip() else None
        except ValueError:
            raise ApiError(
                f"{method} {urllib.parse.urlsplit(url).path}: the answer is not JSON.", status
            ) from None
        return _scrubbed(Answer(status, parsed, headers), self._token)

    def _value(self) -> str:
        header_value = self._token.reveal()
        return f"Bearer {header_value}" if self._header == "Authorization" else header_value

    def _fits(self, seconds: float) -> bool:
        return self._clock() + seconds < self._deadline

    def _rate_limit_wait(self, status: int, answer: Answer) -> float | None:
        """Seconds to wait before asking again, when the answer is a rate limit (else None)."""
        if status not in (403, 429):
            return None
        headers = answer.headers
        retry_after = headers.get("retry-after", "")
        if retry_after.strip().isdigit():
            return float(retry_after)
        for prefix in ("x-ratelimit", "ratelimit"):  # GitHub's names, GitLab's
            if headers.get(f"{prefix}-remaining") == "0":
                reset = headers.get(f"{prefix}-reset", "")
                if reset.isdigit():
                    return max(0.0, float(reset) - self._wall_clock())
                return 60.0
        if status == 429 or _SECONDARY in _message(answer).lower():
            return 60.0  # GitHub: "wait for at least one minute before retrying"
        return None


def _scrubbed(answer: Answer, token: Secret) -> Answer:
    """The answer with the token taken out of its data and headers, wherever the forge put it."""

    def scrub(data: Any) -> Any:
        if isinstance(data, str):
            return token.hide(data)
        if isinstance(data, list):
            return [scrub(item) for item in data]
        if isinstance(data, dict):
            return {scrub(key): scrub(item) for key, item in data.items()}
        return data

    headers = {key: token.hide(value) for key, value in answer.headers.items()}
    return Answer(answer.status, scrub(answer.data), headers)


def _error_answer(error: urllib.error.HTTPError) -> Answer:
    headers = {key.lower(): value for key, value in (error.headers or {}).items()}
    try:
        body = error.read(64 * 1024)
    except OSError:
        body = b""
    try:
        data = json.loads(body) if body.strip() else None
    except ValueError:
        data = None
    return Answer(error.code, data, headers)


def _message(answer: Answer) -> str:
    """The forge's own error text: GitHub's and GitLab's `message` (GitLab's may be a mapping
    of fields to problems), or GitLab's OAuth `error`."""
    data = answer.data
    if not isinstance(data, dict):
        return ""
    message = data.get("message", data.get("error", ""))
    if isinstance(message, dict):
        message = "; ".join(f"{key}: {value}" for key, value in message.items())
    return str(message)[:300]


def _said(status: int, answer: Answer) -> str:
    message = _message(answer)
    if 300 <= status < 400:
        where = answer.headers.get("location", "elsewhere")
        return f"{status}: the API answered with a redirect to {where}; cagr follows none"
    return f"{status} {message}".rstrip()
