"""Rules compiled for evaluation: patterns and templates checked and compiled once.

A CompiledRule is all the evaluator reads of a rule: its settings and its compiled patterns and
templates. It is made from a configured Rule (`compile_rule`), or rebuilt from the compiled
configuration cagr keeps between calls, so a check needs neither the config model nor wcmatch.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

from .errors import PatternError, RuleError, TemplateError
from .globs import PathMatcher
from .manifests.formats import Format, format_of
from .rule_index import RuleIndex
from .severity import Severity
from .templates import Template, parse_target
from .values import evolve, field, frozen
from .when import When

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .rules import Rule, SiblingRule


@frozen
class Selector:
    """A rule's trigger paths minus its ignores, compiled."""

    paths: PathMatcher
    ignores: PathMatcher

    def selects(self, path: str) -> bool:
        return self.paths.matches(path) and not self.ignores.matches(path)


@frozen
class CompiledRule:
    """A rule with its patterns and templates checked and compiled once.

    `require` holds one matcher per `require` entry, `require_globs` each entry's glob and
    `require_added` whether only an added file satisfies it; `targets` are a sibling rule's
    templates, in order; `section` and `contains` a `pr_body` rule's; `format` the manifest
    format a `dependency_added` rule reads every selected path as (None: by its name).
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

    def requirement(self, index: int) -> str:
        """One `require` entry for messages: its glob, marked when only an added file counts."""
        glob = self.require_globs[index]
        return f"{glob} (added)" if self.require_added[index] else glob

    def manifest_format(self, path: str) -> Format | None:
        """How the dependency selector reads a selected path: the rule's `format`, else what
        the file name says (None: no format it reads)."""
        return Format(self.format) if self.format is not None else format_of(path)


def _matcher(rule: Rule, key: str, patterns: tuple[str, ...]) -> PathMatcher:
    from .glob_compile import compile_matcher  # noqa: PLC0415  # wcmatch: reading patterns

    try:
        return compile_matcher(patterns)
    except PatternError as error:
        raise RuleError(rule.id, key, error.render()) from error


def compile_rule(rule: Rule) -> CompiledRule:
    """Check and compile one rule; RuleError names the rule, the key and the bad part."""
    from .rules import RequiresRule, SiblingRule  # noqa: PLC0415  # the config model: attrs

    if not rule.paths:
        raise RuleError(rule.id, "paths", "needs at least one pattern")
    compiled = CompiledRule(
        rule.id,
        rule.kind,
        rule.reason,
        Selector(_matcher(rule, "paths", rule.paths), _matcher(rule, "ignores", rule.ignores)),
        severity=rule.severity,
        waive_label=rule.waive_label,
        when=getattr(rule, "when", When.CHANGED),
        format=getattr(rule, "format", None),
        section=getattr(rule, "section", None),
        contains=getattr(rule, "contains", None),
    )
    if isinstance(rule, RequiresRule):
        if not rule.require:
            raise RuleError(rule.id, "require", "needs at least one pattern")
        globs = tuple(entry if isinstance(entry, str) else entry.path for entry in rule.require)
        return evolve(
            compiled,
            require=tuple(_matcher(rule, "require", (glob,)) for glob in globs),
            require_globs=globs,
            require_added=tuple(not isinstance(entry, str) for entry in rule.require),
        )
    if isinstance(rule, SiblingRule):
        return evolve(compiled, targets=_templates(rule))
    return compiled


def _templates(rule: SiblingRule) -> tuple[Template, ...]:
    """Each target template checked; RuleError names the bad one (`target[1]` in a list)."""
    if not rule.targets:
        raise RuleError(rule.id, "target", "needs at least one template")
    templates = []
    for index, source in enumerate(rule.targets):
        try:
            templates.append(parse_target(source))
        except TemplateError as error:
            key = "target" if isinstance(rule.target, str) else f"target[{index}]"
            raise RuleError(rule.id, key, error.render()) from error
    return tuple(templates)


@frozen
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
    def compile(cls, rules: Iterable[Rule]) -> RuleSet:
        return cls.of(compile_rule(rule) for rule in rules)

    @classmethod
    def of(cls, compiled: Iterable[CompiledRule]) -> RuleSet:
        """Compiled rules in id order; RuleError when two share an id."""
        ordered = sorted(compiled, key=lambda c: c.id)
        for before, after in pairwise(ordered):
            if before.id == after.id:
                raise RuleError(after.id, "id", "two rules share this id")
        return cls(tuple(ordered))

    def content_paths(self, paths: Iterable[str]) -> frozenset[str]:
        """Which of these changed paths a selector needs the before/after content of."""
        readers = [c.selector for c in self.rules if c.when is When.DEPENDENCY_ADDED]
        return frozenset(p for p in paths if any(s.selects(p) for s in readers))
