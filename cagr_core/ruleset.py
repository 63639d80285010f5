"""Rules compiled for evaluation: patterns and templates checked and compiled once."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

from attrs import Factory, field, frozen

from .errors import PatternError, RuleError, TemplateError
from .globs import PathMatcher
from .manifests import Format, format_of
from .rule_index import RuleIndex
from .rules import RequireAdded, RequiresRule, Rule, Severity, SiblingRule, When, require_glob
from .templates import Template, parse_target


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

    `require` holds one matcher per `require` entry, and `require_added` says, for each, whether
    only an added file satisfies it; `targets` are a sibling rule's templates, in order.
    """

    rule: Rule
    selector: Selector
    require: tuple[PathMatcher, ...] = ()
    require_added: tuple[bool, ...] = ()
    targets: tuple[Template, ...] = ()

    @property
    def when(self) -> When:
        return getattr(self.rule, "when", When.CHANGED)

    @property
    def severity(self) -> Severity:
        return self.rule.severity

    def manifest_format(self, path: str) -> Format | None:
        """How the dependency selector reads a selected path: the rule's `format`, else what
        the file name says (None: no format it reads)."""
        chosen: str | None = getattr(self.rule, "format", None)
        return Format(chosen) if chosen is not None else format_of(path)


def _matcher(rule: Rule, key: str, patterns: tuple[str, ...]) -> PathMatcher:
    try:
        return PathMatcher.compile(patterns)
    except PatternError as error:
        raise RuleError(rule.id, key, error.render()) from error


def compile_rule(rule: Rule) -> CompiledRule:
    """Check and compile one rule; RuleError names the rule, the key and the bad part."""
    if not rule.paths:
        raise RuleError(rule.id, "paths", "needs at least one pattern")
    selector = Selector(
        _matcher(rule, "paths", rule.paths), _matcher(rule, "ignores", rule.ignores)
    )
    if isinstance(rule, RequiresRule):
        if not rule.require:
            raise RuleError(rule.id, "require", "needs at least one pattern")
        require = tuple(_matcher(rule, "require", (require_glob(entry),)) for entry in rule.require)
        added = tuple(isinstance(entry, RequireAdded) for entry in rule.require)
        return CompiledRule(rule, selector, require=require, require_added=added)
    if isinstance(rule, SiblingRule):
        return CompiledRule(rule, selector, targets=_templates(rule))
    return CompiledRule(rule, selector)


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


def _index(rules: tuple[CompiledRule, ...]) -> RuleIndex:
    """The trigger and `require` matchers of all rules, indexed (ignores are only ever tried on
    what a rule's paths selected, so they need no index)."""
    return RuleIndex.build(matcher for c in rules for matcher in (c.selector.paths, *c.require))


@frozen
class RuleSet:
    """Compiled rules with unique ids, in id order (rule order never matters), and their
    patterns indexed once for evaluation."""

    rules: tuple[CompiledRule, ...]
    index: RuleIndex = field(
        default=Factory(lambda ruleset: _index(ruleset.rules), takes_self=True),
        init=False,
        eq=False,
        repr=False,
    )

    @classmethod
    def compile(cls, rules: Iterable[Rule]) -> RuleSet:
        compiled = sorted((compile_rule(rule) for rule in rules), key=lambda c: c.rule.id)
        for before, after in pairwise(compiled):
            if before.rule.id == after.rule.id:
                raise RuleError(after.rule.id, "id", "two rules share this id")
        return cls(tuple(compiled))

    def content_paths(self, paths: Iterable[str]) -> frozenset[str]:
        """Which of these changed paths a selector needs the before/after content of."""
        readers = [c.selector for c in self.rules if c.when is When.DEPENDENCY_ADDED]
        return frozenset(p for p in paths if any(s.selects(p) for s in readers))
