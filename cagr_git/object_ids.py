"""Object ids as this repository format writes them: SHA-1, 40 lower-case hex digits."""

from __future__ import annotations

_HEX = frozenset("0123456789abcdef")


def is_sha(text: str) -> bool:
    """A full SHA-1 object id in lower-case hex."""
    return len(text) == 40 and _HEX.issuperset(text)
