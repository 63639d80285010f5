"""The pull request's side of a check: its description, and whether one is required yet."""

from __future__ import annotations

import enum

from .values import value

TYPE_CHECKING = False  # not typing's: the PR gate reads records without parsing a body
if TYPE_CHECKING:
    from .sections import Document

MAX_BODY_BYTES = 256 * 1024  # the most of a description cagr reads (Limits.max_body_bytes)


class Phase(enum.Enum):
    """Where a check runs: at an agent's turn end, or where a PR body is required (gate, CI)."""

    TURN = "turn"
    CI = "ci"


@value
class PrBody:
    """The pull request's description: its text, or None when no PR metadata is available.

    An empty string is an available, empty description, and is checked as such.
    `truncated`: the text is only the start of the description (a CI system passed a cut copy).
    A verdict on a section then holds only where that section ends at a next heading inside the
    text; a section that is absent or runs to the cut is unknown. The core reads sections from
    `document`, never from the text: an adapter parses it (cagr_markdown.parsed).
    """

    text: str | None
    truncated: bool = False
    document: Document | None = None  # the text parsed (cagr_markdown.parsed), once needed

    @classmethod
    def unavailable(cls) -> PrBody:
        return cls(None)

    @property
    def available(self) -> bool:
        return self.text is not None

    def sections(self) -> Document:
        """The parsed description; ValueError when the text was never parsed (a caller's bug:
        bodies are parsed by cagr_markdown.parsed before they are judged)."""
        if self.document is None:
            raise ValueError("the PR body was not parsed: pass it through cagr_markdown.parsed")
        return self.document
