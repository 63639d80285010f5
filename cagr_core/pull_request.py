"""The pull request's side of a check: its description, and whether one is required yet."""

from __future__ import annotations

import enum

from attrs import frozen


class Phase(enum.Enum):
    """Where a check runs: at an agent's turn end, or where a PR body is required (gate, CI)."""

    TURN = "turn"
    CI = "ci"


@frozen
class PrBody:
    """The pull request's description: its text, or None when no PR metadata is available.

    An empty string is an available, empty description, and is checked as such.
    """

    text: str | None

    @classmethod
    def unavailable(cls) -> PrBody:
        return cls(None)

    @property
    def available(self) -> bool:
        return self.text is not None
