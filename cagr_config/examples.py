"""Rule examples (the values): a small change notation turned into the evaluator's ChangeSet.

The values are here (attrs, for the schema and cattrs); turning them into a ChangeSet is
`fixtures`' (standard library only). This is a test adapter to the one evaluator, not a second
diff format. `status` implies which sides exist (A: after only; D: before only; M, T: both);
`before`/`after` give content for sides that exist. M keeps the kind and changes the content;
T turns a regular file into a symlink.
"""

from __future__ import annotations

from attrs import field, frozen

from cagr_core.changes import Status
from cagr_core.pull_request import Phase, PrBody

from .field_docs import doc, text_doc
from .fixtures import FixtureError, example_oid, fixture_change, fixture_changeset, path_problem

__all__ = [
    "Example",
    "Examples",
    "FixtureChange",
    "FixtureError",
    "example_oid",
    "fixture_change",
    "fixture_changeset",
    "path_problem",
]


@frozen(kw_only=True)
class FixtureChange:
    """One path in an example: its status and optional content on the sides that exist."""

    path: str = field(metadata=doc("Repo-relative path, `/`-separated."))
    status: Status = field(
        metadata=doc("A added, M modified, D deleted, T type changed (file to symlink).")
    )
    before: str | None = field(
        default=None, metadata=text_doc("Content at the baseline (M, D, T).")
    )
    after: str | None = field(default=None, metadata=text_doc("Content in the result (A, M, T)."))


@frozen(kw_only=True)
class Example:
    """One valid or invalid example of a rule; `pr_body` None means no PR metadata."""

    changes: tuple[FixtureChange, ...] = field(
        converter=tuple, metadata=doc("The change: unique paths with their status.")
    )
    pr_body: str | None = field(
        default=None,
        metadata=text_doc("The pull request description; leave it out for 'no PR metadata'."),
    )
    phase: Phase = field(
        default=Phase.CI,
        metadata=doc("ci (default): a PR body is required; turn: an agent's turn end."),
    )

    @property
    def body(self) -> PrBody:
        return PrBody(self.pr_body)


@frozen(kw_only=True)
class Examples:
    """A rule's examples: each valid one must pass, each invalid one must fail that rule."""

    valid: tuple[Example, ...] = field(
        default=(), converter=tuple, metadata=doc("Changes the rule must accept (at least one).")
    )
    invalid: tuple[Example, ...] = field(
        default=(), converter=tuple, metadata=doc("Changes the rule must reject (at least one).")
    )
