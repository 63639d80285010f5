"""How much a rule's findings weigh: `error` fails a check; `warn` is shown and never fails it."""

from __future__ import annotations

import enum


class Severity(enum.Enum):
    """What a rule's findings do: `error` fails the check; `warn` is shown and never fails it."""

    ERROR = "error"
    WARN = "warn"
