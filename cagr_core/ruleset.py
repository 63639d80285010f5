"""Rules compiled for evaluation: patterns and templates checked and compiled once.

A CompiledRule is all the evaluator reads of a rule: its settings and its compiled patterns and
templates. cagr_config.compile makes it from a configured rule; cagr_config.kept rebuilds it from
the compiled configuration cagr keeps between calls, so a check needs neither the config model
nor wcmatch.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

from .dependencies import Format, NameFilter, format_of
from .errors import RuleError
from .globs import PathMatcher
from .rule_index import RuleIndex
from .severity import Severity
from .templates import Template
from .values import field, value
from .when import When
from .whitespace import Whitespace

CHANGE_KINDS = ("requires", "add_only", "sibling", "pr_body")
FILE_KINDS = ("code", "layout")
KINDS = (*CHANGE_KINDS, *FILE_KINDS)


@value
class Selector:
    """A rule's trigger paths minus its ignores, compiled."""

    paths: PathMatcher
    ignores: PathMatcher

    def selects(self, path: str) -> bool:
        return self.paths.matches(path) and not self.ignores.matches(path)


@value
class CompiledRule:
    """A rule with its patterns and templates checked and compiled once.

    `require` holds one matcher per `require` entry, `require_globs` each entry's glob and
    `require_added` whether only an added file satisfies it; `targets` are a sibling rule's
    templates, in order; `section`, `contains`, `placeholders` (None: the default words)
    and `checklist` (the section must hold a task-list item) a `pr_body` rule's; `format`
    the manifest format a dependency rule reads every selected path as (None: by its name),
    and `ignore_dependencies` the names it never fires for.
    `waive_authors`: in CI, a pull request by one of these accounts waives the rule.
    `ignore_whitespace`: an `add_only` rule's whitespace that does not count as an edit.

    Kinds beyond the change rules' four: `code` (an ast-grep rule, as the canonical JSON text
    of its rule object and constraints, `code_rule`, in `language`, judging what a change adds
    (`scope` "new") or whole files ("file")), and `layout` (an added path's stem must follow
    `name` (its expression `name_regex`), or with `forbid` no path may be added).
    """

    id: str
    kind: str
    reason: str
    selector: Selector
    severity: Severity = Severity.ERROR
    waive_label: str | None = None
    when: When = When.CHANGED
    format: str | None = None
    require: tuple[PathMatcher, ...] = ()
    require_globs: tuple[str, ...] = ()
    require_added: tuple[bool, ...] = ()
    targets: tuple[Template, ...] = ()
    section: str | None = None
    contains: str | None = None
    placeholders: tuple[str, ...] | None = None
    checklist: bool = False
    ignore_dependencies: NameFilter | None = None
    waive_authors: tuple[str, ...] = ()
    ignore_whitespace: Whitespace | None = None
    language: str | None = None
    code_rule: str | None = None
    scope: str = "new"
    name: str | None = None
    name_regex: str | None = None
    forbid: bool = False

    @property
    def judges_files(self) -> bool:
        """A code or layout rule: one that `cagr check` runs on the working tree's files."""
        return self.kind in FILE_KINDS

    @property
    def reads_content(self) -> bool:
        """Whether the rule reads the content of the paths it selects, not only their entries."""
        reads = self.when.reads_manifests or self.kind == "code"
        return reads or self.ignore_whitespace is not None

    @property
    def parts_used(self) -> frozenset[str]:
        """The named parts of `paths` that `require` or `target` fill in: obligations are per
        distinct binding of these."""
        used = frozenset(name for m in self.require for name in m.parts)
        return used.union(*(template.named_parts for template in self.targets))

    def requirement(self, index: int) -> str:
        """One `require` entry for messages: its glob, marked when only an added file counts."""
        glob = self.require_globs[index]
        return f"{glob} (added)" if self.require_added[index] else glob

    def manifest_format(self, path: str) -> Format | None:
        """How the dependency selector reads a selected path: the rule's `format`, else what
        the file name says (None: no format it reads)."""
        return Format(self.format) if self.format is not None else format_of(path)


@value
class RuleSet:
    """Compiled rules with unique ids, in id order (rule order never matters), and their
    trigger and `require` patterns indexed once for evaluation (ignores are only ever tried on
    what a rule's paths selected, so they need no index)."""

    rules: tuple[CompiledRule, ...]
    index: RuleIndex = field(init=False, eq=False, repr=False)

    def __post_init__(self) -> None:
        matchers = (matcher for c in self.rules for matcher in (c.selector.paths, *c.require))
        object.__setattr__(self, "index", RuleIndex.build(matchers))

    @classmethod
    def of(cls, compiled: Iterable[CompiledRule]) -> RuleSet:
        """Compiled rules in id order; RuleError when two share an id."""
        ordered = sorted(compiled, key=lambda c: c.id)
        for before, after in pairwise(ordered):
            if before.id == after.id:
                raise RuleError(after.id, "id", "two rules share this id")
        return cls(tuple(ordered))

    def only(self, ids: Iterable[str]) -> RuleSet:
        """The rule set of these rules alone (ids it does not hold are left out)."""
        wanted = frozenset(ids)
        return RuleSet(tuple(c for c in self.rules if c.id in wanted))

    def judging_files(self) -> RuleSet:
        """The code and layout rules alone (what a snapshot runs)."""
        return RuleSet(tuple(c for c in self.rules if c.judges_files))

    def content_paths(self, paths: Iterable[str]) -> frozenset[str]:
        """Which of these changed paths a selector needs the before/after content of: the
        manifests a dependency rule reads, the files a code rule searches, and those an
        `add_only` rule compares ignoring whitespace."""
        readers = [c.selector for c in self.rules if c.reads_content]
        if not readers:
            return frozenset()
        return frozenset(p for p in paths if any(s.selects(p) for s in readers))

    def code_rules(self, path: str) -> tuple[CompiledRule, ...]:
        """The code rules that search `path`."""
        return tuple(c for c in self.rules if c.kind == "code" and c.selector.selects(path))

    def manifest_formats(self, path: str) -> frozenset[Format]:
        """The formats the dependency rules that select `path` read it as."""
        return frozenset(
            manifest
            for c in self.rules
            if c.when.reads_manifests and c.selector.selects(path)
            if (manifest := c.manifest_format(path)) is not None
        )
