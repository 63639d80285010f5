"""The core's exceptions, each carrying the text it was given and where in it the problem is,
and ConfigIssue, one problem of the configuration as reported (errors become issues)."""

from __future__ import annotations

from .values import value


@value
class ConfigIssue:
    """One thing wrong with the configuration: where (file and key path) and what to do."""

    source: str
    where: str
    message: str

    def __str__(self) -> str:
        where = f" {self.where}:" if self.where else ""
        return f"{self.source}:{where} {self.message}"


class CagrError(Exception):
    """Base of every error cagr raises on purpose."""


class ErrorWithFix(CagrError):
    """What went wrong (`message`) and what to do about it (`fix`), said together."""

    def __init__(self, message: str, fix: str) -> None:
        self.message = message
        self.fix = fix
        super().__init__(f"{message} {fix}")


class SpanError(CagrError):
    """A problem at a span of some source text (a glob pattern, a target template)."""

    def __init__(self, what: str, source: str, start: int, end: int, message: str) -> None:
        self.what = what
        self.source = source
        self.start = start
        self.end = max(end, start + 1)
        self.message = message
        super().__init__(self.render())

    def render(self) -> str:
        """The message, the source text, and a caret line under the bad part."""
        shown = self.source.replace("\t", " ").replace("\n", " ")
        caret = " " * self.start + "^" * (min(self.end, len(shown) + 1) - self.start)
        return f"{self.what} {self.source!r}: {self.message}\n  {shown}\n  {caret}"


class PatternError(SpanError):
    """A path glob that cagr cannot use as written."""

    def __init__(self, source: str, start: int, end: int, message: str) -> None:
        super().__init__("pattern", source, start, end, message)


class TemplateError(SpanError):
    """A sibling target template that cagr cannot use as written."""

    def __init__(self, source: str, start: int, end: int, message: str) -> None:
        super().__init__("target template", source, start, end, message)


class RuleError(CagrError):
    """A rule set that cannot be compiled (duplicate ids, bad patterns or templates)."""

    def __init__(self, rule_id: str, key: str, message: str) -> None:
        self.rule_id = rule_id
        self.key = key
        self.message = message
        super().__init__(f"change rule {rule_id}: {key}: {message}")
