"""Code, layout and guard rules, as configured (change rules are `rules`'): the editor schema is
derived from these classes too.

A code rule is an ast-grep rule object (`pattern`, `kind`, `regex`, `inside`, `has`, `not`,
`all`, `any`, ...) run on the files its paths select; a layout rule judges the names of added
paths; a guard denies shell commands an agent is about to run.
"""

from __future__ import annotations

from typing import Any, Literal

from attrs import field, frozen

from .examples import Examples
from .field_docs import doc, text_doc
from .rules import (
    Severity,
    _examples,
    _id,
    _ignores,
    _note,
    _paths,
    _reason,
    _severity,
    _tuple,
    _waive_authors,
    _waive_label,
)

Scope = Literal["new", "file"]


@frozen(kw_only=True)
class CodeExample:
    """One file of a code rule's example: its path, and its content before and after."""

    path: str = field(metadata=doc("Repo-relative path, `/`-separated, selected by the rule."))
    before: str | None = field(
        default=None,
        metadata=text_doc("The file at the baseline; leave it out for a file the change adds."),
    )
    after: str | None = field(
        default=None,
        metadata=text_doc("The file in the result; leave it out for a file the change deletes."),
    )


@frozen(kw_only=True)
class CodeExamples:
    """A code rule's examples: each valid file must pass, each invalid one must fail the rule."""

    valid: tuple[CodeExample, ...] = field(
        default=(), converter=tuple, metadata=doc("Files the rule must accept (at least one).")
    )
    invalid: tuple[CodeExample, ...] = field(
        default=(), converter=tuple, metadata=doc("Files the rule must reject (at least one).")
    )


@frozen(kw_only=True)
class CodeRule:
    """An ast-grep rule judged on what a change adds to the files its paths select."""

    id: str = _id()
    language: str = field(
        metadata=doc(
            "An ast-grep language: python, javascript, typescript, tsx, rust, go, java, ..."
        )
    )
    paths: tuple[str, ...] = _paths()
    ignores: tuple[str, ...] = _ignores()
    rule: dict[str, Any] = field(
        metadata=doc(
            "An ast-grep rule object: pattern, kind, regex, inside, has, precedes, follows, not,"
            " all, any, ... (as in ast-grep's rule files)."
        )
    )
    constraints: dict[str, Any] | None = field(
        default=None,
        metadata=doc("Optional: ast-grep constraints on the rule's metavariables ($A = {...})."),
    )
    scope: Scope = field(
        default="new",
        metadata=doc(
            "new (default): a match is a finding only where the merge base's version of the file"
            " does not already hold it (the same text, counted). file: every match in an added"
            " or modified file."
        ),
    )
    reason: str = _reason()
    note: str | None = _note()
    severity: Severity = _severity()
    waive_label: str | None = _waive_label()
    waive_authors: tuple[str, ...] = _waive_authors()
    examples: CodeExamples = field(
        factory=CodeExamples,
        metadata={**doc("At least one valid and one invalid example."), "required": True},
    )

    @property
    def kind(self) -> str:
        return "code"


@frozen(kw_only=True)
class LayoutRule:
    """Added paths must follow a name convention, or may not be added at all."""

    id: str = _id()
    paths: tuple[str, ...] = _paths()
    ignores: tuple[str, ...] = _ignores()
    name: str | None = field(
        default=None,
        metadata=doc(
            "The convention an added file's stem (its name up to the first dot) follows:"
            " snake_case, kebab-case, camelCase, PascalCase, SCREAMING_SNAKE_CASE, or"
            " regex:PATTERN. Exactly one of name and forbid."
        ),
    )
    forbid: bool = field(
        default=False,
        metadata=doc("true: no file may be added where paths select. Exactly one of name, forbid."),
    )
    reason: str = _reason()
    note: str | None = _note()
    severity: Severity = _severity()
    waive_label: str | None = _waive_label()
    waive_authors: tuple[str, ...] = _waive_authors()
    examples: Examples = _examples()

    @property
    def kind(self) -> str:
        return "layout"


@frozen(kw_only=True)
class GuardExample:
    """A command line a guard must deny (invalid) or let through (valid)."""

    command: str = field(metadata=doc("A shell command line, as an agent would run it."))


@frozen(kw_only=True)
class GuardExamples:
    """A guard's examples: each invalid command must be denied, each valid one not."""

    valid: tuple[GuardExample, ...] = field(
        default=(), converter=tuple, metadata=doc("Commands the guard lets through (one at least).")
    )
    invalid: tuple[GuardExample, ...] = field(
        default=(), converter=tuple, metadata=doc("Commands the guard denies (at least one).")
    )


@frozen(kw_only=True)
class GuardRule:
    """Shell commands an agent may not run: denied in every agent's before-command hook."""

    id: str = _id()
    commands: tuple[str, ...] = field(
        converter=_tuple,
        metadata=doc(
            "Word patterns: the program (matched by its base name), then words that must follow"
            " it in that order, others may come between; `*` matches any run of characters"
            " within a word. `git push --force`, `terraform destroy`, `kubectl delete ns *`."
        ),
    )
    reason: str = _reason()
    note: str | None = _note()
    examples: GuardExamples = field(
        factory=GuardExamples,
        metadata={**doc("At least one valid and one invalid example."), "required": True},
    )

    @property
    def kind(self) -> str:
        return "guard"


@frozen(kw_only=True)
class CodeConfig:
    """Code rules."""

    rules: tuple[CodeRule, ...] = field(default=(), metadata=doc("The code rules (ast-grep)."))


@frozen(kw_only=True)
class LayoutConfig:
    """Layout rules."""

    rules: tuple[LayoutRule, ...] = field(default=(), metadata=doc("The layout rules."))


@frozen(kw_only=True)
class GuardsConfig:
    """Command guards, and which built-in ones are off."""

    rules: tuple[GuardRule, ...] = field(default=(), metadata=doc("The command guards."))
    disable: tuple[str, ...] = field(
        default=(),
        converter=_tuple,
        metadata=doc(
            "Built-in guards to turn off: guard.no-verify, guard.force-push-target,"
            " guard.cagr-state."
        ),
    )


LANGUAGES = (
    "bash", "c", "cpp", "csharp", "css", "dart", "elixir", "go", "haskell", "hcl", "html", "java",
    "javascript", "json", "kotlin", "lua", "nix", "php", "python", "ruby", "rust", "scala",
    "solidity", "swift", "tsx", "typescript", "yaml",
)  # fmt: skip
__all__ = [
    "LANGUAGES",
    "CodeConfig",
    "CodeExample",
    "CodeExamples",
    "CodeRule",
    "GuardExample",
    "GuardExamples",
    "GuardRule",
    "GuardsConfig",
    "LayoutConfig",
    "LayoutRule",
    "Severity",
]
