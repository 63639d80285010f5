"""The forge tokens cagr is given, kept out of everything it shows or writes.

A token reaches cagr in one variable and leaves it in one request header; the forge may quote it
back (an error text, a redirect's address, a pull request's text). Whatever cagr prints or writes
passes through `redact`, which writes each token, and each form escaping gives it (JSON, GitHub's
workflow commands, URLs), as `***`. Standard library only: every command's output uses it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

GITHUB_TOKEN = "GITHUB_TOKEN"
GITLAB_TOKEN = "CAGR_GITLAB_TOKEN"
TOKEN_VARIABLES = (GITHUB_TOKEN, GITLAB_TOKEN)  # never shown, never handed on to commands
HIDDEN = "***"
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_JSON = {'"': '\\"', "\\": "\\\\", "/": "\\/"}


def tokens(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The tokens the variables hold (stripped, as cagr reads them), longest first."""
    found = {environ.get(name, "").strip() for name in TOKEN_VARIABLES}
    return tuple(sorted((token for token in found if token), key=len, reverse=True))


def _forms(token: str) -> list[str]:
    """The token as the formats cagr writes may spell it."""
    escaped = "".join(_JSON.get(char, char) for char in token)
    command = token.replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
    url = "".join(char if char in _UNRESERVED else f"%{ord(char):02X}" for char in token)
    return sorted({token, escaped, token.replace("/", "\\/"), command, url}, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret (and its escaped forms) written as `***`."""
    for secret in secrets:
        if not secret:
            continue
        for form in _forms(secret):
            if form in text:
                text = text.replace(form, HIDDEN)
    return text
